#include "OperatorLookup.h"

#include "PythonOps.h"

namespace torchir {
namespace {

struct OperatorName {
  std::string name;      // "aten::conv2d"
  std::string overload;  // "" for .default
};

std::optional<OperatorName> parse(const std::string& target) {
  const std::string t = target.rfind("torch.ops.", 0) == 0 ? target.substr(10) : target;
  const auto first = t.find('.'), last = t.rfind('.');
  if (first == std::string::npos || first == last) return std::nullopt;
  OperatorName op{t.substr(0, first) + "::" + t.substr(first + 1, last - first - 1), t.substr(last + 1)};
  if (op.overload == "default") op.overload.clear();
  return op;
}

}  // namespace

std::optional<c10::OperatorHandle> findOperator(const std::string& target) {
  const auto op = parse(target);
  if (!op) return std::nullopt;
  if (auto found = c10::Dispatcher::singleton().findSchema({op->name, op->overload})) return found;
  return pythonOperator(op->name, op->overload);  // an op defined in the Python the user named, if any
}

std::string operatorProblem(const std::string& target) {
  const auto op = parse(target);
  return op ? pythonOperatorProblem(op->name, op->overload) : std::string();
}

std::string qualifiedOperatorName(const std::string& target) {
  const auto op = parse(target);
  if (!op) return target.rfind("torch.ops.", 0) == 0 ? target.substr(10) : target;
  return op->overload.empty() ? op->name : op->name + "." + op->overload;
}

bool isHigherOrderTarget(const std::string& target) {
  if (!target.empty() && target.find('.') == std::string::npos && target.front() != '<') return true;
  return target.find("higher_order.") != std::string::npos;
}

}  // namespace torchir
