"""Writes transformer-shaped programs of a chosen size for the layout benchmark (tiny widths, so the
files stay small: layout cost depends on nodes and modules, not on weights).

Usage: python make_transformer_like.py OUT_DIR [LAYERS ...]   (default: 40 190 770 layers: ~1k, ~5k, ~20k nodes)
Each layer is ~26 op nodes in 4 levels of modules (layer > attn/mlp > linear/norm).
"""

import os
import sys

import torch
from torch import nn


class Attention(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.heads = heads
        self.q, self.k, self.v, self.o = (nn.Linear(d, d) for _ in range(4))

    def forward(self, x):
        b, t, d = x.shape
        h = self.heads

        def split(y):
            return y.view(b, t, h, d // h).transpose(1, 2)

        q, k, v = split(self.q(x)), split(self.k(x)), split(self.v(x))
        att = (q @ k.transpose(-2, -1)) * (d // h) ** -0.5
        att = torch.softmax(att, dim=-1)
        y = (att @ v).transpose(1, 2).reshape(b, t, d)
        return self.o(y)


class Mlp(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.up, self.gate, self.down = nn.Linear(d, 4 * d), nn.Linear(d, 4 * d), nn.Linear(4 * d, d)

    def forward(self, x):
        return self.down(torch.nn.functional.silu(self.gate(x)) * self.up(x))


class Layer(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.norm1, self.attn, self.norm2, self.mlp = nn.LayerNorm(d), Attention(d, heads), nn.LayerNorm(d), Mlp(d)

    def forward(self, x):
        x = x + self.attn(self.norm1(x))
        return x + self.mlp(self.norm2(x))


class Model(nn.Module):
    def __init__(self, layers, d=16, heads=2, vocab=64):
        super().__init__()
        self.embed = nn.Embedding(vocab, d)
        self.layers = nn.ModuleList(Layer(d, heads) for _ in range(layers))
        self.norm, self.head = nn.LayerNorm(d), nn.Linear(d, vocab)

    def forward(self, ids):
        x = self.embed(ids)
        for layer in self.layers:
            x = layer(x)
        return self.head(self.norm(x))


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for layers in [int(a) for a in sys.argv[2:]] or [40, 190, 770]:
        torch.manual_seed(0)
        ep = torch.export.export(Model(layers).eval(), (torch.randint(0, 64, (1, 8)),), strict=False)
        nodes = sum(1 for n in ep.graph.nodes if n.op == "call_function")
        path = os.path.join(out, f"transformer_{layers}.pt2")
        torch.export.save(ep, path)
        print(f"{path}: {layers} layers, {nodes} call_function nodes", flush=True)


if __name__ == "__main__":
    main()
