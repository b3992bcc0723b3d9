#include "windows/GuiStallMonitor.h"

#include <algorithm>

namespace torchir::ui {

GuiStallMonitor::GuiStallMonitor(QObject* parent, int intervalMs) : QObject(parent), m_intervalMs(intervalMs) {
  m_timer.setTimerType(Qt::PreciseTimer);
  m_timer.setInterval(intervalMs);
  connect(&m_timer, &QTimer::timeout, this, &GuiStallMonitor::tick);
}

void GuiStallMonitor::start() {
  m_longestMs = 0;
  m_clock.start();
  m_lastNs = 0;
  m_timer.start();
}

void GuiStallMonitor::stop() { m_timer.stop(); }

void GuiStallMonitor::tick() {
  const qint64 now = m_clock.nsecsElapsed();
  const double gapMs = static_cast<double>(now - m_lastNs) / 1e6 - m_intervalMs;
  m_longestMs = std::max(m_longestMs, gapMs);
  m_lastNs = now;
}

}  // namespace torchir::ui
