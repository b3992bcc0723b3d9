"""The studio's responsiveness in two builds, launch for launch in one run (bench/studio_timing
under one Xvfb): a change to the session's classes must not make the studio stall or step slower.

Usage: python studio_before_after.py BEFORE_BUILD AFTER_BUILD BIG.pt2 STEP.pt2 [STEPS] [ROUNDS]
Each build has a program cache folder of its own, filled by a launch that is not counted: the
counted launches are warm ones. Each round launches both builds, in alternating order. Reported
per measurement: each build's median and worst over the rounds (stalls are judged by their worst).
"""

import os
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from studio_speed import one_launch  # noqa: E402


def main():
    before, after, big, small = sys.argv[1:5]
    steps = int(sys.argv[5]) if len(sys.argv) > 5 else 20
    rounds = int(sys.argv[6]) if len(sys.argv) > 6 else 5
    builds = {"before": before, "after": after}
    display = ":97"
    xvfb = subprocess.Popen(["Xvfb", display, "-screen", "0", "1600x1000x24", "-nolisten", "tcp"],
                            stderr=subprocess.DEVNULL)
    time.sleep(1.5)
    runs = {name: [] for name in builds}
    caches = {name: tempfile.TemporaryDirectory() for name in builds}
    try:
        for name in builds:  # writes the build's entry of BIG
            one_launch(builds[name], big, small, steps, display, caches[name].name)
        for r in range(rounds):
            for name in (list(builds) if r % 2 == 0 else list(reversed(builds))):
                runs[name].append(one_launch(builds[name], big, small, steps, display, caches[name].name))
    finally:
        xvfb.terminate()
        for cache in caches.values():
            cache.cleanup()
    for key in runs["before"][0]:
        line = f"{key:22s}"
        for name in builds:
            vals = [run[key] for run in runs[name] if key in run]
            line += f"  {name}: median {statistics.median(vals):8.1f} worst {max(vals):8.1f} ms"
        print(line)


if __name__ == "__main__":
    main()
