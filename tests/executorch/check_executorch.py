"""torchir on programs shipped with ExecuTorch (the zoo's executorch/ family, written by ExecuTorch's
own export, lowering and runtime), checked against what ExecuTorch itself says of the same files:

- `torchir info X.pte --json`: the plan's instructions, operators and delegates are those that
  ExecuTorch's own deserializer reads from the file;
- `torchir compare X.etrecord --etdump X.etdp --debug-buffer X.debug.bin --json`:
  - each row's instruction, debug handles and Edge nodes are the ETRecord's debug handle map's;
  - each instruction's p50 latency is the Inspector's for the same event;
  - one row per delegate call of the int8 per-op model, each paired with a node;
  - no divergence on the float and int8 models; on a faulty twin, the first divergence is the
    changed layer, and its cause is its kernel, not upstream; the exit code says which;
- crafted .pte and ETDump files (truncated, offsets past the end, a vtable at itself, a huge
  vector) each get one line naming the file, exit 2.

Usage: check_executorch.py --torchir BIN --fixtures ZOO --out DIR
"""
import argparse
import json
import subprocess
import sys
import zipfile
from pathlib import Path

failures = []


def check(ok, what):
    print(("ok    " if ok else "FAIL  ") + what)
    if not ok:
        failures.append(what)


def torchir(binary, *args):
    return subprocess.run([binary, *map(str, args)], capture_output=True, text=True, timeout=600)


def edge_handles(etrecord):
    """Edge node name -> its debug handle, from the ETRecord's own JSON."""
    with zipfile.ZipFile(etrecord) as z:
        program = json.loads(z.read("edge_dialect_exported_program/forward"))
        handle_map = json.loads(z.read("debug_handle_map"))["forward"]
    nodes = {}
    for n in program["graph_module"]["graph"]["nodes"]:
        handle = n.get("metadata", {}).get("debug_handle")
        for out in n["outputs"]:
            name = out.get("as_tensor", {}).get("name")
            if name and handle is not None:
                nodes[name] = int(handle)
    # each instruction's handles, each once, sorted (the map may repeat one)
    return nodes, {int(k): sorted(set(v if isinstance(v, list) else [v])) for k, v in handle_map.items()}


def check_info(binary, pte, name):
    from executorch.exir._serialize._program import deserialize_pte_binary

    result = torchir(binary, "info", pte, "--json")
    check(result.returncode == 0, f"{name}: torchir info exits 0 ({result.stderr.strip()[:200]})")
    if result.returncode:
        return
    ours = json.loads(result.stdout)["methods"][0]
    program = deserialize_pte_binary(pte.read_bytes())
    program = getattr(program, "program", program)
    plan = program.execution_plan[0]
    theirs = []
    for instruction in plan.chains[0].instructions:
        args = instruction.instr_args
        kind = type(args).__name__
        if kind == "KernelCall":
            op = plan.operators[args.op_index]
            theirs.append(("kernel", op.name + ("." + op.overload if op.overload else "")))
        elif kind == "DelegateCall":
            theirs.append(("delegate", plan.delegates[args.delegate_index].id))
        else:
            theirs.append((kind, None))
    mine = [(i["kind"], i["target"]) for i in ours["chains"][0]["instructions"]]
    mine = [(k, t) if k in ("kernel", "delegate") else ({"move": "MoveCall", "jump": "JumpFalseCall",
                                                         "free": "FreeCall"}.get(k, k), None) for k, t in mine]
    check(mine == theirs, f"{name}: the plan's {len(theirs)} instructions are ExecuTorch's own reading of the .pte")
    check(ours["values"] == len(plan.values), f"{name}: {len(plan.values)} values")
    check(ours["planned_buffers"] == list(plan.non_const_buffer_sizes), f"{name}: planned memory as ExecuTorch plans it")


