#pragma once
// A node's argument as the export recorded it, before anything ran: what the arguments view shows
// for a node the run has not reached (no schema types or defaults yet: those come from libtorch).
#include <QString>

#include "program/ArgumentText.h"

namespace torchir::ui {

struct ExportedArgumentText {
  QString type;   // "Tensor", "int[]", "float", ... from the argument's serialized kind
  QString value;  // its Python text, as the FX table shows it: 1, [1, 1], True, torch.float32, a node's name
};

ExportedArgumentText exportedArgumentText(const torchir::ArgumentText& text, const torchir::NodeArgument& argument);

}  // namespace torchir::ui
