"""Repro files against PyTorch: for every fixture that runs, `torchir extract` cuts out some of its
nodes and modules; each repro is loaded with torch.export.load, run on its example inputs at one
thread, and its outputs compared bit for bit with the values torchir computed in the run
(OUT.outputs.safetensors). The node repros' outputs are also compared with the same node's value
in an eager run of the whole program (torch.fx.Interpreter over torch.export.load's module), so a
repro that agrees with a wrong engine value fails too. One repro's own OUT.py is run as a user
would run it.

usage: check_repros.py --torchir BIN --fixtures DIR --out DIR [--only NAME,NAME...] [--no-child-leak-check]
"""
import argparse
import concurrent.futures
import json
import operator
import os
import pathlib
import subprocess
import sys

import torch
import torch.ao.quantization.fx._decomposed  # noqa: F401  (the quantized fixtures' ops)
import torchao  # noqa: F401  (their torchao ops and tensor subclasses)
from safetensors import safe_open
from safetensors.torch import load_file

torch.set_num_threads(1)


def programs(fixtures):
    """(name, .pt2, inputs file or None) of every fixture that runs to its end in torchir."""
    manifest = json.loads((fixtures / "manifest.json").read_text())
    for f in manifest["fixtures"]:
        if f["meta"] or f["eager_fails"] or f["custom_op"]:
            continue  # no data, a run that fails by design, an op library Python would need
        d = fixtures / f["name"]
        inputs = d / f"{f['name']}.inputs.safetensors"
        yield f["name"], d / f"{f['name']}.pt2", inputs if inputs.exists() else None
    quant = json.loads((fixtures / "quant" / "manifest.json").read_text())
    for f in quant["fixtures"]:
        d = fixtures / "quant" / f["name"]
        yield f"quant/{f['name']}", d / f"{f['name']}.pt2", d / f"{f['name']}.inputs.safetensors"
    old = json.loads((fixtures / "old_torch" / "manifest.json").read_text())
    for f in old["files"]:
        d = fixtures / "old_torch" / f["dir"]
        inputs = d / f"{f['name']}.inputs.safetensors"
        yield f"{f['dir']}/{f['name']}", d / f"{f['name']}.pt2", inputs if inputs.exists() else None


def is_aten_op(n):
    """An op a repro can be cut at: ATen's, and the quantization ops torchir runs natively."""
    return n.op == "call_function" and isinstance(n.target, torch._ops.OpOverload) and \
        n.target.namespace in ("aten", "quantized_decomposed", "torchao") and n.target is not torch.ops.aten.sym_size.int


def is_higher_order(n):
    return n.op == "call_function" and isinstance(n.target, torch._ops.HigherOrderOperator)


