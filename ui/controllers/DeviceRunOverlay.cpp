#include "controllers/DeviceRunOverlay.h"

#include <QAction>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QMainWindow>
#include <QStatusBar>
#include <map>

#include "debug/Debugger.h"
#include "device/DeviceComparison.h"
#include "device/DeviceRecord.h"
#include "executorch/EtDump.h"
#include "executorch/EtRecord.h"
#include "executorch/PteProgram.h"
#include "program/LoadError.h"
#include "session/OneLine.h"
#include "session/SessionController.h"
#include "session/StudioContext.h"

namespace torchir::ui {
namespace {

torchir::DebugOutcome failed(const std::string& message) {
  torchir::DebugOutcome o;
  o.command = torchir::DebugCommand::Compare;
  o.reason = torchir::StopReason::Failed;
  o.diagnosis.kind = torchir::DiagnosisClass::RuntimeError;
  o.diagnosis.message = message;
  return o;
}

}  // namespace

DeviceRunOverlay::DeviceRunOverlay(const StudioContext& studio)
    : QObject(&studio.window), m_session(&studio.session), m_status(&studio.status), m_window(&studio.window) {
  m_attach = new QAction(tr("Attach &ETDump…"), this);
  m_attach->setObjectName(QStringLiteral("actionAttachEtdump"));
  m_attach->setStatusTip(tr("Compare an ExecuTorch device's run (its ETDump and debug buffer) with the program opened "
                            "from its ETRecord: each instruction's values and latency on its node"));
  connect(m_attach, &QAction::triggered, this, &DeviceRunOverlay::chooseEtdump);
  m_runToDivergence = new QAction(tr("Run to First &Divergence"), this);
  m_runToDivergence->setObjectName(QStringLiteral("actionRunToFirstDivergence"));
  m_runToDivergence->setStatusTip(tr("Run the program from its start up to the first node where the device's values part "
                                     "from it, keeping the comparison"));
  connect(m_runToDivergence, &QAction::triggered, this, &DeviceRunOverlay::runToFirstDivergence);
  connect(m_session, &SessionController::stateChanged, this, &DeviceRunOverlay::updateEnabled);
  connect(m_session, &SessionController::comparisonChanged, this, &DeviceRunOverlay::updateEnabled);
  updateEnabled();
}

bool DeviceRunOverlay::fromEtRecord() const {
  const auto program = m_session->program();
  return program && program->program.source.format == "etrecord";
}

void DeviceRunOverlay::updateEnabled() {
  m_attach->setEnabled(fromEtRecord() && m_session->resting());
  const ComparisonPtr c = m_session->comparison();
  m_runToDivergence->setEnabled(c && c->device && c->firstDivergingNode() && m_session->resting());
}

void DeviceRunOverlay::chooseEtdump() {
  if (!fromEtRecord()) return;
  const QString etdump = QFileDialog::getOpenFileName(m_window, tr("Attach ETDump"), QFileInfo(m_session->program()->request.path).path(),
                                                      tr("ETDumps (*.etdp *.etdump);;All files (*)"));
  if (etdump.isEmpty()) return;
  QString buffer = QString::fromStdString(torchir::debugBufferBeside(etdump.toStdString()));
  if (buffer.isEmpty())
    buffer = QFileDialog::getOpenFileName(m_window, tr("The ETDump's Debug Buffer (Cancel: latencies only)"),
                                          QFileInfo(etdump).path(), tr("Debug buffers (*.bin);;All files (*)"));
  attach(etdump, buffer);
}

void DeviceRunOverlay::attach(const QString& etdump, const QString& debugBuffer) {
  if (!fromEtRecord() || !m_session->resting()) return;
  const std::string record = m_session->program()->program.source.path;  // the ETRecord, also when a .pte was opened
  const std::string dumpPath = etdump.toStdString();
  const std::string bufferPath =
      debugBuffer.isEmpty() ? torchir::debugBufferBeside(etdump.toStdString()) : debugBuffer.toStdString();
  const std::string ptePath = torchir::pteFor(QFile::encodeName(m_session->program()->request.path).toStdString(), record);
  m_status->showMessage(tr("Comparing the device's run in %1 with the program… (Stop cancels)").arg(QFileInfo(etdump).fileName()));
  // the files are read and the program run on the engine thread: none of it waits on the window
  m_session->runCommand(
      [record, dumpPath, bufferPath, ptePath](EngineJob& job, torchir::RunObserver* observer) -> std::optional<torchir::DebugOutcome> {
        try {
          const torchir::EtRecord etrecord = torchir::readEtRecord(record);
          const torchir::EtDump dump = torchir::readEtDump(dumpPath, bufferPath);
          std::optional<torchir::PteProgram> pte;
          if (!ptePath.empty()) pte = torchir::readPte(ptePath);
          const torchir::DeviceComparison c = torchir::compareDevice(job.debugger(), etrecord, dump, pte ? &*pte : nullptr, observer);
          const std::string name = QFileInfo(QString::fromStdString(dumpPath)).fileName().toStdString();
          torchir::DebugOutcome o;
          o.command = torchir::DebugCommand::Compare;
          o.reason = torchir::StopReason::Finished;
          o.comparison = torchir::adoptDeviceComparison(job.debugger(), c, "device run " + name);
          return o;
        } catch (const torchir::LoadError& e) {
          return failed(e.what());
        } catch (const std::exception& e) {
          return failed(std::string("the device's run was not compared: ") + e.what());
        }
      },
      /*progress=*/false);
}

void DeviceRunOverlay::runToFirstDivergence() {
  const ComparisonPtr c = m_session->comparison();
  if (!c || !c->device || !c->firstDivergingNode() || !m_session->resting()) return;
  const torchir::NodeId node = c->firstDivergingNode()->a;
  // the run from its start up to the node; the comparison describes the same run of the same
  // program on the same inputs, so it is shown again with it
  m_session->runCommand([node](EngineJob& job, torchir::RunObserver* observer) -> std::optional<torchir::DebugOutcome> {
    torchir::Debugger& debugger = job.debugger();
    const auto record = debugger.comparison();
    std::map<torchir::NodeId, torchir::TensorData> values;
    for (const auto& n : record->nodes)
      if (auto v = debugger.compared(n.a).run) values.emplace(n.a, std::move(*v));
    debugger.execute(torchir::DebugCommand::Reset, torchir::kNone, {}, observer);
    torchir::DebugOutcome o = debugger.execute(torchir::DebugCommand::RunUpTo, node, {}, observer);
    debugger.adoptComparison(record, std::move(values));
    o.command = torchir::DebugCommand::Compare;
    o.comparison = record;
    return o;
  });
}

}  // namespace torchir::ui
