"""Writes the crafted files of tests/data/crafted/: each breaks one rule a reader must check, so
BadInputTest can show what the command line answers. Made from the zoo's mlp fixture (its real
model.json, configs and records) with the standard library only:

    python3 tests/data/make_crafted.py ~/.cache/torchir/fixtures/<key> tests/data/crafted
"""
import json
import struct
import sys
import zipfile
import zlib
from pathlib import Path


def read_pt2(path):
    with zipfile.ZipFile(path) as z:
        return {n: z.read(n) for n in z.namelist()}


def write_zip(path, records, compress=()):
    with zipfile.ZipFile(path, "w") as z:
        for name, data in records.items():
            method = zipfile.ZIP_DEFLATED if any(name.endswith(c) for c in compress) else zipfile.ZIP_STORED
            z.writestr(zipfile.ZipInfo(name), data, compress_type=method)


def with_json(records, suffix, edit):
    name = next(n for n in records if n.endswith(suffix))
    out = dict(records)
    doc = json.loads(records[name])
    edit(doc)
    out[name] = json.dumps(doc, separators=(",", ":")).encode()
    return out


def weight_meta(edit):
    def apply(cfg):
        edit(cfg["config"]["fc1.weight"]["tensor_meta"])
    return apply


def nested(depth, leaf="0"):
    return "[" * depth + leaf + "]" * depth


