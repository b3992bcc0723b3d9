#include "FxTable.h"

#include "ArgumentText.h"
#include "PythonRepr.h"

namespace torchir {
namespace {

FxRow row(const ArgumentText& arg, const Node& n) {
  FxRow r{std::string(opcodeName(n.opcode)), n.name, n.target, "()", "{}"};
  std::vector<std::string> args, kwargs;
  for (const auto& a : n.inputs) {
    std::string text = arg(a.arg);
    if (a.keyword) kwargs.push_back(pythonStringRepr(a.name) + ": " + text);
    else args.push_back(text);
  }
  if (n.opcode == Opcode::Output) {
    // output((a, b)) for a tuple return, output(a) for a single tensor
    r.args = n.returnsTuple ? "(" + pythonSequence(args, true, "(", ")") + ",)" : pythonSequence(args, true, "(", ")");
    return r;
  }
  if (n.picks()) {
    r.args = "(" + args.front() + ")";  // getitem(node, index)
    return r;
  }
  r.args = pythonSequence(args, true, "(", ")");
  r.kwargs = pythonSequence(kwargs, false, "{", "}");
  return r;
}

}  // namespace

std::vector<FxRow> fxTable(const Program& program) {
  std::vector<FxRow> rows;
  rows.reserve(program.nodes.size());
  fxTableRows(program, 0, program.nodes.size(), [&rows](std::size_t, FxRow&& row) { rows.push_back(std::move(row)); });
  return rows;
}

void fxTableRows(const Program& program, std::size_t first, std::size_t last,
                 const std::function<void(std::size_t, FxRow&&)>& take) {
  const ArgumentText text(program);
  for (std::size_t i = first; i < last && i < program.nodes.size(); ++i) take(i, row(text, program.nodes[i]));
}

}  // namespace torchir
