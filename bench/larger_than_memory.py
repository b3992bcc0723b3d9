"""A program whose weights are larger than this machine's memory: written by make_big_program.py
(weights streamed to disk, never all in memory), then `torchir info`, a full `torchir run`, a
comparison against its float64 shadow, a run inside a memory cgroup of a quarter of the weights'
size (the same outputs), and `torch.export.load` of it, each timed with its peak RSS (a cgroup's
own peak where it ran in one); the file is removed at the end.

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
from memory_cgroup import Skip, evict_from_page_cache, make_cgroup, peak_since_last, remove_cgroup, run  # noqa: E402

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
    layer = (16 * a.width * a.width + 17 * a.width) * 4  # bytes of one layer (make_big_program.py)
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
                     time.perf_counter() - t0, None, None, "ok"))
        print(f"{program}: {size / 2**30:.1f} GiB, {layers} layers of width {a.width}; "
              f"memory {memory / 2**30:.1f} GiB", flush=True)
        expect = program + ".outputs.safetensors"
        for what, cmd in (("torchir info", [torchir, "info", program]),
                          ("torchir run (sample inputs)", [torchir, "run", program, "--save-outputs", expect]),
                          ("torchir compare --against float64", [torchir, "compare", program, "--against", "float64"])):
            rc, out, err, seconds, rss = run(cmd)
            rows.append((what, seconds, rss, None, "ok" if rc in (0, 1) else f"exit {rc}: {err.strip()[-200:]}"))
            print(rows[-1], flush=True)
        # the same run with a quarter of the weights' size to live in: the same outputs
        small = int(size / 4)
        try:
            cgroup, peak_file = make_cgroup(f"torchir-bench-run-{os.getpid()}", small)
            try:
                evict_from_page_cache(program)  # pages read before are charged elsewhere: read them again
                rc, out, err, seconds, rss = run([torchir, "run", program, "--expect", expect], cgroup)
                rows.append((f"torchir run in a memory cgroup of {small / 2**30:.0f} GiB", seconds, rss,
                             peak_since_last(cgroup, peak_file),
                             "ok, the same outputs bit for bit" if rc == 0 else f"exit {rc}: {err.strip()[-200:]}"))
                print(rows[-1], flush=True)
            finally:
                remove_cgroup(cgroup)
        except Skip as e:
            print(f"no run in a smaller cgroup: {e}")

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
            evict_from_page_cache(program)
            rc, out, err, seconds, rss = run(["timeout", str(a.load_timeout)] + load, cgroup)
            outcome = ("ok: " + out.strip()) if rc == 0 else \
                "killed (out of memory)" if rc in (-9, 137) else \
                "timed out" if rc == 124 else f"exit {rc}: {err.strip().splitlines()[-1][:160] if err.strip() else ''}"
            rows.append((f"torch.export.load {how}", seconds, rss,
                         peak_since_last(cgroup, peak_file) if cgroup else None, outcome))
            print(rows[-1], flush=True)
        finally:
            if cgroup:
                remove_cgroup(cgroup)
    finally:
        for path in (program, program + ".outputs.safetensors"):
            if not a.keep and os.path.exists(path):
                os.remove(path)
    print(f"\n{size / 2**30:.1f} GiB of float32 weights ({layers} layers of width {a.width}), "
          f"{memory / 2**30:.1f} GiB of memory\n")
    # RSS counts the file's pages the process has mapped, whichever cgroup their page cache is
    # charged to; a cgroup's peak counts what it was charged (its processes' memory and the pages
    # they read), which its limit bounds.
    def gib(n):
        return "" if n is None else f"{n / 2**30:.2f} GiB"
    print("| what | time | peak RSS | cgroup's peak | outcome |\n|---|---|---|---|---|")
    for what, seconds, rss, peak, outcome in rows:
        print(f"| {what} | {seconds:.1f} s | {gib(rss)} | {gib(peak)} | {outcome} |")


if __name__ == "__main__":
    main()
