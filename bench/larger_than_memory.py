"""A program whose weights are larger than this machine's memory: written by make_big_program.py
(weights streamed to disk, never all in memory), then `torchir info`, a full `torchir run` and
`torch.export.load` of it, each timed with its peak RSS; the file is removed at the end.

torch.export.load reads every weight into memory and is expected to fail. It runs inside a memory
cgroup limited to the usable memory less 2 GiB (or, where none can be made, under an address-space
limit), so that its failure kills nothing else.

Usage: python larger_than_memory.py BUILD [--gib 32] [--width 2048] [--dir /tmp] [--keep]
"""

import argparse
import math
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from memory_cgroup import Skip, make_cgroup, peak_since_last, remove_cgroup, run  # noqa: E402

LOAD = """
import sys, torch
ep = torch.export.load(sys.argv[1])
print(sum(1 for n in ep.graph.nodes if n.op == "call_function"), "op nodes")
"""


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("build")
    ap.add_argument("--gib", type=float, default=32)
    ap.add_argument("--width", type=int, default=2048)
    ap.add_argument("--dir", default="/tmp")
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--load-timeout", type=int, default=1800)
    a = ap.parse_args()
    layer = (12 * a.width * a.width + 13 * a.width) * 4
    layers = max(2, math.ceil(a.gib * 2**30 / layer))
    program = os.path.join(a.dir, f"larger_than_memory_{a.width}x{layers}.pt2")
    torchir = os.path.join(a.build, "app", "torchir")
    memory = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    rows = []
    try:
        t0 = time.perf_counter()
        subprocess.run([sys.executable, os.path.join(HERE, "make_big_program.py"), a.build, program, str(layers),
                        "--width", str(a.width)], check=True)
        size = os.path.getsize(program)
        rows.append(("make_big_program.py (torch exports 2 layers, replicate_layers writes the rest)",
                     time.perf_counter() - t0, None, "ok"))
        print(f"{program}: {size / 2**30:.1f} GiB, {layers} layers of width {a.width}; "
              f"memory {memory / 2**30:.1f} GiB", flush=True)
        for what, cmd in (("torchir info", [torchir, "info", program]),
                          ("torchir run (sample inputs)", [torchir, "run", program])):
            rc, out, err, seconds, rss = run(cmd)
            rows.append((what, seconds, rss, "ok" if rc == 0 else f"exit {rc}: {err.strip()[-200:]}"))
            print(rows[-1], flush=True)

        limit = memory - (2 << 30)
        cgroup = None
        try:
            cgroup, peak_file = make_cgroup(f"torchir-bench-{os.getpid()}", limit)
            how = f"in a memory cgroup of {limit / 2**30:.0f} GiB"
        except Skip:
            how = f"under an address-space limit of {limit / 2**30:.0f} GiB"
        load = [sys.executable, "-c", LOAD, program]
        if cgroup is None:
            load = ["prlimit", f"--as={limit}"] + load
        try:
            rc, out, err, seconds, rss = run(["timeout", str(a.load_timeout)] + load, cgroup)
            outcome = ("ok: " + out.strip()) if rc == 0 else \
                "killed (out of memory)" if rc in (-9, 137) else \
                "timed out" if rc == 124 else f"exit {rc}: {err.strip().splitlines()[-1][:160] if err.strip() else ''}"
            if cgroup:
                rss = max(rss, peak_since_last(cgroup, peak_file))
            rows.append((f"torch.export.load {how}", seconds, rss, outcome))
            print(rows[-1], flush=True)
        finally:
            if cgroup:
                remove_cgroup(cgroup)
    finally:
        if not a.keep and os.path.exists(program):
            os.remove(program)
    print(f"\n{size / 2**30:.1f} GiB of float32 weights ({layers} layers of width {a.width}), "
          f"{memory / 2**30:.1f} GiB of memory\n")
    print("| what | time | peak RSS | outcome |\n|---|---|---|---|")
    for what, seconds, rss, outcome in rows:
        print(f"| {what} | {seconds:.1f} s | {'' if rss is None else f'{rss / 2**30:.2f} GiB'} | {outcome} |")


if __name__ == "__main__":
    main()
