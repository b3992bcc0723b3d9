"""Writes the programs that time the higher-order ops' loops against eager: a scan of STEPS steps
and a map over STEPS rows, each of a small body (the loop's own cost is what shows).

Usage: python make_hop_programs.py OUTDIR [STEPS]   (default 10000)
Writes OUTDIR/scan_STEPS.pt2 and OUTDIR/map_STEPS.pt2, their example inputs inside; time them with
engine_speed.py BUILD OUTDIR/scan_STEPS.pt2 - TURNS 1.
"""

import os
import sys

import torch
import torch.nn as nn
from torch._higher_order_ops.map import map as map_rows
from torch._higher_order_ops.scan import scan


class Scan(nn.Module):
    def forward(self, init, xs):
        return scan(lambda carry, x: (carry * 0.5 + x, (carry + x).relu()), init, xs)


class Map(nn.Module):
    def forward(self, xs, w):
        return map_rows(lambda row, w: (row * w).relu() + 1, xs, w)


def main(out, steps):
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(0)
    for name, model, inputs in (("scan", Scan(), (torch.randn(16), torch.randn(steps, 16))),
                                ("map", Map(), (torch.randn(steps, 16), torch.randn(16)))):
        ep = torch.export.export(model, inputs)
        torch.export.save(ep, os.path.join(out, f"{name}_{steps}.pt2"))


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 10000)
