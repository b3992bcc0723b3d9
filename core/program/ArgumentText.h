#pragma once
// An argument's Python text, as torch.export.load deserializes it and print_tabular shows it: the
// one renderer behind the FX table, the arguments view, repros and reports.
#include <string>
#include <vector>

#include "Program.h"

namespace torchir {

class ArgumentText {
 public:
  explicit ArgumentText(const Program& p);

  /// Python repr of one argument: a value it names is the FX node holding it.
  std::string operator()(const Argument& a) const;
  /// The FX node holding a value: the op, or the getitem that picks it.
  const std::string& holderName(ValueId v) const;
  /// How a reference to `t` reads (an IR names the tensor itself: topk_0).
  std::string tensor(const TensorRef& t) const;

 private:
  const Program& m_p;
  std::vector<NodeId> m_holder;
  bool m_irNames;
};

/// Python's display of a sequence: `open a, b close`, a one-item tuple with its trailing comma.
std::string pythonSequence(const std::vector<std::string>& items, bool tuple, const char* open, const char* close);

}  // namespace torchir
