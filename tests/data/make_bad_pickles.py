"""Writes the small torch.save files that TorchSaveReaderTest reads (committed, so tests need no Python).

Usage: python make_bad_pickles.py [OUTDIR]   (default: this script's folder)

Hostile files (must be refused, and nothing in them may run):
  evil_system.pt      an object whose __reduce__ is os.system (pickle protocol 2, GLOBAL)
  evil_eval_p4.pt     builtins.eval through STACK_GLOBAL (pickle protocol 4)
  recursive.pt        a list that contains itself
  deep.pt             lists nested 100 deep
  bomb.pt             a tuple of two references to a tuple of two ..., 40 levels: 2^40 leaves
Good files, with the expected tensors in kinds.safetensors and nested.safetensors:
  kinds.pt / kinds_p4.pt   dtypes, Parameters (with and without state), views, a shared storage,
                           a scalar and an empty tensor; pickle protocol 2 and 4
  nested.pt                a checkpoint-like dict: {"model": {...}, "step": 3, "names": [...]}
"""

import os
import sys

import torch
import torch.nn as nn
from safetensors.torch import save_file

out = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
torch.manual_seed(0)


class Evil:
    def __reduce__(self):
        return (os.system, ("echo pwned",))


class EvalEvil:
    def __reduce__(self):
        return (eval, ("1 + 1",))


def save(obj, name, **kw):
    torch.save(obj, os.path.join(out, name), **kw)


save({"x": Evil()}, "evil_system.pt")
save({"x": EvalEvil()}, "evil_eval_p4.pt", pickle_protocol=4)
loop = []
loop.append(loop)
save(loop, "recursive.pt")
deep = []
for _ in range(100):
    deep = [deep]
save(deep, "deep.pt")
bomb = ("x",)
for _ in range(40):
    bomb = (bomb, bomb)
save(bomb, "bomb.pt")

base = torch.arange(24, dtype=torch.float32).reshape(4, 6)
with_state = nn.Parameter(torch.randn(3))
with_state.note = 7  # makes torch.save use _rebuild_parameter_with_state
kinds = {
    "bf16": torch.randn(3).bfloat16(),
    "f16": torch.randn(2, 2).half(),
    "f64": torch.randn(2, dtype=torch.float64),
    "i64": torch.arange(5),
    "i32": torch.arange(3, dtype=torch.int32),
    "u8": torch.arange(4, dtype=torch.uint8),
    "bool": torch.tensor([True, False, True]),
    "c64": torch.randn(2, dtype=torch.complex64),
    "f8": torch.randn(4).to(torch.float8_e4m3fn),  # untyped storage + _rebuild_tensor_v3
    "u16": torch.arange(3, dtype=torch.int32).to(torch.uint16),
    "base": base,
    "view_t": base.t(),  # shares base's storage, transposed
    "view_off": base[1:3, 2:5],  # shares base's storage, offset
    "param": nn.Parameter(torch.randn(2, 3)),
    "param_state": with_state,
    "scalar": torch.tensor(3.5),
    "empty": torch.zeros(0, 3),
}
expected = {k: v.detach().contiguous().clone() for k, v in kinds.items()}
save(kinds, "kinds.pt")
save(kinds, "kinds_p4.pt", pickle_protocol=4)
save_file(expected, os.path.join(out, "kinds.safetensors"))

nested = {"model": {"fc.weight": torch.randn(2, 2), "layers": [torch.ones(2), torch.zeros(1)]}, "step": 3, "names": ["a"]}
save(nested, "nested.pt")
save_file(
    {"model.fc.weight": nested["model"]["fc.weight"], "model.layers.0": torch.ones(2), "model.layers.1": torch.zeros(1)},
    os.path.join(out, "nested.safetensors"),
)
