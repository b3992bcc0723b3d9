#include "FxNames.h"

#include <cctype>

namespace torchir {

std::string displayTarget(const std::string& serialized) {
  static const std::string ops = "torch.ops.";
  if (serialized.rfind(ops, 0) == 0) {
    std::string t = serialized.substr(ops.size());
    if (t.rfind("higher_order.", 0) == 0) return t.substr(13);
    return t;
  }
  // ExecuTorch's Edge dialect: ATen's (and other libraries') ops with their schemas unchanged
  static const std::string edge = "executorch.exir.dialects.edge.ops.";
  if (serialized.rfind(edge, 0) == 0) return serialized.substr(edge.size());
  for (const char* module : {"_operator.", "math."})
    if (serialized.rfind(module, 0) == 0) return "<built-in function " + serialized.substr(std::string(module).size()) + ">";
  return serialized;
}

std::string fxDefaultName(const std::string& target) {
  const auto first = target.find('.');
  const std::string op = first != std::string::npos && target.find('.', first + 1) != std::string::npos
                             ? target.substr(first + 1)
                             : target;
  std::string name;
  bool illegalRun = false;
  for (std::size_t i = 0; i < op.size(); ++i) {
    const char c = op[i];
    const bool legal = std::isalnum(static_cast<unsigned char>(c)) || c == '_';
    if (!legal) {
      if (!illegalRun) name += '_';
      illegalRun = true;
      continue;
    }
    illegalRun = false;
    if (std::isupper(static_cast<unsigned char>(c)) && i > 0 && std::islower(static_cast<unsigned char>(op[i - 1]))) name += '_';
    name += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  if (name.empty()) return "_unnamed";
  if (std::isdigit(static_cast<unsigned char>(name[0]))) name.insert(0, "_");
  return name;
}

std::string_view UniqueNames::nameOf(int32_t id) const {
  const auto& [offset, length] = m_spans[static_cast<std::size_t>(id)];
  return std::string_view(m_text).substr(offset, length);
}

std::string UniqueNames::take(const std::string& name) {
  std::string candidate = name;
  if (taken(candidate)) {
    std::size_t& k = m_nextSuffix[name];
    do candidate = name + "_" + std::to_string(++k);
    while (taken(candidate));
  }
  m_spans.emplace_back(m_text.size(), candidate.size());
  m_text += candidate;
  m_index.insert(static_cast<int32_t>(m_spans.size() - 1));
  return candidate;
}

}  // namespace torchir
