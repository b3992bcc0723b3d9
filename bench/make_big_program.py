"""Writes a transformer-like program of any depth and width with torchir's own .pt2 writer, without
holding its weights in memory: torch exports two layers (make_transformer_like.Model), and
build/bench/replicate_layers repeats the second as often as asked, each copy's weights the same
bytes as layer 1's, streamed from the template's file.

Usage: python make_big_program.py BUILD OUT.pt2 LAYERS [--width D] [--heads H] [--vocab V] [--check]

  BUILD     the build folder holding bench/replicate_layers
  --width   the model width (default 16); each layer holds 16 * D^2 + 17 * D parameters
  --check   load OUT.pt2 with torch.export.load and run it against the eager model whose layers
            2.. carry layer 1's weights: the same bits, and the same number of nodes and the same
            module paths as torch's own export of that depth (for programs that fit in memory)

Prints the program's op nodes and its weights' bytes.
"""

import argparse
import os
import subprocess
import sys
import tempfile
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_transformer_like import Model  # noqa: E402


def op_nodes(ep):
    return sum(1 for n in ep.graph.nodes if n.op == "call_function")


def module_paths(ep):
    """The submodules nodes name (torchir's model keeps no frame for the root module, path '')."""
    return {path for n in ep.graph.nodes for path, _ in (n.meta.get("nn_module_stack") or {}).values() if path}


def check(out, layers, template_model, ids):
    """OUT.pt2 read by torch and run: the eager model with layer 1's weights in every later layer."""
    loaded = torch.export.load(out)
    eager = Model(layers, d=template_model.embed.embedding_dim, heads=template_model.layers[0].attn.heads,
                  vocab=template_model.embed.num_embeddings).eval()
    with torch.no_grad():
        eager.embed.load_state_dict(template_model.embed.state_dict())
        eager.norm.load_state_dict(template_model.norm.state_dict())
        eager.head.load_state_dict(template_model.head.state_dict())
        eager.layers[0].load_state_dict(template_model.layers[0].state_dict())
        for layer in eager.layers[1:]:
            layer.load_state_dict(template_model.layers[1].state_dict())
        want = eager(ids)
        got = loaded.module()(ids)
    assert torch.equal(got, want), "torch.export.load's program differs from the eager model"
    direct = torch.export.export(eager, (ids,), strict=False)
    assert op_nodes(loaded) == op_nodes(direct), f"{op_nodes(loaded)} op nodes, torch's export has {op_nodes(direct)}"
    # every copy in modules of its own (layers.k, layers.k.attn, ...), as torch's export names them
    assert module_paths(loaded) == module_paths(direct), \
        f"module paths differ from torch's export: {sorted(module_paths(loaded) ^ module_paths(direct))[:5]}"
    print(f"check: torch.export.load reads it; its run equals eager's bit for bit; {op_nodes(loaded)} op nodes "
          f"and {len(module_paths(loaded))} module paths as torch's own export of {layers} layers")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("build")
    ap.add_argument("out")
    ap.add_argument("layers", type=int)
    ap.add_argument("--width", type=int, default=16)
    ap.add_argument("--heads", type=int, default=2)
    ap.add_argument("--vocab", type=int, default=64)
    ap.add_argument("--check", action="store_true")
    a = ap.parse_args()
    if a.layers < 2:
        sys.exit("LAYERS must be at least 2")
    torch.manual_seed(0)
    model = Model(2, d=a.width, heads=a.heads, vocab=a.vocab).eval()
    ids = torch.randint(0, a.vocab, (1, 8))
    with tempfile.TemporaryDirectory(dir=os.path.dirname(os.path.abspath(a.out))) as tmp:
        template = os.path.join(tmp, "template.pt2")
        torch.export.save(torch.export.export(model, (ids,), strict=False), template)
        t0 = time.perf_counter()
        subprocess.run([os.path.join(a.build, "bench", "replicate_layers"), template, a.out, str(a.layers)], check=True)
        print(f"replicate_layers: {time.perf_counter() - t0:.1f} s", flush=True)
    layer = sum(p.numel() * p.element_size() for p in model.layers[1].parameters())
    rest = sum(p.numel() * p.element_size() for p in model.parameters()) - 2 * layer
    print(f"{a.out}: {a.layers} layers of width {a.width}, weights {(rest + a.layers * layer) / 2**30:.2f} GiB")
    if a.check:
        check(a.out, a.layers, model, ids)


if __name__ == "__main__":
    main()
