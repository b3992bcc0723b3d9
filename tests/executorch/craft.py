"""Damaged ExecuTorch files made from real ones, each with the problem it has: what readers of
untrusted .pte and ETDump files must turn into one line naming the file.

Usage: python craft.py PTE ETDP OUTDIR  (writes OUTDIR/NAME.pte and OUTDIR/NAME.etdp)"""
import struct
import sys
from pathlib import Path


def pte_variants(data):
    program_size, segment_base = struct.unpack_from("<QQ", data, 16)
    yield "truncated", data[: len(data) // 2]
    yield "header_only", data[:40]
    yield "program_size_past_end", data[:16] + struct.pack("<Q", len(data) * 4) + data[24:]
    yield "segment_base_past_end", data[:24] + struct.pack("<Q", len(data) + 4096) + data[32:]
    yield "segments_past_end", data[:program_size] + data[segment_base:segment_base + 8]  # segment bytes cut
    # the root table's vtable offset pointing back at the table itself: a vtable in a loop
    root = struct.unpack_from("<I", data, 0)[0]
    yield "vtable_loop", data[:root] + struct.pack("<i", 0) + data[root + 4:]
    # every 32-bit word that could be a vector's length set to 2^31 - 1, one at a time: the first
    # whose file still starts as a .pte
    for at in range(40, min(program_size, len(data)) - 4, 4):
        n = struct.unpack_from("<I", data, at)[0]
        if 1 <= n <= 64:
            yield "huge_vector", data[:at] + struct.pack("<I", 0x7FFFFFFF) + data[at + 4:]
            break
    yield "not_et12", data[:4] + b"ET99" + data[8:]


def etdump_variants(data):
    yield "truncated", data[: len(data) // 2]
    yield "size_past_end", struct.pack("<I", len(data) * 8) + data[4:]
    root = struct.unpack_from("<I", data, 4)[0] + 4
    yield "vtable_loop", data[:root] + struct.pack("<i", 0) + data[root + 4:]
    for at in range(12, len(data) - 4, 4):
        n = struct.unpack_from("<I", data, at)[0]
        if 2 <= n <= 64:
            yield "huge_vector", data[:at] + struct.pack("<I", 0x7FFFFFFF) + data[at + 4:]
            break
    yield "no_identifier", data[:8] + b"XX00" + data[12:]


def main(pte, etdp, out):
    out.mkdir(parents=True, exist_ok=True)
    for name, data in pte_variants(pte.read_bytes()):
        (out / f"{name}.pte").write_bytes(data)
    for name, data in etdump_variants(etdp.read_bytes()):
        (out / f"{name}.etdp").write_bytes(data)


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3]))
