// A repro's files: the .pt2, its inputs and outputs, and the Python that checks them.
#include <cctype>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "Repro.h"
#include "exec/AtenBackend.h"
#include "program/EscapedText.h"
#include "program/OneLine.h"
#include "formats/Pt2Writer.h"
#include "program/QuantOps.h"
#include "formats/Safetensors.h"

namespace torchir {
namespace {

/// A Python string literal of any text. Not JSON's: nlohmann's dump() throws on bytes that are not
/// UTF-8, and a file's name can hold them; pythonStrLiteral writes them as the surrogate escapes
/// os.fsdecode gives, so STEM is the very name the script's files have.
std::string pythonString(const std::string& s) { return pythonStrLiteral(s); }

/// Text from the input (a node name, a module path, the file's name) inside the script's docstring:
/// one line, and no quote or backslash that could end the docstring early or start an escape, so a
/// stranger's text stays words and never becomes code. A byte that is not UTF-8 (a file's name can
/// hold one) is written as the text `\xff`, as oneLine writes control characters: Python refuses a source file
/// that is not UTF-8.
std::string docstringText(const std::string& s) {
  const std::string line = oneLine(s, 400);
  std::string out;
  for (std::size_t i = 0; i < line.size();) {
    const std::size_t n = utf8SequenceLength(line, i);
    if (n == 0) {
      static const char* hex = "0123456789abcdef";
      const auto c = static_cast<unsigned char>(line[i++]);
      out += {'\\', '\\', 'x', hex[c >> 4], hex[c & 15]};
      continue;
    }
    if (line[i] == '\\' || line[i] == '"') out += '\\';
    out.append(line, i, n);
    i += n;
  }
  return out;
}

/// The imports that define, in Python, the ops of the part that torch alone lacks: the quantization
/// libraries (torchir runs them natively; torch.export.load needs their Python definitions).
std::string libraryImports(const Program& part) {
  bool decomposed = false, torchao = false;
  for (const Node& n : part.nodes) {
    decomposed |= n.target.rfind("quantized_decomposed.", 0) == 0;
    torchao |= n.target.rfind("torchao.", 0) == 0 || quantRole(n.target) == QuantRole::InnerTensor;
  }
  for (const auto& [key, t] : part.weights) torchao |= t.subclass != nullptr;
  std::string out;
  if (decomposed) out += "import torch.ao.quantization.fx._decomposed  # the quantized_decomposed ops\n";
  if (torchao) out += "import torchao  # its ops and tensor subclasses\n";
  return out;
}

/// The modules the run's Python imported to define ops of the part (each a dotted name, checked:
/// the line is Python source).
std::string pythonImports(const Repro& r) {
  std::string out;
  for (const std::string& m : r.pythonImports) {
    // dotted identifiers (ASCII): anything else is not written into the source at all
    bool dotted = !m.empty();
    bool partStart = true;
    for (char c : m) {
      const auto u = static_cast<unsigned char>(c);
      if (c == '.') {
        dotted &= !partStart;
        partStart = true;
      } else {
        dotted &= u < 0x80 && (std::isalpha(u) || c == '_' || (!partStart && std::isdigit(u)));
        partStart = false;
      }
    }
    dotted &= !partStart;
    if (dotted) out += "import " + m + "  # defines ops of this part in Python, as in the run\n";
    else out += "# the run also imported a module whose name is not a dotted Python name: import it here\n";
  }
  return out;
}

std::string script(const Repro& r, const std::string& stem, int threads) {
  return R"py(#!/usr/bin/env python3
"""Repro: )py" + docstringText(r.description) + R"py(, as torchir ran it.

Loads )py" + docstringText(stem) + R"py(.pt2 with torch.export.load and runs it on its example inputs (the values the
part received in the run) at the run's intra-op thread count, which the bits depend on. Then compares its outputs bit for bit with those torchir
computed ()py" + docstringText(stem) + R"py(.outputs.safetensors). Exit 0 when every output is equal.
"""
import pathlib
import sys

import torch
)py" + libraryImports(r.program) + pythonImports(r) + R"py(from safetensors.torch import load as load_safetensors

HERE = pathlib.Path(__file__).resolve().parent
STEM = )py" + pythonString(stem) + R"py(
THREADS = )py" + std::to_string(threads) + R"py(


def expected_outputs():
    """output_0, output_1, ... as torchir computed them."""
    # read as bytes: safetensors opens a path only when its name is UTF-8, and a file's need not be
    saved = load_safetensors((HERE / f"{STEM}.outputs.safetensors").read_bytes())
    out = []
    while f"output_{len(out)}" in saved:
        out.append(saved[f"output_{len(out)}"])
    return out


def same_bits(a, b):
    return a.dtype == b.dtype and a.shape == b.shape and torch.equal(
        a.contiguous().reshape(-1).view(torch.uint8), b.contiguous().reshape(-1).view(torch.uint8))


def main():
    torch.set_num_threads(THREADS)
    with open(HERE / f"{STEM}.pt2", "rb") as f:  # an open file: torch takes a path only when its name is UTF-8
        program = torch.export.load(f)
    with torch.no_grad():
        args, kwargs = program.example_inputs
        got = program.module()(*args, **kwargs)
    got = list(got) if isinstance(got, (tuple, list)) else [got]
    expected = expected_outputs()
    failed = len(got) != len(expected)
    if failed:
        print(f"{len(got)} outputs; torchir gave {len(expected)}")
    for i, (g, e) in enumerate(zip(got, expected)):
        if same_bits(g, e):
            print(f"output_{i}: equal to torchir's bit for bit ({g.dtype}, {list(g.shape)})")
        else:
            failed = True
            detail = f"{g.dtype} {list(g.shape)} against {e.dtype} {list(e.shape)}"
            if g.shape == e.shape and g.dtype.is_floating_point and e.dtype == g.dtype:
                detail = f"max abs difference {(g.double() - e.double()).abs().max().item()}"
            print(f"output_{i}: differs from torchir's: {detail}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
)py";
}

}  // namespace

std::vector<std::string> writeRepro(const Repro& r, const std::string& pt2Path) {
  namespace fs = std::filesystem;
  const fs::path pt2(pt2Path);
  if (pt2.extension() != ".pt2") throw std::invalid_argument(pt2Path + ": a repro is written as a .pt2 file");
  const std::string stem = pt2.stem().string();
  const fs::path dir = pt2.parent_path();
  const std::string outputs = (dir / (stem + ".outputs.safetensors")).string();
  const std::string py = (dir / (stem + ".py")).string();
  writePt2(r.program, atenBackend().torchSaveArgs(r.inputs), pt2Path);
  TensorMap expected;
  for (std::size_t i = 0; i < r.outputs.size(); ++i) expected["output_" + std::to_string(i)] = r.outputs[i];
  writeSafetensors(outputs, expected);
  std::ofstream f(py, std::ios::binary | std::ios::trunc);
  f << script(r, stem, atenBackend().threads());
  if (!f.flush()) throw std::runtime_error(py + ": cannot write");
  return {pt2Path, outputs, py};
}

}  // namespace torchir
