"""Time to open one .pt2: `torchir info` against `torch.export.load`, measured in one run.

Usage: python open_program.py BUILD_DIR FILE.pt2 [REPEATS] [TORCH_REPEATS]
Each way of opening runs REPEATS times after one warm-up (which brings the file into the page
cache for all of them); medians and ratios are reported. torch.export.load runs TORCH_REPEATS
times (default REPEATS), without a warm-up when fewer (a 100k-op program takes it minutes):
- `torchir info FILE --json` as a whole process: start-up, libtorch's static initialisation included;
- `bench/open_pt2` in process: what opening a file costs the running app;
- `json.load` of the archive's `models/model.json` alone (extracted to a file first): what parsing
  the program's JSON costs Python, before anything is built from it;
- `torch.export.load(FILE)` in this Python process (`import torch` not counted).
"""

import statistics
import json
import os
import subprocess
import sys
import tempfile
import time
import zipfile

import torch


def timed(fn, repeats, warm_up=True):
    if warm_up:
        fn()  # warm-up: file in the page cache, libraries loaded
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), times


def main():
    build, path = sys.argv[1], sys.argv[2]
    repeats = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    torch_repeats = int(sys.argv[4]) if len(sys.argv) > 4 else repeats
    cli, ours_all = timed(lambda: subprocess.run([f"{build}/app/torchir", "info", path, "--json"], check=True,
                                                 stdout=subprocess.DEVNULL), repeats)
    lines = subprocess.run([f"{build}/bench/open_pt2", path, str(repeats + 1)], check=True,
                           capture_output=True, text=True).stdout.split("\n")
    inproc_all = [float(line.split()[0]) for line in lines if line][1:]
    inproc = statistics.median(inproc_all)
    with zipfile.ZipFile(path) as z, tempfile.TemporaryDirectory() as tmp:
        record = next(n for n in z.namelist() if n.endswith("models/model.json") or n == "serialized_exported_program.json")
        model_json = z.extract(record, tmp)
        size = os.path.getsize(model_json)

        def load_json():
            with open(model_json) as f:
                json.load(f)

        parse, parse_all = timed(load_json, repeats)
    theirs, theirs_all = timed(lambda: torch.export.load(path), torch_repeats, warm_up=torch_repeats >= repeats)
    print(f"file: {path}")
    print(f"torch {torch.__version__}, threads {torch.get_num_threads()}, repeats {repeats} (torch.export.load {torch_repeats})")
    print(f"torchir info (whole process)   median {cli:.3f} s  runs {[round(t, 3) for t in ours_all]}")
    print(f"open_pt2 (in process)          median {inproc:.3f} s  runs {[round(t, 3) for t in inproc_all]}")
    print(f"json.load of model.json ({size / 1e6:.1f} MB) median {parse:.3f} s  runs {[round(t, 3) for t in parse_all]}")
    print(f"torch.export.load (in process) median {theirs:.3f} s  runs {[round(t, 3) for t in theirs_all]}")
    print(f"ratio, torchir info: {theirs / cli:.1f}x; in process: {theirs / inproc:.1f}x")
    print(f"torchir info / json.load: {cli / parse:.2f}; in process: {inproc / parse:.2f}")


if __name__ == "__main__":
    main()
