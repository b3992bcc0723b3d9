#pragma once
// Messages for the status bar and error labels, which have room for one line.
#include <QString>

namespace torchir::ui {

/// `text` with its line breaks and runs of white space made single spaces.
inline QString oneLine(QString text) {
  text.replace(QLatin1Char('\n'), QLatin1Char(' '));
  return text.simplified();
}

}  // namespace torchir::ui
