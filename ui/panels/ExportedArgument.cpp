#include "panels/ExportedArgument.h"

namespace torchir::ui {

ExportedArgumentText exportedArgumentText(const torchir::ArgumentText& text, const torchir::NodeArgument& argument) {
  const std::string_view type = torchir::argumentTypeName(argument.arg);
  return {QString::fromUtf8(type.data(), static_cast<qsizetype>(type.size())), QString::fromStdString(text(argument.arg))};
}

}  // namespace torchir::ui
