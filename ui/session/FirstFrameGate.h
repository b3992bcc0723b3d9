#pragma once
#include <QObject>
#include <QPointer>
#include <QTimer>
#include <QWidget>
#include <functional>
#include <vector>

namespace torchir::ui {

/// Holds work back until a window's first frame is painted. A launch shows the window and opens
/// its program at once: read beside the first paint (fonts, a fresh backing store), the reader's
/// threads made that paint the longest stall of the launch. Work goes through at once while the
/// window is not shown (a later show holds the next work) or once it has painted, and after
/// kFallbackMs if it is shown but never paints.
class FirstFrameGate : public QObject {
 public:
  explicit FirstFrameGate(QWidget* window);

  /// Runs `work` now, or once the window's first frame is painted, in the order given.
  void run(std::function<void()> work);

 private:
  static constexpr int kFallbackMs = 250;

  bool eventFilter(QObject* watched, QEvent* event) override;
  void open();

  QPointer<QWidget> m_window;
  bool m_open = false;
  QTimer m_fallback;
  std::vector<std::function<void()>> m_held;
};

}  // namespace torchir::ui
