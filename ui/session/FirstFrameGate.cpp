#include "session/FirstFrameGate.h"

#include <QEvent>
#include <QWindow>
#include <utility>

namespace torchir::ui {

FirstFrameGate::FirstFrameGate(QWidget* window) : QObject(window), m_window(window) {
  m_fallback.setSingleShot(true);
  m_fallback.setInterval(kFallbackMs);
  connect(&m_fallback, &QTimer::timeout, this, &FirstFrameGate::open);
}

void FirstFrameGate::run(std::function<void()> work) {
  if (m_open) return work();
  if (!m_held.empty()) return m_held.push_back(std::move(work));  // after those, in order
  QWindow* handle = m_window ? m_window->windowHandle() : nullptr;
  if (!m_window || !m_window->isVisible() || !handle) return work();  // no frame to wait for yet
  if (handle->isExposed()) {  // painted already
    open();
    return work();
  }
  m_held.push_back(std::move(work));
  handle->installEventFilter(this);
  m_fallback.start();
}

bool FirstFrameGate::eventFilter(QObject* watched, QEvent* event) {
  // The window paints its first frame while it handles this expose: what is held runs after it.
  if (event->type() == QEvent::Expose && static_cast<QWindow*>(watched)->isExposed())
    QTimer::singleShot(0, this, &FirstFrameGate::open);
  return false;
}

void FirstFrameGate::open() {
  if (m_open) return;
  m_open = true;
  m_fallback.stop();
  if (m_window && m_window->windowHandle()) m_window->windowHandle()->removeEventFilter(this);
  for (auto& work : std::exchange(m_held, {})) work();
}

}  // namespace torchir::ui
