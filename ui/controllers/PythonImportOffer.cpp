#include "controllers/PythonImportOffer.h"

#include <QMainWindow>
#include <QStatusBar>
#include <utility>

#include "panels/DiagnosisPanel.h"
#include "session/PythonSettings.h"
#include "session/SessionController.h"
#include "session/StudioContext.h"

namespace torchir::ui {

PythonImportOffer::PythonImportOffer(const StudioContext& studio, DiagnosisPanel* diagnosis)
    : QObject(&studio.window), m_session(&studio.session), m_diagnosis(diagnosis), m_status(&studio.status) {
  connect(&studio.session, &SessionController::stopped, this, &PythonImportOffer::onStopped);
  connect(diagnosis, &DiagnosisPanel::importRequested, this, &PythonImportOffer::importAndRun);
  connect(&studio.session, &SessionController::stateChanged, this, [this](RunState state) {
    if (state == RunState::Starting || state == RunState::Empty) m_diagnosis->setImport({});
    if (state == RunState::Starting) return;
    const LoadedProgramPtr restarted = std::exchange(m_runWhenReady, nullptr);
    if (state == RunState::Ready && restarted && restarted == m_session->program()) m_session->continueRun();
  });
}

void PythonImportOffer::onStopped(torchir::StopReason reason) {
  const torchir::Diagnosis& d = m_session->diagnosis();
  const bool offered = reason == torchir::StopReason::Failed && d.kind == torchir::DiagnosisClass::OpNotFound &&
                       !d.pythonImports.empty();
  m_diagnosis->setImport(offered ? QString::fromStdString(d.pythonImports.front()) : QString());
}

void PythonImportOffer::importAndRun(const QString& module) {
  const auto program = m_session->program();
  if (!program || module.isEmpty()) return;
  rememberProgramImport(program->request.path, module);
  m_status->showMessage(tr("Importing %1 for this program, and running it again").arg(module), 6000);
  m_runWhenReady = program;
  // the session starts again with the worker importing it (RunJobs reads the program's modules)
  m_session->setProgram(program, m_session->marks().breakpoints, m_session->call());
}

}  // namespace torchir::ui
