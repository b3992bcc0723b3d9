#pragma once
// The files a user hands the studio: by File › Open, File › Supply Weights, or dropped on it.
#include <QString>

class QMimeData;
class QWidget;

namespace torchir::ui {

/// A .capture file: its program is named inside it.
bool isCaptureFile(const QString& path);
/// The program (or capture) to open, asked in the shown program's folder (`shownPath`), else the
/// folder last opened from; empty when the user cancels.
QString askProgramPath(QWidget* parent, const QString& shownPath);
/// Weights (.safetensors or torch.save) for the program at `programPath`; empty when cancelled.
QString askWeightsPath(QWidget* parent, const QString& programPath);
/// The first local file among dropped data that the studio opens; empty when there is none.
QString droppedProgramPath(const QMimeData* mime);

}  // namespace torchir::ui
