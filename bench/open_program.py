"""Time to open one .pt2: `torchir info` against `torch.export.load`, measured in one run.

Usage: python open_program.py TORCHIR_BINARY FILE.pt2 [REPEATS]
Each tool opens the file REPEATS times (after one warm-up that brings the file into the page
cache for both); the median wall time of each is reported, and their ratio.
"""

import statistics
import subprocess
import sys
import time

import torch


def timed(fn, repeats):
    fn()  # warm-up: file in the page cache, libraries loaded
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), times


def main():
    binary, path = sys.argv[1], sys.argv[2]
    repeats = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    ours, ours_all = timed(lambda: subprocess.run([binary, "info", path, "--json"], check=True,
                                                  stdout=subprocess.DEVNULL), repeats)
    theirs, theirs_all = timed(lambda: torch.export.load(path), repeats)
    print(f"file: {path}")
    print(f"torch {torch.__version__}, threads {torch.get_num_threads()}, repeats {repeats}")
    print(f"torchir info (whole process)   median {ours:.3f} s  runs {[round(t, 3) for t in ours_all]}")
    print(f"torch.export.load (in process) median {theirs:.3f} s  runs {[round(t, 3) for t in theirs_all]}")
    print(f"ratio: {theirs / ours:.1f}x")


if __name__ == "__main__":
    main()
