"""Whole-program run time: torchir's engine (bench/run_program, in process) against eager
`ep.module()` and pytorch-ir's Python executor on the same program, same thread count.

Usage: python engine_speed.py BUILD_DIR FILE.pt2 [IR.json|-] [TURNS] [THREADS] [BURST]

torchir runs the .pt2, and the IR too when given (with the .pt2's example inputs and weights,
which the IR JSON does not carry); eager is compared with torchir on the .pt2, pytorch-ir with
torchir on the same IR. They take TURNS turns (after a warm-up each). In a turn each runs BURST
times (default 5) back to back and its median run counts, so that every executor is measured warm,
as a program run in a loop is: the first run after another executor's is slower (the caches and
branch predictors hold the other's code), by up to 2x for a 3 ms torchir run, and settles by the
third. torchir's engine stays loaded in a `run_program FILE serve` process
that answers each request with its own timings. The speed of a shared machine drifts by 2-3x over
seconds, so only measurements taken next to each other are compared: each ratio reported is the
median of the per-turn ratios.
"""

import statistics
import subprocess
import sys
import tempfile
import time

import torch

# Quantized programs: eager needs the Python-defined ops (pt2e's quantized_decomposed, torchao's
# primitives and tensor subclasses) that torchir runs natively.
import torch.ao.quantization.fx._decomposed  # noqa: F401
try:
    import torchao  # noqa: F401
except ImportError:
    pass


class TorchirServer:
    """bench/run_program in serve mode: loaded once, one run per request."""

    def __init__(self, build, path, threads, *options):
        self.proc = subprocess.Popen([f"{build}/bench/run_program", path, "serve", str(threads), *options],
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
    repeats = max(1, int(sys.argv[4])) if len(sys.argv) > 4 else 20
    threads = int(sys.argv[5]) if len(sys.argv) > 5 else 1
    burst = int(sys.argv[6]) if len(sys.argv) > 6 else 5
    torch.set_num_threads(threads)

    ep = torch.export.load(pt2)
    args, kwargs = ep.example_inputs
    module = ep.module()
    # Each Python executor is compared with the torchir run of the same file.
    python = {"eager": (lambda: module(*args, **kwargs), "torchir .pt2")}
    servers = {"torchir .pt2": TorchirServer(build, pt2, threads)}
    if ir_path:
        from safetensors.torch import save_file
        from torch_ir import IR
        from torch_ir.executor import IRExecutor

        weights = dict(ep.state_dict)
        weights.update({k: v for k, v in ep.constants.items() if isinstance(v, torch.Tensor)})
        executor = IRExecutor(IR.load(ir_path), weights=weights)
        python["pytorch-ir"] = (lambda: executor.execute(tuple(args)), "torchir IR")
        # The IR JSON carries no inputs: the same ones, from a file; its weights from the .pt2's.
        tmp = tempfile.mkdtemp()
        save_file({f"input_{i}": t.contiguous() for i, t in enumerate(args)}, f"{tmp}/inputs.safetensors")
        save_file({k: v.contiguous() for k, v in weights.items()}, f"{tmp}/weights.safetensors")
        servers["torchir IR"] = TorchirServer(build, ir_path, threads, "--weights", f"{tmp}/weights.safetensors",
                                              "--inputs", f"{tmp}/inputs.safetensors")

    walls = {name: [] for name in [*servers, *python]}
    ops = {name: [] for name in servers}
    nodes = {}  # op nodes each torchir run executed (the IR and the .pt2 may count differently)
    with torch.inference_mode():
        for fn, _ in python.values():
            fn()  # warm-up (run_program warms up by itself)
        for _ in range(repeats):
            for name, server in servers.items():
                wall, op_seconds, nodes[name] = server.run(burst)
                walls[name].append(wall)
                ops[name].append(op_seconds)
            for name, (fn, _) in python.items():
                walls[name].append(timed(fn, burst))
    for server in servers.values():
        server.close()

    med = statistics.median
    print(f"file: {pt2}  threads: {threads}  turns: {repeats} of {burst} runs")
    for name in servers:
        print(f"{name:20s} {med(walls[name]) * 1e3:9.3f} ms  (ops' own time {med(ops[name]) * 1e3:.3f} ms; "
              f"overhead {med(w - o for w, o in zip(walls[name], ops[name])) / nodes[name] * 1e6:.2f} us/node "
              f"over {nodes[name]} op nodes)")
    for name, (_, ours) in python.items():
        ratios = sorted(t / w for t, w in zip(walls[name], walls[ours]))
        print(f"{name:20s} {med(walls[name]) * 1e3:9.3f} ms  ({name} / {ours} per turn: median {med(ratios):.2f}x, "
              f"middle half {ratios[len(ratios) // 4]:.2f}x-{ratios[3 * len(ratios) // 4]:.2f}x)")


if __name__ == "__main__":
    main()
