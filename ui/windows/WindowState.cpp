#include "windows/WindowState.h"

#include <QDockWidget>
#include <QMainWindow>
#include <QScreen>
#include <QSettings>
#include <QSplitter>
#include <QTimer>

namespace torchir::ui {

namespace {
const QString kGeometryKey = QStringLiteral("mainWindow/geometry");
const QString kStateKey = QStringLiteral("mainWindow/state");
const QString kSplitterKey = QStringLiteral("mainWindow/splitter");
}  // namespace

void restoreWindowState(QMainWindow* window, QSplitter* splitter, QDockWidget* upper, QDockWidget* lower) {
  QSettings settings;
  if (!window->restoreGeometry(settings.value(kGeometryKey).toByteArray())) {
    QSize size(1400, 860);
    if (const QScreen* screen = window->screen()) size = size.boundedTo(screen->availableSize() * 0.9);
    window->resize(size);
  }
  if (!window->restoreState(settings.value(kStateKey).toByteArray())) {
    // After the first show, when sizes are real.
    QTimer::singleShot(0, window, [window, splitter, upper, lower] {
      window->resizeDocks({upper}, {window->width() * 2 / 7}, Qt::Horizontal);
      splitter->setSizes({splitter->width() / 2, splitter->width() / 2});
      window->resizeDocks({upper, lower}, {window->height() * 2 / 5, window->height() * 3 / 5}, Qt::Vertical);
    });
  }
  splitter->restoreState(settings.value(kSplitterKey).toByteArray());
}

void saveWindowState(const QMainWindow* window, const QSplitter* splitter) {
  QSettings settings;
  settings.setValue(kGeometryKey, window->saveGeometry());
  settings.setValue(kStateKey, window->saveState());
  settings.setValue(kSplitterKey, splitter->saveState());
}

}  // namespace torchir::ui
