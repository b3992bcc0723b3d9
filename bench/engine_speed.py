"""Whole-program run time: torchir's engine (bench/run_program, in process) against eager
`ep.module()` and pytorch-ir's Python executor on the same program, same thread count.

Usage: python engine_speed.py BUILD_DIR FILE.pt2 [IR.json|-] [TURNS] [THREADS] [BURST]

The three take TURNS turns (after a warm-up each). In a turn each runs BURST times (default 3)
back to back and its median run counts, so that every executor is measured warm, as a program
run in a loop is. torchir's engine stays loaded in a `run_program FILE serve` process that answers
each request with its own timings. The speed of a shared machine drifts by 2-3x over seconds, so
only measurements taken next to each other are compared: each ratio reported is the median of the
per-turn ratios.
"""

import statistics
import subprocess
import sys
import time

import torch


class TorchirServer:
    """bench/run_program in serve mode: loaded once, one run per request."""

    def __init__(self, build, pt2, threads):
        self.proc = subprocess.Popen([f"{build}/bench/run_program", pt2, "serve", str(threads)],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def run(self, burst):
        """Returns (wall seconds, ops' own seconds, op nodes run) of the median of `burst` runs."""
        self.proc.stdin.write(f"{burst}\n")
        self.proc.stdin.flush()
        runs = []
        for _ in range(burst):
            line = self.proc.stdout.readline()
            if not line:
                raise SystemExit("run_program stopped: " + str(self.proc.wait()))
            wall, ops, nodes = line.split()
            runs.append((float(wall), float(ops), int(nodes)))
        return sorted(runs)[len(runs) // 2]

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()


def timed(fn, burst):
    """The median wall time of `burst` runs."""
    times = []
    for _ in range(burst):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main():
    build, pt2 = sys.argv[1], sys.argv[2]
    ir_path = sys.argv[3] if len(sys.argv) > 3 and sys.argv[3] != "-" else None
    repeats = int(sys.argv[4]) if len(sys.argv) > 4 else 20
    threads = int(sys.argv[5]) if len(sys.argv) > 5 else 1
    burst = int(sys.argv[6]) if len(sys.argv) > 6 else 3
    torch.set_num_threads(threads)

    ep = torch.export.load(pt2)
    args, kwargs = ep.example_inputs
    module = ep.module()
    executors = {"eager": lambda: module(*args, **kwargs)}
    if ir_path:
        from torch_ir import IR
        from torch_ir.executor import IRExecutor

        weights = dict(ep.state_dict)
        weights.update({k: v for k, v in ep.constants.items() if isinstance(v, torch.Tensor)})
        executor = IRExecutor(IR.load(ir_path), weights=weights)
        executors["pytorch-ir"] = lambda: executor.execute(tuple(args))

    server = TorchirServer(build, pt2, threads)
    ours, ops, theirs = [], [], {name: [] for name in executors}
    with torch.inference_mode():
        for fn in executors.values():
            fn()  # warm-up (run_program warms up by itself)
        for _ in range(repeats):
            wall, op_seconds, nodes = server.run(burst)
            ours.append(wall)
            ops.append(op_seconds)
            for name, fn in executors.items():
                theirs[name].append(timed(fn, burst))
    server.close()

    med = statistics.median
    print(f"file: {pt2}  op nodes run: {nodes}  threads: {threads}  turns: {repeats} of {burst} runs")
    print(f"torchir engine       {med(ours) * 1e3:9.3f} ms  (ops' own time {med(ops) * 1e3:.3f} ms; "
          f"overhead {med(w - o for w, o in zip(ours, ops)) / nodes * 1e6:.2f} us/node)")
    for name, times in theirs.items():
        ratios = sorted(t / w for t, w in zip(times, ours))
        print(f"{name:20s} {med(times) * 1e3:9.3f} ms  ({name} / torchir per turn: median {med(ratios):.2f}x, "
              f"middle half {ratios[len(ratios) // 4]:.2f}x-{ratios[3 * len(ratios) // 4]:.2f}x)")


if __name__ == "__main__":
    main()