def parts(ep):
    """Some nodes (first, middle and last op, every multi-output op up to three, every higher-order
    op) and modules (the outermost with the most ops, the innermost of the middle op) of the program."""
    ops = [n for n in ep.graph.nodes if is_aten_op(n)]
    multi = [n for n in ops if any(u.target is operator.getitem for u in n.users)][:3]
    higher = [n for n in ep.graph.nodes if is_higher_order(n)]  # cond, while_loop: their graphs go along
    nodes = []
    for n in [ops[0], ops[len(ops) // 2], ops[-1]] + multi + higher:
        if n.name not in nodes:
            nodes.append(n.name)
    counts = {}
    for n in ops:
        stack = list((n.meta.get("nn_module_stack") or {}).values())
        paths = [p for p, _ in stack if p]
        if paths:
            counts[paths[0]] = counts.get(paths[0], 0) + 1
    modules = []
    if counts:
        modules.append(max(counts, key=counts.get))
    middle = [p for p, _ in (ops[len(ops) // 2].meta.get("nn_module_stack") or {}).values() if p]
    if middle and middle[-1] not in modules:
        modules.append(middle[-1])
    return [("--node", n) for n in nodes] + [("--module", m) for m in modules]


def eager_values(ep, inputs):
    """Every node's value in an eager run of the whole program, by node name."""
    module = ep.module()
    values = {}

    class Recorder(torch.fx.Interpreter):
        def run_node(self, n):
            out = super().run_node(n)
            values[n.name] = out
            return out

    with torch.no_grad():
        Recorder(module).run(*inputs)
    return values


def same_bits(a, b):
    return a.dtype == b.dtype and a.shape == b.shape and torch.equal(
        a.contiguous().reshape(-1).view(torch.uint8), b.contiguous().reshape(-1).view(torch.uint8))


def outputs_file(path):
    with safe_open(str(path), "pt") as f:
        out = []
        while f"output_{len(out)}" in f.keys():
            out.append(f.get_tensor(f"output_{len(out)}"))
        return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--torchir", required=True)
    ap.add_argument("--fixtures", required=True, type=pathlib.Path)
    ap.add_argument("--out", required=True, type=pathlib.Path)
    ap.add_argument("--only", help="these programs alone (the sanitizer build's shorter pass)")
    # LeakSanitizer's exit-time tracer crashes now and then in a sanitized process whose work
    # succeeded ("Tracer caught signal 11"), more often on a loaded machine; the extract
    # processes then run with ASan and UBSan but without the leak check, which ReproTest makes
    # on the same code in process.
    ap.add_argument("--no-child-leak-check", action="store_true")
    a = ap.parse_args()
    child_env = dict(os.environ)
    if a.no_child_leak_check:
        options = [o for o in child_env.get("ASAN_OPTIONS", "").split(":") if o and not o.startswith("detect_leaks=")]
        child_env["ASAN_OPTIONS"] = ":".join(options + ["detect_leaks=0"])
    only = set(a.only.split(",")) if a.only else None
    a.out.mkdir(parents=True, exist_ok=True)

    jobs = []  # (program name, kind, part, pt2, inputs, out)
    for name, pt2, inputs in programs(a.fixtures):
        if only and name not in only:
            continue
        for kind, part in parts(torch.export.load(str(pt2))):
            out = a.out / f"{name.replace('/', '_')}.{kind[2:]}.{part}.pt2"
            jobs.append((name, kind, part, pt2, inputs, out))

    def extract(job):
        name, kind, part, pt2, inputs, out = job
        cmd = [a.torchir, "extract", str(pt2), kind, part, "-o", str(out), "--threads", "1"]
        if inputs:
            cmd += ["--inputs", str(inputs)]
        return subprocess.run(cmd, capture_output=True, text=True, env=child_env)

    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        results = list(pool.map(extract, jobs))

    failures, checked, eager = [], 0, {}
    for (name, kind, part, pt2, inputs, out), r in zip(jobs, results):
        what = f"{name} {kind} {part}"
        if r.returncode != 0:
            failures.append(f"{what}: torchir extract exited {r.returncode}: {r.stderr.strip()}")
            continue
        try:
            ep = torch.export.load(str(out))
            args, kwargs = ep.example_inputs
            with torch.no_grad():
                got = ep.module()(*args, **kwargs)
        except Exception as e:  # noqa: BLE001 - any failure of torch's is the finding
            failures.append(f"{what}: torch.export.load or the run failed: {type(e).__name__}: {str(e).splitlines()[0]}")
            continue
        got = list(got) if isinstance(got, (tuple, list)) else [got]
        want = outputs_file(out.with_suffix(".outputs.safetensors"))
        if len(got) != len(want):
            failures.append(f"{what}: {len(got)} outputs, torchir gave {len(want)}")
            continue
        bad = [i for i, (g, w) in enumerate(zip(got, want)) if not same_bits(g, w)]
        if bad:
            failures.append(f"{what}: output(s) {bad} differ from torchir's")
            continue
        if kind == "--node":
            if name not in eager:
                program = torch.export.load(str(pt2))
                given = load_file(str(inputs)) if inputs else None
                # cloned: load_file's tensors point into its buffer at any alignment, and a kernel's
                # vector path (so its bits) can depend on it; torchir's inputs are aligned copies
                xs = [given[f"input_{i}"].clone() for i in range(len(given))] if given else list(program.example_inputs[0])
                eager[name] = eager_values(program, xs)
            value = eager[name].get(part)
            value = list(value) if isinstance(value, (tuple, list)) else [value]
            value = [v for v in value if isinstance(v, torch.Tensor)]
            if len(value) != len(want) or not all(same_bits(v, w) for v, w in zip(value, want)):
                failures.append(f"{what}: torchir's value differs from the node's in an eager run")
                continue
        checked += 1
        print(f"ok  {what}: {len(got)} output(s) equal bit for bit")

    # the script a user runs
    first = next((out for (name, kind, part, pt2, inputs, out), r in zip(jobs, results) if r.returncode == 0), None)
    if first is not None:
        r = subprocess.run([sys.executable, str(first.with_suffix(".py"))], capture_output=True, text=True)
        if r.returncode != 0 or "equal to torchir's bit for bit" not in r.stdout:
            failures.append(f"{first.with_suffix('.py')} exited {r.returncode}: {r.stdout.strip()} {r.stderr.strip()[-400:]}")
        else:
            print(f"ok  {first.with_suffix('.py').name}: {r.stdout.strip()}")

    # parts that cannot be repros: one line each, exit 2, nothing written
    f = a.fixtures
    refusals = [
        ([f / "mlp/mlp.pt2", "--node", "no_such_node"], "no node 'no_such_node'"),
        ([f / "mlp/mlp.pt2", "--module", "no.such.module"], "no module 'no.such.module'"),
        ([f / "mlp/mlp.pt2", "--node", "x"], "does no op"),
        ([f / "mlp/mlp.ir.json", "--node", "relu"], "cut from .pt2 programs"),
    ]
    for words, expected in refusals:
        out = a.out / "refused.pt2"
        out.unlink(missing_ok=True)
        r = subprocess.run([a.torchir, "extract", *map(str, words), "-o", str(out)], capture_output=True, text=True,
                           env=child_env)
        lines = r.stderr.strip().splitlines()
        if r.returncode != 2 or len(lines) != 1 or expected not in lines[0] or out.exists():
            failures.append(f"extract {words[1:]}: exit {r.returncode}, {r.stderr.strip()!r}; expected one line with {expected!r}")
        else:
            print(f"ok  refused {' '.join(map(str, words[1:]))}: {lines[0]}")

    print(f"{checked} of {len(jobs)} repros load in torch.export.load and run to torchir's values")
    for f in failures:
        print("FAIL", f)
    return 1 if failures or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
