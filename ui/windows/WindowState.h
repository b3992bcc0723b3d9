#pragma once
// The window's layout as the user left it, kept in QSettings across runs.
class QDockWidget;
class QMainWindow;
class QSplitter;

namespace torchir::ui {

/// Geometry, docks and the graph/table splitter as saved. At the first start: 1400x860 at most
/// (90% of the screen), the dock column at 2/7 of the width with `upper` over `lower`, and the
/// splitter in halves, which the FX table's five columns need to be read.
void restoreWindowState(QMainWindow* window, QSplitter* splitter, QDockWidget* upper, QDockWidget* lower);
void saveWindowState(const QMainWindow* window, const QSplitter* splitter);

}  // namespace torchir::ui
