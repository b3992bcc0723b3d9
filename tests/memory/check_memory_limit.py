"""A program whose weights are three times the memory it may use runs to the same bits as an
unlimited run, and compares against its float64 shadow as an unlimited comparison does: torchir run
and torchir compare inside a memory cgroup (v1 or v2, whichever the machine has) of 1 GiB, on a
program of 3 GiB of float32 weights (48 layers of width 1024) written by bench/make_big_program.py.

The run reads weights through the file's map (pages the kernel may evict); the comparison's
reference makes each float64 weight when a node needs it and lets it go past a bound. Exits 77
(skipped) with the reason where no memory cgroup can be made here, or where the disk has no room
for the program.

Usage: check_memory_limit.py --torchir BIN --build BUILD --out DIR [--layers N] [--width D] [--limit-mib M]
"""

import argparse
import json
import os
import shutil
import subprocess
import sys

SKIP = 77
HERE = os.path.dirname(os.path.abspath(__file__))
BENCH = os.path.join(HERE, "..", "..", "bench")
sys.path.insert(0, BENCH)
from memory_cgroup import Skip, evict_from_page_cache, make_cgroup, peak_since_last, remove_cgroup, run  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--torchir", required=True)
    ap.add_argument("--build", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--layers", type=int, default=48)
    ap.add_argument("--width", type=int, default=1024)
    ap.add_argument("--limit-mib", type=int, default=1024)
    a = ap.parse_args()
    limit = a.limit_mib << 20
    shutil.rmtree(a.out, ignore_errors=True)
    os.makedirs(a.out)
    # The program (16 D^2 float32 parameters a layer) and a little more for the outputs.
    need = a.layers * 16 * a.width**2 * 4 + (256 << 20)
    free = shutil.disk_usage(a.out).free
    if free < need:
        print(f"skipped: {free / 2**30:.1f} GiB free in {a.out}, the program needs {need / 2**30:.1f}")
        return SKIP
    name = f"torchir-memory-test-{os.getpid()}"
    try:
        cgroup, peak_file = make_cgroup(name, limit)
    except Skip as e:
        print(f"skipped: {e}")
        return SKIP
    program = os.path.join(a.out, "big.pt2")
    try:
        subprocess.run([sys.executable, os.path.join(BENCH, "make_big_program.py"), a.build, program, str(a.layers),
                        "--width", str(a.width)], check=True)
        weights = os.path.getsize(program)
        assert weights > 2.5 * limit, f"{program} is {weights} bytes: not several times the limit of {limit}"

        def peak():
            return peak_since_last(cgroup, peak_file)

        failures = []
        expect = os.path.join(a.out, "unlimited.safetensors")
        rc, out, err, t, rss = run([a.torchir, "run", program, "--save-outputs", expect])
        assert rc == 0, f"the unlimited run failed ({rc}): {err.strip()}"
        print(f"{program}: {weights / 2**30:.2f} GiB; unlimited run: {t:.1f} s, peak RSS {rss / 2**20:.0f} MiB")
        # the limit must bite: a run that never touched more than it would prove nothing
        assert rss > limit, f"the unlimited run peaked at {rss} bytes, within the limit of {limit}"

        evict_from_page_cache(program)  # else the limited run would find it read, charged to another cgroup
        rc, out, err, t, rss = run([a.torchir, "run", program, "--expect", expect], cgroup)
        print(f"run in {a.limit_mib} MiB: exit {rc}, {t:.1f} s, peak RSS {rss / 2**20:.0f} MiB, "
              f"cgroup peak {peak() / 2**20:.0f} MiB")
        if rc != 0:
            failures.append(f"the run in {a.limit_mib} MiB " +
                            (f"was killed by signal {-rc}" if rc < 0 else f"exited {rc}: {err.strip()[-500:]}"))

        compare = [a.torchir, "compare", program, "--against", "float64", "--json"]
        rc, unlimited, err, t, rss = run(compare)
        assert rc in (0, 1), f"the unlimited comparison failed ({rc}): {err.strip()}"
        print(f"unlimited comparison against float64: {t:.1f} s, peak RSS {rss / 2**20:.0f} MiB")
        evict_from_page_cache(program)
        rc, limited, err, t, rss = run(compare, cgroup)
        print(f"comparison in {a.limit_mib} MiB: exit {rc}, {t:.1f} s, peak RSS {rss / 2**20:.0f} MiB, "
              f"cgroup peak {peak() / 2**20:.0f} MiB")
        if rc not in (0, 1):
            failures.append(f"the comparison in {a.limit_mib} MiB " +
                            (f"was killed by signal {-rc}" if rc < 0 else f"exited {rc}: {err.strip()[-500:]}"))
        elif json.loads(limited) != json.loads(unlimited):
            failures.append(f"the comparison in {a.limit_mib} MiB differs from the unlimited one")
        else:
            nodes = json.loads(limited).get("nodes", [])
            print(f"the comparison in {a.limit_mib} MiB equals the unlimited one ({len(nodes)} nodes compared)")
            if not nodes:
                failures.append("the comparison compared no node")
        for f in failures:
            print("FAIL: " + f)
        print(f"{2 - len(failures)} passed, {len(failures)} failed")
        return 1 if failures else 0
    finally:
        remove_cgroup(cgroup)
        shutil.rmtree(a.out, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
