#pragma once
// Repro files: one node's or one module's part of a program, cut out as a program of its own with
// its weights and the values it received in a run, for a bug report that runs in plain PyTorch.
#include <string>
#include <vector>

#include "exec/Session.h"
#include "program/Program.h"

namespace torchir {

/// What to cut out: a node by name, or a module by its path in `nn_module_stack` (`layer1.0`).
struct ReproPart {
  enum Kind { Node, Module } kind = Node;
  std::string name;
  std::string describe() const;  // "node 'linear_1'", "module 'layer1.0'"
};

/// The part's nodes in program order: the node (with its getitem nodes), or every node under the
/// module and the modules inside it. Throws std::invalid_argument naming the file and the part when
/// it cannot be a repro without running: the program is not a .pt2, has no such node or module, the
/// node does no op, or an op of the part takes a custom object.
std::vector<NodeId> partNodes(const Program& program, const ReproPart& part);

struct Repro {
  Program program;                  // the part, at the sizes it ran with
  std::vector<TensorData> inputs;   // what the run gave its user inputs, in order
  std::vector<TensorData> outputs;  // what the run computed for its outputs, in order
  std::string description;          // "node 'linear_1' (aten.linear.default) of mlp.pt2"
  std::vector<std::string> pythonImports;  // modules defining ops of the part in Python (--python-import)
};

/// Makes `session`'s run again from its inputs (set, and its changes to calls applied) until the
/// part has run, every value kept (Session::replayTo), and cuts the part out: every tensor it takes from outside becomes a placeholder (a weight stays
/// a weight, with the run's data; anything else is a user input, with the value it had), every
/// value it gives to the rest of the program (all its node's outputs, for a node) an output, and
/// every symbolic size the size it had, so the repro is static. Throws std::runtime_error when the
/// run stops before the part has run (the diagnosis's message), and std::invalid_argument for a
/// part that cannot stand alone (a custom object, a changed call inside it, a symbolic size inside
/// a higher-order op's graph).
Repro extractRepro(Session& session, const ReproPart& part, RunObserver* observer = nullptr);

/// Writes OUT.pt2 (writePt2) with the inputs as its example inputs, OUT.outputs.safetensors
/// (output_0, ...) and OUT.py, which loads the .pt2 with torch.export.load, runs it on its example
/// inputs at the run's thread count (AtenBackend::threads) and compares its outputs with the run's
/// bit for bit.
/// Returns the paths written, the .pt2 first.
std::vector<std::string> writeRepro(const Repro& repro, const std::string& pt2Path);

}  // namespace torchir
