"""Opening speed of two builds of torchir on one file, in turns, in one run: a change to the
readers must not make opening slower.

Usage: python open_before_after.py BEFORE_BUILD AFTER_BUILD FILE [TURNS]
Each turn runs, for each build in alternating order, `torchir info FILE --json` as a whole process
and `bench/open_pt2 FILE 3` (the median of its last two in-process opens). Reported: each build's
median over the turns, and the median of the per-turn ratios after/before with the middle half.
"""

import statistics
import subprocess
import sys
import time


def whole_process(build, path):
    t0 = time.perf_counter()
    subprocess.run([f"{build}/app/torchir", "info", path, "--json"], check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - t0


def in_process(build, path):
    out = subprocess.run([f"{build}/bench/open_pt2", path, "3"], check=True, capture_output=True, text=True).stdout
    return statistics.median(float(line.split()[0]) for line in out.split("\n")[1:] if line)


def quartiles(xs):
    q = statistics.quantiles(xs, n=4)
    return f"{statistics.median(xs):.3f} (middle half {q[0]:.3f}-{q[2]:.3f})"


def main():
    before, after, path = sys.argv[1:4]
    turns = int(sys.argv[4]) if len(sys.argv) > 4 else 9
    for build in (before, after):
        whole_process(build, path)  # warm-up: the file in the page cache
    results = {name: {before: [], after: []} for name in ("info", "open")}
    for turn in range(turns):
        order = (before, after) if turn % 2 == 0 else (after, before)
        for build in order:
            results["info"][build].append(whole_process(build, path))
            results["open"][build].append(in_process(build, path))
    print(f"file: {path}, {turns} turns")
    for name, label in (("info", "torchir info (whole process)"), ("open", "open_pt2 (in process)")):
        b, a = results[name][before], results[name][after]
        ratios = [x / y for x, y in zip(a, b)]
        print(f"{label}: before {statistics.median(b):.3f} s, after {statistics.median(a):.3f} s, "
              f"after/before {quartiles(ratios)}")


if __name__ == "__main__":
    main()
