"""Writes a torchvision model (resnet18 unless named) at 224x224, quantized by torchao's pt2e flow
(XNNPACK quantizer, per-channel static int8), beside its float export: the layer sensitivity
bench's program, and the quantized runs' against eager.
Writes OUT_STEM.pt2 (quantized), OUT_STEM.float.pt2 and OUT_STEM.inputs.safetensors.

Usage: python make_quantized_vision.py OUT_STEM [resnet18|mobilenet_v2|...]
"""

import os
import sys

import torch
import torchvision

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fixtures"))
import make_quant_pairs as pairs  # noqa: E402  (the fixtures' own quantization flow)


def main():
    stem = sys.argv[1]
    name = sys.argv[2] if len(sys.argv) > 2 else "resnet18"
    torch.manual_seed(0)
    model = getattr(torchvision.models, name)().eval()
    inputs = (torch.randn(1, 3, 224, 224),)
    ep = torch.export.export(model, inputs)
    torch.export.save(ep, stem + ".float.pt2")
    pairs._save_inputs(stem + ".inputs.safetensors", inputs)
    converted = pairs.quantize(ep.module(), pairs._xnnpack_quantizer(), pairs._calibration(inputs))
    torch.export.save(torch.export.export(converted, inputs), stem + ".pt2")


if __name__ == "__main__":
    main()
