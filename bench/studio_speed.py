"""The studio's responsiveness in its real window under Xvfb (bench/studio_timing): time from
launch to the first view of a large program, the GUI thread's longest stall while it loads and lays
out, the time for a Step to show in every panel beyond the op's own time, and the longest stall
during a run.

Usage: python studio_speed.py BUILD_DIR BIG.pt2 STEP.pt2 [STEPS] [REPEATS]
Launch time is measured from before the process is spawned to the "first_view" line, so it
includes process start-up and library loading. Each number is the median over REPEATS launches.
"""

import os
import statistics
import subprocess
import sys
import time


def one_launch(build, big, small, steps, display):
    cmd = [f"{build}/bench/studio_timing", big, small, str(steps)]
    env = dict(os.environ, QT_QPA_PLATFORM="xcb", DISPLAY=display)
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True, env=env)
    values = {}
    for line in proc.stdout:
        key, value = line.split()
        values[key] = float(value)
        if key == "first_view":
            values["launch_to_first_view"] = (time.perf_counter() - t0) * 1000
    if proc.wait() != 0:
        raise SystemExit(f"studio_timing failed ({proc.returncode})")
    return values


def main():
    build, big, small = sys.argv[1:4]
    steps = int(sys.argv[4]) if len(sys.argv) > 4 else 20
    repeats = int(sys.argv[5]) if len(sys.argv) > 5 else 3
    # One X server for all launches, started before timing: its start-up is not the studio's.
    display = ":97"
    xvfb = subprocess.Popen(["Xvfb", display, "-screen", "0", "1600x1000x24", "-nolisten", "tcp"],
                            stderr=subprocess.DEVNULL)
    time.sleep(1.5)
    try:
        runs = [one_launch(build, big, small, steps, display) for _ in range(repeats)]
    finally:
        xvfb.terminate()
    for key in runs[0]:
        vals = [r[key] for r in runs]
        print(f"{key:22s} median {statistics.median(vals):8.1f} ms   runs {', '.join(f'{v:.1f}' for v in vals)}")


if __name__ == "__main__":
    main()
