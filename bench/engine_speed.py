"""Whole-program run time: torchir's engine (bench/run_program, in process) against eager
`ep.module()` and pytorch-ir's Python executor on the same program, same thread count, one run.

Usage: python engine_speed.py BUILD_DIR FILE.pt2 [IR.json] [REPEATS] [THREADS] [ROUNDS]
Each runs REPEATS times after a warm-up; medians are reported. With ROUNDS > 1 the whole comparison
is repeated, each round measuring torchir and pytorch-ir back to back, and the ratio of each round
is reported: on a shared machine the speed drifts between minutes, and a ratio of two measurements
taken far apart says more about the drift than about the executors.
"""

import json
import statistics
import subprocess
import sys
import time

import torch


def median_time(fn, repeats):
    fn()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main():
    build, pt2 = sys.argv[1], sys.argv[2]
    ir_path = sys.argv[3] if len(sys.argv) > 3 and sys.argv[3] != "-" else None
    repeats = int(sys.argv[4]) if len(sys.argv) > 4 else 20
    threads = int(sys.argv[5]) if len(sys.argv) > 5 else 1
    rounds = int(sys.argv[6]) if len(sys.argv) > 6 else 1
    torch.set_num_threads(threads)
    ratios = [one_round(build, pt2, ir_path, repeats, threads) for _ in range(rounds)]
    if rounds > 1 and ir_path:
        ratios.sort()
        print(f"pytorch-ir / torchir over {rounds} rounds: median {statistics.median(ratios):.1f}x, "
              f"range {ratios[0]:.1f}x-{ratios[-1]:.1f}x")


def one_round(build, pt2, ir_path, repeats, threads):
    out = subprocess.run([f"{build}/bench/run_program", pt2, str(repeats), str(threads)], check=True,
                         capture_output=True, text=True).stdout.split("\n")
    rows = [line.split() for line in out if line]
    ours = statistics.median(float(r[0]) for r in rows)
    ops = statistics.median(float(r[1]) for r in rows)
    nodes = int(rows[0][2])

    ep = torch.export.load(pt2)
    args, kwargs = ep.example_inputs
    module = ep.module()
    with torch.inference_mode():
        eager = median_time(lambda: module(*args, **kwargs), repeats)

    print(f"file: {pt2}  nodes run: {nodes}  threads: {threads}  repeats: {repeats}")
    print(f"torchir engine       {ours * 1e3:9.3f} ms  (ops' own time {ops * 1e3:.3f} ms; "
          f"overhead {(ours - ops) / nodes * 1e6:.2f} us/node)")
    print(f"eager ep.module()    {eager * 1e3:9.3f} ms  (torchir / eager = {ours / eager:.3f})")
    if ir_path:
        from torch_ir import IR
        from torch_ir.executor import IRExecutor

        ir = IR.load(ir_path)
        weights = {k: v for k, v in ep.state_dict.items()}
        weights.update({k: v for k, v in ep.constants.items() if isinstance(v, torch.Tensor)})
        executor = IRExecutor(ir, weights=weights)
        with torch.inference_mode():
            theirs = median_time(lambda: executor.execute(tuple(args)), repeats)
        print(f"pytorch-ir executor  {theirs * 1e3:9.3f} ms  (pytorch-ir / torchir = {theirs / ours:.1f}x)")
        return theirs / ours
    return None


if __name__ == "__main__":
    main()
