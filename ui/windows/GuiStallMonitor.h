#pragma once
#include <QElapsedTimer>
#include <QObject>
#include <QTimer>

namespace torchir::ui {

/// Measures how long the GUI thread's event loop goes without turning: a timer that should fire
/// every few milliseconds records the longest gap between two firings. A gap is time the window could
/// not repaint or answer input, whatever blocked it.
/// With TORCHIR_STALL_TRACE=N in the environment, each stall of N ms or more is printed to stderr
/// with its CLOCK_MONOTONIC start and end: what `perf report --time` takes, for a `perf record -k
/// CLOCK_MONOTONIC` of the same run, to show what the GUI thread did meanwhile.
class GuiStallMonitor : public QObject {
  Q_OBJECT

 public:
  explicit GuiStallMonitor(QObject* parent = nullptr, int intervalMs = 5);
  void start();
  void stop();
  /// Longest gap since start() beyond the timer's own interval, in milliseconds.
  double longestStallMs() const { return m_longestMs; }
  void resetLongest() { m_longestMs = 0; }

 private:
  void tick();

  QTimer m_timer;
  QElapsedTimer m_clock;
  qint64 m_lastNs = 0;
  int m_intervalMs;
  int m_traceFromMs;  // 0: no trace
  double m_longestMs = 0;
};

}  // namespace torchir::ui