def main(zoo, out):
    out.mkdir(parents=True, exist_ok=True)
    mlp = read_pt2(zoo / "mlp" / "mlp.pt2")
    cfg = "data/weights/model_weights_config.json"
    pt2 = {
        "strides_shorter_than_sizes": with_json(mlp, cfg, weight_meta(lambda m: m.update(strides=[{"as_int": 1}]))),
        "negative_size": with_json(mlp, cfg, weight_meta(lambda m: m["sizes"].__setitem__(0, {"as_int": -32}))),
        "negative_stride": with_json(mlp, cfg, weight_meta(lambda m: m["strides"].__setitem__(0, {"as_int": -16}))),
        "negative_offset": with_json(mlp, cfg, weight_meta(lambda m: m.update(storage_offset={"as_int": -64}))),
        "offset_past_storage": with_json(mlp, cfg, weight_meta(lambda m: m.update(storage_offset={"as_int": 100000}))),
        "sizes_overflow": with_json(mlp, cfg, weight_meta(lambda m: m.update(
            sizes=[{"as_int": 2**40}, {"as_int": 2**40}], strides=[{"as_int": 0}, {"as_int": 0}]))),
        "stride0_view_1e12": with_json(mlp, cfg, weight_meta(lambda m: m.update(
            sizes=[{"as_int": 10**6}, {"as_int": 10**6}], strides=[{"as_int": 0}, {"as_int": 0}]))),
        "float_size": with_json(mlp, cfg, weight_meta(lambda m: m["sizes"].__setitem__(0, {"as_int": 32.5}))),
        "unknown_dtype": with_json(mlp, cfg, weight_meta(lambda m: m.update(dtype=99))),
        "deep_model_json": {**mlp, next(n for n in mlp if n.endswith("models/model.json")):
                            ('{"a": ' + nested(100000) + "}").encode()},
        "deep_config": {**mlp, next(n for n in mlp if n.endswith(cfg)): ('{"config": ' + nested(100000) + "}").encode()},
    }

    def deep_expr(ep):
        x = ep["graph_module"]["graph"]["tensor_values"]["x"]
        expr = "Mul(" * 100000 + "Symbol('s0')" + ")" * 100000
        x["sizes"][0] = {"as_expr": {"expr_str": expr, "hint": {"as_int": 2}}}
    pt2["deep_symbolic_expr"] = with_json(mlp, "models/model.json", deep_expr)

    def newline_name(ep):
        ep["graph_module"]["graph"]["nodes"][0]["inputs"][0]["arg"]["as_tensor"]["name"] = "x\nerror: forged line"
    pt2["newline_in_name"] = with_json(mlp, "models/model.json", newline_name)

    def malformed_float(ep):
        # found by fuzz_model_json: a float argument given as a string the table cannot print
        ep["graph_module"]["graph"]["nodes"][0]["inputs"][1]["arg"] = {"as_float": "one"}
    pt2["malformed_argument"] = with_json(mlp, "models/model.json", malformed_float)

    def empty_argument(ep):
        ep["graph_module"]["graph"]["nodes"][0]["inputs"][1]["arg"] = {}
    pt2["empty_argument"] = with_json(mlp, "models/model.json", empty_argument)

    def huge_params(ep):
        g = ep["graph_module"]["graph"]
        for name in ("p_fc1_weight", "p_fc2_weight"):
            g["tensor_values"][name]["sizes"] = [{"as_int": 2**31}, {"as_int": 2**31}, {"as_int": 2**1}]
    pt2["parameter_count_overflow"] = with_json(mlp, "models/model.json", huge_params)

    def same_names(ep):
        # 30,000 relu nodes all named "relu": FX de-duplicates them to relu, relu_1, ..., relu_29999
        g = ep["graph_module"]["graph"]
        first = g["nodes"][0]
        chain, prev = [], first["outputs"][0]["as_tensor"]["name"]
        for i in range(30000):
            out = f"r{i}"
            chain.append({"target": "torch.ops.aten.relu.default", "name": "relu",
                          "inputs": [{"name": "self", "arg": {"as_tensor": {"name": prev}}, "kind": 1}],
                          "outputs": [{"as_tensor": {"name": out}}], "metadata": {}})
            g["tensor_values"][out] = g["tensor_values"][prev]
            prev = out
        g["nodes"] = [first] + chain
        g["outputs"] = [{"as_tensor": {"name": prev}}]
        ep["graph_module"]["signature"]["output_specs"][0]["user_output"]["arg"]["as_tensor"]["name"] = prev
    pt2["thirty_thousand_same_names"] = with_json(mlp, "models/model.json", same_names)

    for name, records in pt2.items():
        write_zip(out / f"{name}.pt2", records, compress=("model.json",))  # deflated: small files

    # A record that inflates far past what its archive may: 400 MB of spaces after the JSON.
    model = next(n for n in mlp if n.endswith("models/model.json"))
    write_zip(out / "zip_bomb.pt2", {**mlp, model: mlp[model] + b" " * (400 << 20)}, compress=("model.json",))

    # Two directory entries pointing at the same bytes: weight_1's entry is given weight_0's offset.
    alias = out / "aliased_records.pt2"
    write_zip(alias, mlp)
    data = bytearray(alias.read_bytes())
    with zipfile.ZipFile(alias) as z:
        infos = {i.filename: i for i in z.infolist()}
    w0 = next(i for n, i in infos.items() if n.endswith("weights/weight_0"))
    w1 = next(i for n, i in infos.items() if n.endswith("weights/weight_1"))
    pos = 0
    while True:
        pos = data.find(b"PK\x01\x02", pos)
        if pos < 0:
            break
        name_len = struct.unpack_from("<H", data, pos + 28)[0]
        if data[pos + 46:pos + 46 + name_len].decode() == w1.filename:
            struct.pack_into("<I", data, pos + 42, w0.header_offset)
            struct.pack_into("<I", data, pos + 16, w0.CRC)
            struct.pack_into("<II", data, pos + 20, w0.compress_size, w0.file_size)
        pos += 4
    alias.write_bytes(bytes(data))

    # IR JSON
    ir = json.loads((zoo / "mlp" / "mlp.ir.json").read_text())
    def ir_with(edit):
        doc = json.loads(json.dumps(ir))
        edit(doc)
        return json.dumps(doc, separators=(",", ":"))
    def wrap_constant(doc):
        # dims of 2^16 four deep: their product wraps to 0 in 64 bits, the data has 4 * 2^16 numbers
        doc["constants"] = {"c": {"dtype": "float32", "data": None}}
        lst = [0] * 65536
        for _ in range(3):
            lst = [lst] + [[]] * 65535
        doc["constants"]["c"]["data"] = lst
    def big_index(doc):
        for n in doc["nodes"]:
            for i in n["inputs"]:
                if i.get("producer_node"):
                    i["producer_output_idx"] = 2**32
                    return
    irs = {
        "constant_dims_wrap": ir_with(wrap_constant),
        "producer_index_2_32": ir_with(big_index),
        "constant_int_out_of_range": ir_with(lambda d: d.update(constants={"c": {"dtype": "int32", "data": [1e300]}})),
        "deep": '{"nodes": ' + nested(100000) + "}",
    }
    for name, text in irs.items():
        (out / f"{name}.ir.json").write_text(text)

    # safetensors
    def safetensors(header, data=b""):
        text = json.dumps(header).encode()
        return struct.pack("<Q", len(text)) + text + data
    st = {
        "float_dims": safetensors({"w": {"dtype": "F32", "shape": [2.5, 2], "data_offsets": [0, 16]}}, bytes(16)),
        "overlapping": safetensors({"a": {"dtype": "F32", "shape": [4], "data_offsets": [0, 16]},
                                    "b": {"dtype": "F32", "shape": [4], "data_offsets": [8, 24]}}, bytes(24)),
        "deep_header": struct.pack("<Q", 200002) + ("[" * 100001 + "]" * 100001).encode(),
        "offsets_wrap": safetensors({"w": {"dtype": "F32", "shape": [4], "data_offsets": [2**64 - 8, 8]}}, bytes(16)),
    }
    for name, data in st.items():
        (out / f"{name}.safetensors").write_bytes(data)


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))
