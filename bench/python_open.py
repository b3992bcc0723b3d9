"""What opening a program from Python costs: `torchir_studio.open(ep)` until the window shows the
graph, against `torch.export.save` alone of the same program, measured in one run.

Usage: VENV/bin/python python_open.py [LAYERS] [REPEATS]
VENV holds the pinned torch and the installed wheel (packaging/build-wheel.sh); DISPLAY names an X
server (Xvfb). The program is a transformer encoder of LAYERS layers (default 12) exported by
torch.export. open() runs with `screenshot=`, so it returns once the studio has shown the program
and grabbed its window, then the studio exits: the time covers saving the program, starting the
studio, loading and the first view of the graph. Medians over REPEATS (default 5) after a warm-up.
"""

import os
import statistics
import sys
import tempfile
import time

import torch
import torchir_studio


def program(layers):
    layer = torch.nn.TransformerEncoderLayer(d_model=256, nhead=8, dim_feedforward=1024, batch_first=True)
    model = torch.nn.TransformerEncoder(layer, num_layers=layers, enable_nested_tensor=False).eval()
    return torch.export.export(model, (torch.randn(2, 64, 256),))


def timed(fn, repeats):
    fn()  # warm-up: libraries and files in the page cache
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1000)
    return times


def main():
    layers = int(sys.argv[1]) if len(sys.argv) > 1 else 12
    repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    ep = program(layers)
    nodes = len(ep.graph.nodes)
    with tempfile.TemporaryDirectory() as tmp:
        save = timed(lambda: torch.export.save(ep, os.path.join(tmp, "p.pt2")), repeats)
        shot = os.path.join(tmp, "window.png")
        studio = timed(lambda: torchir_studio.open(ep, screenshot=shot, block=True), repeats)
    s, o = statistics.median(save), statistics.median(studio)
    print(f"program: TransformerEncoder, {layers} layers, {nodes} FX nodes; torch {torch.__version__}, "
          f"torchir_studio {torchir_studio.__version__}")
    print(f"torch.export.save           median {s:8.1f} ms  (min {min(save):.1f}, max {max(save):.1f})")
    print(f"torchir_studio.open, shown  median {o:8.1f} ms  (min {min(studio):.1f}, max {max(studio):.1f})")
    print(f"open beyond save            median {o - s:8.1f} ms  ({o / s:.1f}x save)")


if __name__ == "__main__":
    main()
