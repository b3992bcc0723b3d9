#pragma once
#include <QObject>
#include <QTimer>
#include <utility>

namespace torchir::ui {

/// Calls `f` in a later turn of the event loop, after the paints and input waiting now, unless
/// `context` is gone by then. For work done in slices so that the window paints between them:
/// QTimer::singleShot(0) posts an event instead, and events posted while posted events are being
/// delivered are delivered in the same turn, so such slices ran back to back.
template <typename F>
void inNextTurn(QObject* context, F f) {
  auto* timer = new QTimer(context);
  timer->setSingleShot(true);
  QObject::connect(timer, &QTimer::timeout, context, [timer, f = std::move(f)]() mutable {
    timer->deleteLater();
    f();
  });
  timer->start(0);
}

}  // namespace torchir::ui
