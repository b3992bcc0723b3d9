"""Writes programs whose strings are hostile, for tests/writers/check_writers.py: the zoo's mlp
fixture (a real torch.export.save archive) with its models/model.json rewritten so that node names,
value names, nn_module_stack module paths and class names, stack traces and (in the second
program) a custom op's target and string argument hold quotes, triple quotes, backslashes,
newlines, markup (`<`, `>`, `&`, `]]>`, `--`, `</script>`), CSV separators and formula starters
(`=`, `+`, `-`, `@`), and Python code that would run if a writer pasted it into a script.

    python make_hostile_program.py FIXTURES_DIR OUT_DIR

writes OUT_DIR/hostile.json (what was planted where, for the test to look for) and
  PROGRAM       the mlp, every name renamed consistently: it runs (`torchir run`) and
                torch.export.load loads it. Its file name holds a byte that is not UTF-8 (0xff),
                as a stranger's file name can: JSON cannot carry such bytes, so the file's name is
                the way in for them (our reader refuses lone surrogate escapes like \\udcff, as
                simdjson does).
  CUSTOM        the same plus one node of a custom op (its namespace, name and a string argument
                hostile) that nothing can run: for the writers that do not run the program.
Both are written from the fixture deterministically (same bytes every time).

What cannot be planted, because the format itself has no way to carry it:
  - a module path with `,` or `;` (nn_module_stack is "key,path,class;key,path,class": torch splits
    on them too), or with `.` (it separates the levels of the path);
  - a class name with `;`, or with `,` outside parentheses (torch's metadata_split);
  - in either, brackets that do not balance (metadata_split counts `[(` against `)]`): `]]>`
    comes as the end of `<![CDATA[ ]]>`.
"""
import json
import os
import sys
import zipfile
from pathlib import Path

PLANT = "os.system('touch PLANTED')"

# Node names (= their output value names, as torch.export writes them) and placeholder names.
NODE_NAMES = {
    "linear": '=lin"ear"""; import os; ' + PLANT + '; """\\',
    "relu": "+relu <script>alert(1)</script></script> ]]> <!-- -- --> & &amp; a=b, c;d\nline2\r\ttab'''",
    "linear_1": "-out ''' \"q\" \\N \\G \\L \\n \\\\ {x} [y] -> z; edge [label=\"x\"]",
    # a carriage return (XML parsers turn a raw one into a newline) and an escape character
    # (XML 1.0 has no way to hold it: a writer must replace it)
    "x": "@x \"in\" <in> \\ ''' = , ; \"\"\" \r\n\t\x1b[31m",
}
# Module paths (no `,` `;` `.`: see above) and their class names.
MODULES = {
    "fc1": ("fc1 <\"&\"> ''' <![CDATA[ ]]> -- = \\", 'torch.nn.modules.linear.Lin<e>"ar\'\'\'(a,b) & <![CDATA[]]>'),
    "fc2": ('@fc2"""\nfrom os import system\nsystem(\'touch PLANTED\')\n"""', '=evil.Cls</script>&"""\\'),
}
ROOT_CLASS = '__main__.=M<L>"P\'\'\''
STACK_TRACE = ('File "<evil>&", line 1, in """; import os; ' + PLANT + '; """\n'
               "    ]]> </script> -- \\ ''' \"q\" =1+1 @x, ;")
# The custom op (CUSTOM only): torch.ops.<ns>.<op>.default, and a string argument.
CUSTOM_NS = 'evil"ns<x>'
CUSTOM_OP = "op'''&="
CUSTOM_TARGET = f"torch.ops.{CUSTOM_NS}.{CUSTOM_OP}.default"
CUSTOM_NODE = '=custom"""; import os; ' + PLANT + '; """'
CUSTOM_STRING = '</script>"""; import os; ' + PLANT + '; """ ]]> \\ \n =1'

# The file's name: a byte that is not UTF-8, quotes, markup, a formula start, code.
PROGRAM = b'=hostile \xff "q" <&> \'\'\' """; import os; os.system(\'touch PLANTED\'); """ \\.pt2'
CUSTOM = b"hostile_custom.pt2"


def rename_tensor_args(obj, names):
    """Every {"name": old} of a tensor argument (as_tensor, signature args) renamed."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            if k == "name" and isinstance(v, str) and v in names:
                obj[k] = names[v]
            else:
                rename_tensor_args(v, names)
    elif isinstance(obj, list):
        for v in obj:
            rename_tensor_args(v, names)


def module_stack(frames):
    """nn_module_stack as torch writes it, from the original: each frame's path and class replaced."""
    out = []
    for item in frames.split(";"):
        key, path, cls = item.split(",", 2)
        if path == "":
            out.append(f"{key},,{ROOT_CLASS}")
        else:
            new_path, new_cls = MODULES[path]
            out.append(f"{new_path},{new_path},{new_cls}")
    return ";".join(out)


