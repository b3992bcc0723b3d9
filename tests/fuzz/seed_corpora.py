"""Seeds each fuzz target's corpus from the fixture zoo: the real files (and the records inside
the .pt2 files) that the target's reader takes. Usage: seed_corpora.py ZOO CORPORA"""
import io
import json
import re
import sys
import zipfile
from pathlib import Path


def main(zoo, corpora):
    seeds = {t: {} for t in ("zip_archive", "pt2", "model_json", "tensor_config", "ir_json", "safetensors",
                             "unpickler", "state_dict", "inputs_file", "symbol_expr", "capture", "host_reply",
                             "pte", "etdump", "etrecord", "device_pairing")}
    for f in sorted(zoo.rglob("*")):
        if not f.is_file() or f.stat().st_size > 4 << 20:
            continue
        name = f.relative_to(zoo).as_posix().replace("/", "_")
        # ExecuTorch's files (the zoo's executorch/ family)
        if f.suffix in (".pte", ".etdp", ".etrecord"):
            seeds[{".pte": "pte", ".etdp": "etdump", ".etrecord": "etrecord"}[f.suffix]][name] = f.read_bytes()
            if f.suffix == ".etdp":
                seeds["device_pairing"][name] = f.read_bytes()
            continue
        if f.suffix in (".pt2", ".pt") and not zipfile.is_zipfile(f):
            continue  # the zoo's damaged files (bad/) make poor seeds: the fuzzer finds those itself
        if f.suffix == ".pt2":
            seeds["pt2"][name] = f.read_bytes()
            seeds["zip_archive"][name] = f.read_bytes()
            with zipfile.ZipFile(f) as z:
                for n in z.namelist():
                    data = z.read(n)
                    if n.endswith("model.json") or n.endswith("serialized_exported_program.json"):
                        seeds["model_json"][name + "_" + n.replace("/", "_")] = data
                        for expr in set(re.findall(r'"expr_str": "((?:[^"\\]|\\.)*)"', data.decode())):
                            seeds["symbol_expr"][f"{len(seeds['symbol_expr'])}"] = json.loads(f'"{expr}"').encode()
                    elif n.endswith("_config.json"):
                        cfg = json.loads(data)
                        # the fuzz target's archive has weight_0 (64 bytes) and weight_1 (empty)
                        for i, entry in enumerate(cfg.get("config", {}).values()):
                            entry["path_name"] = f"weight_{i % 2}"
                        seeds["tensor_config"][name + "_" + n.replace("/", "_")] = json.dumps(cfg).encode()
                    elif n.endswith(".pkl"):
                        seeds["unpickler"][name + "_" + n.replace("/", "_")] = data
                    elif n.endswith(".pt"):
                        seeds["state_dict"][name + "_" + n.replace("/", "_")] = data
                    elif data[:2] == b"PK":  # a pickled weight (a tensor subclass), torch.save'd alone
                        seeds["state_dict"][name + "_" + n.replace("/", "_")] = data
                        with zipfile.ZipFile(io.BytesIO(data)) as inner:
                            for m in inner.namelist():
                                if m.endswith(".pkl"):
                                    seeds["unpickler"][name + "_" + n.replace("/", "_") + ".pkl"] = inner.read(m)
        elif f.name.endswith(".ir.json"):
            seeds["ir_json"][name] = f.read_bytes()
        elif f.suffix == ".safetensors":
            seeds["safetensors"][name] = f.read_bytes()
            seeds["state_dict"][name] = f.read_bytes()
            seeds["inputs_file"][name] = f.read_bytes()
        elif f.suffix == ".pt":
            seeds["state_dict"][name] = f.read_bytes()
            seeds["zip_archive"][name] = f.read_bytes()
            with zipfile.ZipFile(f) as z:
                for n in z.namelist():
                    if n.endswith(".pkl"):
                        seeds["unpickler"][name + "_" + n.replace("/", "_")] = z.read(n)
    # captures: the crafted ones kept with the tests (the zoo has none)
    for f in sorted((Path(__file__).resolve().parent.parent / "data" / "crafted").glob("*.capture")):
        seeds["capture"][f.name] = f.read_bytes()
    # the Python op host's messages: the kept examples (no file holds them)
    for f in sorted((Path(__file__).resolve().parent.parent / "data" / "fuzz").glob("host_reply-*")):
        seeds["host_reply"][f.name] = f.read_bytes()
    for target, files in seeds.items():
        d = corpora / target
        d.mkdir(parents=True, exist_ok=True)
        for n, data in files.items():
            (d / n).write_bytes(data)
        print(f"{target}: {len(files)} seeds")


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))
