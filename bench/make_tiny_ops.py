"""Writes a program of ~2,000 tiny ops (elementwise on an 8-element tensor): the engine's
per-node overhead dominates its run time. Writes OUT.pt2 and OUT.ir.json (pytorch-ir).

Usage: python make_tiny_ops.py OUT_STEM
"""

import json
import sys

import torch
from torch_ir.converter import convert_exported_program


class TinyOps(torch.nn.Module):
    def forward(self, x):
        for i in range(500):
            x = torch.sin(x * 1.0001 + 0.001) - x * 0.5
        return x


def main():
    stem = sys.argv[1]
    ep = torch.export.export(TinyOps(), (torch.randn(8),))
    torch.export.save(ep, stem + ".pt2")
    ir = convert_exported_program(ep, model_name="TinyOps")
    with open(stem + ".ir.json", "w") as f:
        json.dump(ir.to_dict(), f, indent=2)
    print(f"nodes: {len(ir.nodes)}")


if __name__ == "__main__":
    main()
