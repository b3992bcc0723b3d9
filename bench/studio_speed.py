"""The studio's responsiveness in its real window under Xvfb (bench/studio_timing): time from
launch to the first view of a large program, the GUI thread's longest stall while it loads and lays
out, the time for a Step to show in every panel beyond the op's own time, and the longest stall
during a run.

Usage: python studio_speed.py BUILD_DIR BIG.pt2 STEP.pt2 [STEPS] [REPEATS]
Launch time is measured from before the process is spawned to the "first_view" line, so it
includes process start-up and library loading. Launches alternate cold and warm: a cold one has an
empty cache folder (XDG_CACHE_HOME), so BIG's graph is read from its JSON and its program cache
entry written; the warm one after it opens BIG from that entry. Each number is printed as the
median, best and worst over REPEATS launches of each kind.
"""

import os
import statistics
import subprocess
import sys
import tempfile
import time


def one_launch(build, big, small, steps, display, cache):
    cmd = [f"{build}/bench/studio_timing", big, small, str(steps)]
    env = dict(os.environ, QT_QPA_PLATFORM="xcb", DISPLAY=display, XDG_CACHE_HOME=cache)
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
    runs = {"cold": [], "warm": []}
    try:
        for _ in range(repeats):
            with tempfile.TemporaryDirectory() as cache:
                for kind in ("cold", "warm"):
                    runs[kind].append(one_launch(build, big, small, steps, display, cache))
    finally:
        xvfb.terminate()
    for kind, kind_runs in runs.items():
        print(f"{kind} launches ({'no cache entry' if kind == 'cold' else 'the cold launch left its entry'}):")
        for key in kind_runs[0]:
            vals = [r[key] for r in kind_runs]
            print(f"  {key:22s} median {statistics.median(vals):8.1f}  best {min(vals):8.1f}  worst {max(vals):8.1f} ms"
                  f"   runs {', '.join(f'{v:.1f}' for v in vals)}")


if __name__ == "__main__":
    main()
