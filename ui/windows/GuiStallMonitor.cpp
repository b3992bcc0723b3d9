#include "windows/GuiStallMonitor.h"

#include <algorithm>
#include <cstdio>
#include <ctime>

namespace torchir::ui {

GuiStallMonitor::GuiStallMonitor(QObject* parent, int intervalMs)
    : QObject(parent),
      m_intervalMs(intervalMs),
      m_traceFromMs(qEnvironmentVariableIntValue("TORCHIR_STALL_TRACE")) {
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
  if (m_traceFromMs > 0 && gapMs >= m_traceFromMs) {
    timespec wall{};
    clock_gettime(CLOCK_MONOTONIC, &wall);
    const double end = static_cast<double>(wall.tv_sec) + static_cast<double>(wall.tv_nsec) / 1e9;
    std::fprintf(stderr, "stall %.1f ms, monotonic %.6f,%.6f\n", gapMs, end - gapMs / 1000, end);
  }
  m_lastNs = now;
}

}  // namespace torchir::ui
