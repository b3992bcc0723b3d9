#pragma once
// A device's run over the program, in the studio: File › Attach ETDump on a program opened from an
// ExecuTorch ETRecord compares each value the device logged with the program's (core/device) and
// shows it as the run's comparison: each instruction's latency on its node's box and in the table,
// the nodes coloured by how far the device is, the first diverging one selected, the device's value
// beside the program's in the tensor dock. Compare › Run to First Divergence runs the program up to
// that node, to step into it.
#include <QObject>
#include <QString>

class QAction;
class QMainWindow;
class QStatusBar;

namespace torchir::ui {

struct StudioContext;
class SessionController;

class DeviceRunOverlay : public QObject {
  Q_OBJECT

 public:
  explicit DeviceRunOverlay(const StudioContext& studio);

  QAction* attachAction() const { return m_attach; }
  QAction* runToDivergenceAction() const { return m_runToDivergence; }
  /// Compares the device's run in `etdump` (its values in `debugBuffer`; empty: NAME.debug.bin
  /// beside the ETDump when there is one, else latencies only) with the program shown, on the
  /// engine thread. False (nothing started) unless the program was opened from an ETRecord and
  /// nothing runs. The session's comparison changes when it is done; a file that cannot be read
  /// is said in the status bar and leaves the run as it was.
  bool attach(const QString& etdump, const QString& debugBuffer = {});

 Q_SIGNALS:
  /// An attach whose files could not be read ended, with the words the status bar shows.
  void attachFailed(const QString& problem);

 private:
  void chooseEtdump();
  void runToFirstDivergence();
  void updateEnabled();
  bool fromEtRecord() const;

  SessionController* m_session;
  QStatusBar* m_status;
  QMainWindow* m_window;
  QAction* m_attach = nullptr;
  QAction* m_runToDivergence = nullptr;
};

}  // namespace torchir::ui
