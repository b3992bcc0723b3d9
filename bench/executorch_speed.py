"""Device against program, end to end: `torchir compare ETRECORD --etdump` (read the ETRecord and
the ETDump, run the Edge program in float32 and float64, pair and compare every value) against
ExecuTorch's Inspector doing its part of the same (`Inspector(...)` then
`calculate_numeric_gap("MSE")`), on the same files, side by side; and `torchir info` of a .pte of
about 100 MB against reading the file once (what a reader that loads the weights pays at least).

Usage: python executorch_speed.py BUILD_DIR [TURNS] [WORKDIR]

The programs are written once into WORKDIR (default ~/.cache/torchir/bench/executorch): torchvision's
mobilenet_v2 (random weights), lowered to XNNPACK per op and run once by ExecuTorch's runtime with
ETDump and a 1 GB debug buffer (every op's inputs and outputs); and an MLP whose weights make its .pte about 100 MB, portable kernels.
Each turn times torchir and the Inspector once each, in alternating order; the ratio reported is
the median of the per-turn ratios (the machine's speed drifts between turns).
"""

import os
import resource
import statistics
import subprocess
import sys
import time
import warnings
from pathlib import Path

warnings.filterwarnings("ignore")


def make_programs(work):
    import torch
    import torchvision
    from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
    from executorch.exir import to_edge_transform_and_lower
    from executorch.runtime import Runtime

    torch.manual_seed(0)
    mobilenet = work / "mobilenet_v2"
    if not (mobilenet.with_suffix(".etdp")).exists():
        model = torchvision.models.mobilenet_v2().eval()
        x = torch.randn(1, 3, 224, 224)
        edge = to_edge_transform_and_lower(torch.export.export(model, (x,)),
                                           partitioner=[XnnpackPartitioner(per_op_mode=True)], generate_etrecord=True)
        et = edge.to_executorch()
        et.save(str(mobilenet.with_suffix(".pte")))
        record = et.get_etrecord()
        record.update_representative_inputs((x,))
        record.save(str(mobilenet.with_suffix(".etrecord")))
        program = Runtime.get().load_program(str(mobilenet.with_suffix(".pte")), enable_etdump=True,
                                             debug_buffer_size=1 << 30)
        method = program.load_method("forward")
        method.execute([x])  # one run: each run's values fill the debug buffer anew, after the last
        program.write_etdump_result_to_file(str(mobilenet.with_suffix(".etdp")), str(mobilenet.with_suffix(".debug.bin")))
    big = work / "mlp_100mb.pte"
    if not big.exists():
        model = torch.nn.Sequential(*[torch.nn.Linear(2560, 2560) for _ in range(4)]).eval()
        edge = to_edge_transform_and_lower(torch.export.export(model, (torch.randn(1, 2560),)), partitioner=[])
        edge.to_executorch().save(str(big))
    return mobilenet, big


def inspector_gap(base):
    from executorch.devtools import Inspector

    start = time.perf_counter()
    inspector = Inspector(etdump_path=f"{base}.etdp", etrecord=f"{base}.etrecord", debug_buffer_path=f"{base}.debug.bin")
    inspector.calculate_numeric_gap("MSE")
    return time.perf_counter() - start


def torchir_compare(build, base):
    start = time.perf_counter()
    subprocess.run([f"{build}/app/torchir", "compare", f"{base}.etrecord", "--etdump", f"{base}.etdp", "--debug-buffer",
                    f"{base}.debug.bin", "--json"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - start


def main():
    build = Path(sys.argv[1]).resolve()
    turns = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    work = Path(sys.argv[3]) if len(sys.argv) > 3 else Path.home() / ".cache/torchir/bench/executorch"
    work.mkdir(parents=True, exist_ok=True)
    mobilenet, big = make_programs(work)

    ours, theirs, ratios = [], [], []
    inspector_gap(mobilenet)  # warm: the Inspector's imports and first-use costs are not counted
    torchir_compare(build, mobilenet)
    for turn in range(turns):
        first, second = (torchir_compare, inspector_gap) if turn % 2 == 0 else (inspector_gap, torchir_compare)
        a = first(build, mobilenet) if first is torchir_compare else first(mobilenet)
        b = second(build, mobilenet) if second is torchir_compare else second(mobilenet)
        t, i = (a, b) if first is torchir_compare else (b, a)
        ours.append(t), theirs.append(i), ratios.append(t / i)
    print(f"mobilenet_v2, XNNPACK per op ({turns} turns)")
    print(f"  torchir compare --etdump: median {statistics.median(ours) * 1e3:.0f} ms (min {min(ours) * 1e3:.0f}, max {max(ours) * 1e3:.0f})")
    print(f"  Inspector + calculate_numeric_gap: median {statistics.median(theirs) * 1e3:.0f} ms "
          f"(min {min(theirs) * 1e3:.0f}, max {max(theirs) * 1e3:.0f})")
    print(f"  ratio torchir / Inspector: median {statistics.median(ratios):.2f}")

    size = big.stat().st_size
    infos, reads = [], []
    for _ in range(turns):
        start = time.perf_counter()
        child = subprocess.run(["/usr/bin/time", "-f", "%M", f"{build}/app/torchir", "info", str(big)],
                               capture_output=True, text=True, check=True)
        infos.append(time.perf_counter() - start)
        rss_kb = int(child.stderr.strip().splitlines()[-1])
        start = time.perf_counter()
        with open(big, "rb") as f:
            while f.read(16 << 20):
                pass
        reads.append(time.perf_counter() - start)
    print(f".pte of {size / 1e6:.0f} MB: torchir info median {statistics.median(infos) * 1e3:.1f} ms, "
          f"peak RSS {rss_kb / 1024:.1f} MB; reading the file once (page cache warm) {statistics.median(reads) * 1e3:.1f} ms")


if __name__ == "__main__":
    main()
