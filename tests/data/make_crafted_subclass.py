"""Writes the crafted tensor-subclass weights of tests/data/crafted/: a real torchao program
(the quantized zoo's q_ao_int8_weight_only) whose first pickled weight is replaced, each file
breaking one rule the restricted unpickler must keep. The pickles are written byte by byte with
the standard library, so nothing is constructed while making them either:

    python3 tests/data/make_crafted_subclass.py ~/.cache/torchir/fixtures/<key>/quant tests/data/crafted

  subclass_unknown_class.pt2      the real weight, its class renamed to mylib.secret.NotOurs:
                                  read as data and shown by name
  subclass_inner_past_storage.pt2 the real weight, its qdata storage record cut to half
  subclass_state_not_dict.pt2     a wrapper subclass whose state is an int
  subclass_deep_state.pt2         a wrapper subclass whose state holds a list nested 10^6 deep
  subclass_calls_system.pt2       a wrapper subclass whose state holds os.system('...') as a call
"""
import io
import struct
import sys
import zipfile
from pathlib import Path

WEIGHT = "data/weights/weight_0"


def read_zip(data):
    with zipfile.ZipFile(io.BytesIO(data) if isinstance(data, bytes) else data) as z:
        return {n: z.read(n) for n in z.namelist()}


def zip_bytes(records):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for name, data in records.items():
            z.writestr(zipfile.ZipInfo(name), data, compress_type=zipfile.ZIP_DEFLATED)
    return buf.getvalue()


def glob(module, name):
    return b"c" + module.encode() + b"\n" + name.encode() + b"\n"


def text(s):
    b = s.encode()
    return b"X" + struct.pack("<I", len(b)) + b


def wrapper_subclass(state):
    """_rebuild_from_type_v2(_rebuild_wrapper_subclass, cls, (cls, float32, (64, 32), (32, 1), 0, layout,
    device, False), state) as torch.save writes it, with `state` the pickle of the state."""
    cls = glob("mylib.secret", "NotOurs")
    args = (b"(" + cls + glob("torch", "float32") + b"K\x40K\x20\x86" + b"K\x20K\x01\x86" + b"K\x00" +
            text("torch.strided") + text("cpu") + b"\x89t")
    return (b"\x80\x02" + glob("torch._tensor", "_rebuild_from_type_v2") + b"(" +
            glob("torch._utils", "_rebuild_wrapper_subclass") + cls + args + state + b"tR.")


def main(quant_zoo, out):
    out.mkdir(parents=True, exist_ok=True)
    program = read_zip(quant_zoo / "q_ao_int8_weight_only" / "q_ao_int8_weight_only.pt2")
    record = next(n for n in program if n.endswith(WEIGHT))
    weight = read_zip(program[record])
    root = next(n for n in weight if n.endswith("data.pkl"))[: -len("data.pkl")]

    def with_weight(records):
        files = dict(program)
        files[record] = zip_bytes(records)
        return files

    def with_pickle(pickle):
        return with_weight({**weight, root + "data.pkl": pickle})

    renamed = weight[root + "data.pkl"].replace(b"torchao.quantization\nInt8Tensor\n", b"mylib.secret\nNotOurs\n")
    assert renamed != weight[root + "data.pkl"]
    qdata = root + "data/0"
    deep = b"]" * 10**6 + b"a" * (10**6 - 1)
    crafted = {
        "subclass_unknown_class": with_pickle(renamed),
        "subclass_inner_past_storage": with_weight({**weight, qdata: weight[qdata][: len(weight[qdata]) // 2]}),
        "subclass_state_not_dict": with_pickle(wrapper_subclass(b"K\x07")),
        "subclass_deep_state": with_pickle(wrapper_subclass(b"}(" + text("x") + deep + b"u")),
        "subclass_calls_system": with_pickle(
            wrapper_subclass(b"}(" + text("x") + glob("os", "system") + b"(" + text("echo pwned") + b"tR" + b"u")),
    }
    for name, records in crafted.items():
        with zipfile.ZipFile(out / f"{name}.pt2", "w") as z:
            for n, data in records.items():
                z.writestr(zipfile.ZipInfo(n), data, compress_type=zipfile.ZIP_DEFLATED)


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))