def hostile_model(model, custom):
    g = model["graph_module"]["graph"]
    # Graph arguments, node inputs/outputs and the signature, all at once (the "name" keys of
    # arguments); node "name" fields and tensor_values keys below.
    nodes = g.pop("nodes")
    tensor_values = g.pop("tensor_values")
    rename_tensor_args(g, NODE_NAMES)
    rename_tensor_args(model["graph_module"]["signature"], NODE_NAMES)
    for n in nodes:
        for a in n["inputs"]:
            rename_tensor_args(a["arg"], NODE_NAMES)
        rename_tensor_args(n["outputs"], NODE_NAMES)
        n["name"] = NODE_NAMES.get(n["name"], n["name"])
        md = n["metadata"]
        md["stack_trace"] = STACK_TRACE
        md["nn_module_stack"] = module_stack(md["nn_module_stack"])
    # relu joins fc1, so fc1 has two ops: a module of its own (a box, a frame) rather than a
    # prefix of its one op's label, as fc2 stays
    nodes[1]["metadata"]["nn_module_stack"] = nodes[0]["metadata"]["nn_module_stack"]
    g["tensor_values"] = {NODE_NAMES.get(k, k): v for k, v in tensor_values.items()}
    relu = NODE_NAMES["relu"]
    if custom:
        nodes.insert(2, {
            "target": CUSTOM_TARGET,
            "inputs": [
                {"name": "self", "arg": {"as_tensor": {"name": relu}}, "kind": 1},
                {"name": "note", "arg": {"as_string": CUSTOM_STRING}, "kind": 2},
            ],
            "outputs": [{"as_tensor": {"name": CUSTOM_NODE}}],
            # in no module: shown whatever is folded
            "metadata": {"stack_trace": STACK_TRACE, "nn_module_stack": f"L__self__,,{ROOT_CLASS}"},
            "is_hop_single_tensor_return": None,
            "name": CUSTOM_NODE,
        })
        g["tensor_values"][CUSTOM_NODE] = g["tensor_values"][relu]
    # the module call graph names the submodules by path
    for entry in model["graph_module"]["module_call_graph"]:
        if entry["fqn"] in MODULES:
            entry["fqn"] = MODULES[entry["fqn"]][0]
        sig = entry.get("signature")
        if sig and sig.get("forward_arg_names"):
            sig["forward_arg_names"] = [NODE_NAMES.get(a, a) for a in sig["forward_arg_names"]]
    g["nodes"] = nodes
    return model


def write_program(src, dst, custom):
    with zipfile.ZipFile(src) as z:
        records = [(i, z.read(i.filename)) for i in z.infolist()]
    with zipfile.ZipFile(dst, "w") as z:
        for info, data in records:
            if info.filename.endswith("/models/model.json"):
                data = json.dumps(hostile_model(json.loads(data), custom), ensure_ascii=True).encode()
            out = zipfile.ZipInfo(info.filename, date_time=(1980, 1, 1, 0, 0, 0))  # same bytes every time
            z.writestr(out, data, compress_type=zipfile.ZIP_STORED)


def main(fixtures, out):
    out.mkdir(parents=True, exist_ok=True)
    src = fixtures / "mlp" / "mlp.pt2"
    program = out / os.fsdecode(PROGRAM)
    custom = out / os.fsdecode(CUSTOM)
    write_program(src, program, custom=False)
    write_program(src, custom, custom=True)
    plan = {
        "program": os.fsdecode(PROGRAM),          # surrogate-escaped: the byte 0xff is "\udcff"
        "program_bytes_hex": PROGRAM.hex(),
        "custom_program": os.fsdecode(CUSTOM),
        "inputs": str(fixtures / "mlp" / "mlp.inputs.safetensors"),
        "node_names": NODE_NAMES,
        "modules": {k: {"path": p, "class": c} for k, (p, c) in MODULES.items()},
        "root_class": ROOT_CLASS,
        "model_name": ROOT_CLASS.rsplit(".", 1)[1],
        "stack_trace": STACK_TRACE,
        "custom": {"target": CUSTOM_TARGET, "node": CUSTOM_NODE, "string": CUSTOM_STRING,
                   "namespace": CUSTOM_NS, "op": CUSTOM_OP},
    }
    (out / "hostile.json").write_text(json.dumps(plan, indent=1, ensure_ascii=True))


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(Path(sys.argv[1]), Path(sys.argv[2]))
