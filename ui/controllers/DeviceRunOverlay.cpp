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
  // the ETDump, and its debug buffer where it is not beside it (NAME.debug.bin): one dialog, one
  // or two files
  const QStringList files = QFileDialog::getOpenFileNames(
      m_window, tr("Attach ETDump (and its debug buffer)"), QFileInfo(m_session->program()->request.path).path(),
      tr("ETDumps and debug buffers (*.etdp *.etdump *.bin);;All files (*)"));
  QString etdump, buffer;
  for (const QString& f : files)
    (f.endsWith(QStringLiteral(".bin")) ? buffer : etdump) = f;
  if (etdump.isEmpty() && files.size() == 1) etdump = files.front();  // an ETDump named .bin
  if (etdump == buffer) buffer.clear();
  if (!etdump.isEmpty()) attach(etdump, buffer);
}

bool DeviceRunOverlay::attach(const QString& etdump, const QString& debugBuffer) {
  if (!fromEtRecord() || !m_session->resting()) return false;
  const std::string opened = QFile::encodeName(m_session->program()->request.path).toStdString();
  const std::string record = m_session->program()->program.source.path;  // the ETRecord, also when a .pte was opened
  const std::string dumpPath = QFile::encodeName(etdump).toStdString();
  const std::string bufferPath = QFile::encodeName(debugBuffer).toStdString();
  const QString name = QFileInfo(etdump).fileName();
  m_status->showMessage(tr("Comparing the device's run in %1 with the program… (Stop cancels)").arg(name));
  // every file is found and read, and the program run, on the engine thread
  m_session->runCommand(
      [this, opened, record, dumpPath, bufferPath, name](EngineJob& job, torchir::RunObserver* observer) -> std::optional<torchir::DebugOutcome> {
        torchir::EtRecord maps;
        torchir::EtDump dump;
        std::optional<torchir::PteProgram> pte;
        try {
          maps = torchir::readEtRecord(record, "", /*withProgram=*/false);
          dump = torchir::readEtDump(dumpPath, bufferPath.empty() ? torchir::debugBufferBeside(dumpPath) : bufferPath);
          if (const std::string ptePath = torchir::pteFor(opened, record); !ptePath.empty()) pte = torchir::readPte(ptePath);
        } catch (const torchir::LoadError& e) {
          const QString text = tr("No comparison with the device: %1").arg(oneLine(QString::fromStdString(e.what())));
          SessionController* session = m_session;
          job.reply(this, [this, session, text] {
            session->commandRanNothing();  // nothing ran: the run stays as it was
            m_status->showMessage(text);
            Q_EMIT attachFailed(text);
          });
          return std::nullopt;
        }
        torchir::DebugOutcome o;
        o.command = torchir::DebugCommand::Compare;
        try {
          const torchir::DeviceComparison c = torchir::compareDevice(job.debugger(), maps, dump, pte ? &*pte : nullptr, observer);
          o.reason = torchir::StopReason::Finished;
          o.comparison = torchir::adoptDeviceComparison(job.debugger(), c, "device run " + name.toStdString());
        } catch (const torchir::DeviceComparisonStopped&) {
          o.reason = torchir::StopReason::Cancelled;
        } catch (const std::exception& e) {
          o = failed(std::string("the device's run was not compared: ") + e.what());
        }
        return o;
      },
      /*progress=*/false);
  return true;
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
    if (!record || !record->device) return std::nullopt;
    auto values = debugger.adoptedValues();  // a copy: the reset forgets them
    debugger.execute(torchir::DebugCommand::Reset, torchir::kNone, {}, observer);
    torchir::DebugOutcome o = debugger.execute(torchir::DebugCommand::RunUpTo, node, {}, observer);
    debugger.adoptComparison(record, std::move(values));
    o.command = torchir::DebugCommand::Compare;
    o.comparison = record;
    return o;
  });
}

}  // namespace torchir::ui
