#include "CustomKernel.h"

#include "IValueSummary.h"
#include "formats/ArgumentJson.h"

namespace torchir {

void runCustomExecutor(const Executor& executor, const Program& p, const Node& n, FrameValues& values,
                       std::vector<ArgumentRecord>& records) {
  std::vector<at::Tensor> inputs;
  nlohmann::json attrs = nlohmann::json::object();
  for (const auto& a : n.inputs) {
    if (a.values.empty()) {
      // as pytorch-ir writes attrs: an IR attribute as it is, a .pt2 argument as its Python value
      const nlohmann::json value = pythonJson(a.arg, [&p](ValueId v) { return p.value(v).name; });
      attrs[a.name] = value;
      records.push_back({a.name, std::string(argumentTypeName(a.arg)), ArgSource::Attribute, "attrs['" + a.name + "']",
                         {"", DType::Unknown, {}, {}, {}, value.dump()}});
      continue;
    }
    for (ValueId v : a.values) {
      const c10::IValue& iv = values[static_cast<std::size_t>(v)];
      if (iv.isNone()) throw MissingValue(v);
      if (!iv.isTensor()) continue;
      inputs.push_back(iv.toTensor());
      records.push_back({a.name.empty() ? "input " + std::to_string(inputs.size() - 1) : a.name, "Tensor",
                         ArgSource::Input, p.value(v).name, summarize(iv)});
    }
  }
  std::vector<at::Tensor> results = executor(inputs, attrs);
  std::size_t next = 0;
  for (ValueId v : n.outputs) {
    if (p.value(v).producer != n.id) continue;  // a getitem's copy of an op's output
    if (next >= results.size())
      throw std::runtime_error("the custom executor for " + n.target + " returned " + std::to_string(results.size()) +
                               " tensors; the node has more outputs");
    values[static_cast<std::size_t>(v)] = results[next++];
  }
}

}  // namespace torchir
