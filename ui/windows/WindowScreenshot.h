#pragma once
#include <QString>

class QWidget;

namespace torchir::ui {

/// Once pending layout and paint events have run, saves `window` to the PNG at `path` and
/// exits the application with `exitCode` (2 when the PNG cannot be written). For scripts.
void grabWindowAndExit(QWidget* window, const QString& path, int exitCode);

}  // namespace torchir::ui
