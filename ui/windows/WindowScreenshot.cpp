#include "windows/WindowScreenshot.h"

#include <QCoreApplication>
#include <QPixmap>
#include <QPointer>
#include <QTimer>
#include <QWidget>
#include <cstdio>

namespace torchir::ui {

namespace {
// Long enough for the model reset, column sizing and first paint to settle under Xvfb.
constexpr int kSettleMs = 300;
}  // namespace

void grabWindowAndExit(QWidget* window, const QString& path, int exitCode) {
  QPointer<QWidget> guarded(window);
  QTimer::singleShot(kSettleMs, [guarded, path, exitCode] {
    if (!guarded) {
      QCoreApplication::exit(2);
      return;
    }
    if (!guarded->grab().save(path, "PNG")) {
      std::fprintf(stderr, "torchir-studio: cannot write screenshot %s\n", qPrintable(path));
      QCoreApplication::exit(2);
      return;
    }
    QCoreApplication::exit(exitCode);
  });
}

}  // namespace torchir::ui
