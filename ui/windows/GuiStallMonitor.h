#pragma once
#include <QElapsedTimer>
#include <QObject>
#include <QTimer>

namespace torchir::ui {

/// Measures how long the GUI thread's event loop goes without turning: a timer that should fire
/// every few milliseconds records the longest gap between two firings. A gap is time the window could
/// not repaint or answer input, whatever blocked it.
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
  double m_longestMs = 0;
};

}  // namespace torchir::ui