def check_compare(binary, folder, entry, out):
    name = entry["name"]
    base = folder / name
    etrecord, etdump, buffer = (base / f"{name}.etrecord", base / f"{name}.etdp", base / f"{name}.debug.bin")
    result = torchir(binary, "compare", etrecord, "--etdump", etdump, "--debug-buffer", buffer, "--json",
                     "--csv", out / f"{name}.csv")
    check(result.returncode in (0, 1), f"{name}: compare runs ({result.stderr.strip()[:300]})")
    if result.returncode not in (0, 1):
        return
    report = json.loads(result.stdout)
    rows = report["rows"]
    inspector = json.loads((base / f"{name}.inspector.json").read_text())
    nodes, handle_map = edge_handles(etrecord)

    # pairing: the debug handle map's handles, and Edge nodes of those handles
    paired = all(r["debug_handles"] == handle_map.get(r["instruction"]) for r in rows)
    check(paired and rows, f"{name}: {len(rows)} rows, each with its instruction's handles from the debug handle map")
    within = all(r["node"] is not None and nodes.get(r["node"]) in r["debug_handles"] for r in rows)
    check(within, f"{name}: each row's node carries one of its instruction's debug handles")

    # latencies: the Inspector's p50 of the instruction's own event
    if inspector["events"] is None:
        # the Inspector cannot read some ETDumps at all; torchir's own reading is still checked
        print(f"note  {name}: the Inspector cannot read this ETDump ({inspector['error'][:120]})")
        check(all(r["p50_ms"] is not None and r["p50_ms"] >= 0 for r in rows), f"{name}: every row has a p50 latency")
    else:
        theirs = {e["instruction_id"]: e["p50_ms"] for e in inspector["events"]
                  if e["block"] == "Execute" and e["name"] in ("DELEGATE_CALL", "OPERATOR_CALL")}
        same = all(abs(r["p50_ms"] - theirs[r["instruction"]]) <= 1e-9 + 1e-9 * theirs[r["instruction"]] for r in rows)
        check(same and len(theirs) == len({r["instruction"] for r in rows}),
              f"{name}: p50 latencies are the Inspector's ({len(theirs)} instructions)")

    first = report["first_divergence"]
    if entry["faulty"]:
        check(first is not None and first["module"] == entry["faulty"],
              f"{name}: first divergence in {entry['faulty']} (got {first and first['module']})")
        check(first is not None and first.get("cause") == "kernel", f"{name}: its cause is the kernel, not upstream")
        later = [r for r in rows if r.get("diverges") and r is not first and r["instruction"] > first["instruction"]]
        check(all(r.get("cause") == "upstream" for r in later), f"{name}: every later divergence is inherited")
        check(result.returncode == 1, f"{name}: exit 1 for a divergence")
    else:
        check(first is None, f"{name}: no divergence (got {first and first['node']})")
        check(result.returncode == 0, f"{name}: exit 0")
    if entry["quantized"]:
        delegate_calls = [e for e in inspector["events"] if e["block"] == "Execute" and e["name"] == "DELEGATE_CALL"]
        check(len(rows) == len(delegate_calls), f"{name}: one row per quantized op ({len(rows)} rows, "
              f"{len(delegate_calls)} delegate calls; the Inspector's numeric gap has {len(inspector['numeric_gap'])})")
        check(sum(r["compared_as"] == "codes" for r in rows) >= len(rows) - 1, f"{name}: int8 outputs compared as codes")
    check((out / f"{name}.csv").read_text().count("\n") == len(rows) + 1, f"{name}: the CSV has a line per row")


def check_pte_opens_its_etrecord(binary, folder):
    """A .pte names no graph: every verb that reads a program reads the ETRecord beside it."""
    base = folder / "mlp_per_op" / "mlp_per_op"
    via_pte = torchir(binary, "table", f"{base}.pte", "--json")
    direct = torchir(binary, "table", f"{base}.etrecord", "--json")
    check(via_pte.returncode == 0 and via_pte.stdout == direct.stdout and "linear" in direct.stdout,
          "torchir table X.pte shows the Edge program of X.etrecord beside it")


def check_crafted(binary, folder, out):
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import craft

    source = folder / "mlp_per_op" / "mlp_per_op"
    crafted = out / "crafted"
    craft.main(Path(f"{source}.pte"), Path(f"{source}.etdp"), crafted)
    for f in sorted(crafted.glob("*.pte")):
        result = torchir(binary, "info", f)
        lines = result.stderr.strip().splitlines()
        check(result.returncode == 2 and len(lines) == 1 and str(f) in lines[0],
              f"crafted {f.name}: one line naming the file, exit 2 ({lines[:1]})")
    for f in sorted(crafted.glob("*.etdp")):
        result = torchir(binary, "compare", f"{source}.etrecord", "--etdump", f, "--debug-buffer", f"{source}.debug.bin")
        lines = result.stderr.strip().splitlines()
        check(result.returncode == 2 and len(lines) == 1 and str(f) in lines[0],
              f"crafted {f.name}: one line naming the file, exit 2 ({lines[:1]})")
    # a debug buffer shorter than the tensors the ETDump points at: rows say so, nothing is read past it
    short = crafted / "short.debug.bin"
    short.write_bytes(Path(f"{source}.debug.bin").read_bytes()[:256])
    result = torchir(binary, "compare", f"{source}.etrecord", "--etdump", f"{source}.etdp", "--debug-buffer", short, "--json")
    rows = json.loads(result.stdout)["rows"] if result.returncode in (0, 1) else []
    check(any("past the debug buffer" in r.get("problem", "") for r in rows),
          "a debug buffer cut short: the rows whose values lie past it say so")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--torchir", required=True)
    parser.add_argument("--fixtures", required=True, type=Path)
    parser.add_argument("--out", required=True, type=Path)
    a = parser.parse_args()
    folder = a.fixtures / "executorch"
    a.out.mkdir(parents=True, exist_ok=True)
    manifest = json.loads((folder / "manifest.json").read_text())
    for entry in manifest:
        check_info(a.torchir, folder / entry["name"] / f"{entry['name']}.pte", entry["name"])
        check_compare(a.torchir, folder, entry, a.out)
    check_pte_opens_its_etrecord(a.torchir, folder)
    check_crafted(a.torchir, folder, a.out)
    print(f"{len(failures)} failed" if failures else "all passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
