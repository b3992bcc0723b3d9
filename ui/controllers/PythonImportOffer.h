#pragma once
// An op defined in Python that the Python named does not define, in a module the program points
// to whose source defines it: the diagnosis offers "Import MODULE and run". A click remembers the
// module for this program (Preferences' modules are every program's) and runs it again with the
// worker importing it. A program never imports anything by itself: only the click does.
#include <QObject>
#include <QString>

#include "exec/Session.h"
#include "session/LoadedProgram.h"

class QStatusBar;

namespace torchir::ui {

class DiagnosisPanel;
class SessionController;
struct StudioContext;

class PythonImportOffer : public QObject {
  Q_OBJECT

 public:
  PythonImportOffer(const StudioContext& studio, DiagnosisPanel* diagnosis);

 private:
  void onStopped(torchir::StopReason reason);
  void importAndRun(const QString& module);

  SessionController* m_session;
  DiagnosisPanel* m_diagnosis;
  QStatusBar* m_status;
  /// The program whose session started again for an import: run once that start is Ready, and
  /// forgotten at whatever state follows the start (another program, a failed start).
  LoadedProgramPtr m_runWhenReady;
};

}  // namespace torchir::ui
