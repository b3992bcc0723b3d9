"""Layout benchmark: torchir's module-by-module layout against plain `dot` on the same program as
one flat graph with weights as nodes. Prints a Markdown table.

Usage: python layout_speed.py BUILD_DIR FILE.pt2 [FILE.pt2 ...] [--dot-timeout S]
Steps come from BUILD/bench/layout_program (see its header); the flat graph is written by
`torchir layout FILE --format dot --weights-as-nodes` and timed with `dot -Tplain`.
"""

import os
import subprocess
import sys
import tempfile
import time


def layout_steps(build, path):
    out = subprocess.run([os.path.join(build, "bench/layout_program"), path], check=True, capture_output=True,
                         text=True).stdout
    steps = {}
    for line in out.splitlines():
        name, secs, runs, boxes = line.split()
        steps[name] = (float(secs), int(runs), int(boxes))
    return steps


def plain_dot(build, path, timeout):
    with tempfile.NamedTemporaryFile(suffix=".dot") as f:
        subprocess.run([os.path.join(build, "app/torchir"), "layout", path, "--format", "dot", "--weights-as-nodes",
                        "-o", f.name], check=True)
        nodes = sum(1 for line in open(f.name) if "[label=" in line)
        t0 = time.perf_counter()
        try:
            subprocess.run(["dot", "-Tplain", f.name], check=True, capture_output=True, timeout=timeout)
            return time.perf_counter() - t0, nodes
        except subprocess.TimeoutExpired:
            return None, nodes


def main():
    args = sys.argv[1:]
    timeout = 120.0
    if "--dot-timeout" in args:
        i = args.index("--dot-timeout")
        timeout = float(args[i + 1])
        del args[i:i + 2]
    build, files = args[0], args[1:]
    print("| program | FX nodes | first view | fully expanded | expand one module (full view) | open one module (first view) | plain `dot` | ratio (dot / fully expanded) |")
    print("|---|---|---|---|---|---|---|---|")
    for path in files:
        s = layout_steps(build, path)
        dot, nodes = plain_dot(build, path, timeout)

        def cell(name):
            if name not in s:
                return "-"
            secs, runs, boxes = s[name]
            return f"{secs:.3f} s ({boxes} boxes, {runs} dot runs)"

        dot_cell = f"{dot:.2f} s" if dot is not None else f"> {timeout:.0f} s (stopped)"
        ratio = f"{dot / s['all'][0]:.0f}x" if dot is not None else f"> {timeout / s['all'][0]:.0f}x"
        print(f"| {os.path.basename(path)} | {nodes} | {cell('initial')} | {cell('all')} | {cell('expand')} | "
              f"{cell('open')} | {dot_cell} | {ratio} |", flush=True)


if __name__ == "__main__":
    main()
