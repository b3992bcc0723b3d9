#include "session/EngineWorker.h"

#include "exec/ThreadPriority.h"
#include "session/RunState.h"

#include <chrono>
#include <limits>
#include <utility>

namespace torchir::ui {

namespace {

// Progress reports copy records to the GUI thread; more often than this buys nothing visible.
constexpr std::chrono::milliseconds kReportInterval{50};

}  // namespace

void EngineControls::setBreakpoints(std::set<torchir::NodeId> nodes) {
  {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_breakpoints = std::move(nodes);
  }
  ++m_breakpointsVersion;
}

bool EngineControls::breakpointsSince(quint64& version, std::set<torchir::NodeId>& out) {
  const quint64 now = m_breakpointsVersion.load();
  if (now == version) return false;
  std::lock_guard<std::mutex> lock(m_mutex);
  out = m_breakpoints;
  version = now;
  return true;
}

/// The studio's side of the session's run loop: a Stop or a newer program cancels it (inside
/// subgraphs too), breakpoints set while it runs take effect at the next node, and the GUI hears
/// of progress now and then.
class EngineJob::Observer final : public torchir::RunObserver {
 public:
  Observer(EngineJob& job, std::function<void(EngineReportPtr)> progress)
      : m_job(job), m_progress(std::move(progress)), m_lastReport(Clock::now()) {}

  // Asked before every node, a subgraph's too: a while_loop of a million iterations still reports
  // that it is alive, and where it stands.
  bool cancelled() override {
    reportNowAndThen();
    return m_job.stopped();
  }
  void beforeNode(torchir::NodeId) override {
    if (m_progress) m_job.syncBreakpoints();
  }
  bool afterNode(torchir::NodeId, torchir::Diagnosis&) override {
    reportNowAndThen();
    return false;
  }

 private:
  void reportNowAndThen() {
    if (!m_progress || Clock::now() - m_lastReport < kReportInterval) return;
    m_job.reply([progress = m_progress, report = m_job.report()] { progress(report); });
    m_lastReport = Clock::now();
  }

  using Clock = std::chrono::steady_clock;
  EngineJob& m_job;
  std::function<void(EngineReportPtr)> m_progress;
  Clock::time_point m_lastReport;
};

EngineJob::EngineJob(EngineWorker& worker, quint64 generation, quint64 commandId)
    : m_worker(worker), m_generation(generation), m_commandId(commandId) {}

EngineJob::~EngineJob() = default;

bool EngineJob::hasDebugger() const { return m_worker.m_debugger != nullptr; }
torchir::Debugger& EngineJob::debugger() { return *m_worker.m_debugger; }

void EngineJob::setDebugger(std::unique_ptr<torchir::Debugger> debugger) {
  m_worker.m_debugger.reset();  // its session refers to its program: gone before the next is made
  m_worker.m_debugger = std::move(debugger);
  m_worker.m_breakpointsVersion = 0;
}

torchir::RunObserver* EngineJob::observer(std::function<void(EngineReportPtr)> progress) {
  if (progress) syncBreakpoints();
  m_observer = std::make_unique<Observer>(*this, std::move(progress));
  return m_observer.get();
}

void EngineJob::syncBreakpoints() {
  std::set<torchir::NodeId> breakpoints;
  if (hasDebugger() && m_worker.m_controls->breakpointsSince(m_worker.m_breakpointsVersion, breakpoints))
    debugger().session().setBreakpoints(breakpoints);
}

bool EngineJob::stopped() const {
  const EngineControls& c = *m_worker.m_controls;
  return (m_commandId != 0 && c.cancelUpTo.load() >= m_commandId) || c.generation.load() != m_generation;
}

std::function<bool()> EngineJob::abandoned() const {
  return [controls = m_worker.m_controls, generation = m_generation] { return controls->generation.load() != generation; };
}

EngineReportPtr EngineJob::report(std::optional<torchir::DebugOutcome> outcome) {
  auto r = std::make_shared<EngineReport>();
  r->progress = debugger().takeProgress();
  r->ended = outcome.has_value();
  if (outcome) r->outcome = std::move(*outcome);
  return r;
}

void EngineJob::reply(std::function<void()> onGui) const { reply(m_worker.m_gui, std::move(onGui)); }

void EngineJob::reply(QObject* context, std::function<void()> onGui) const {
  auto controls = m_worker.m_controls;
  QMetaObject::invokeMethod(
      context,
      [controls, generation = m_generation, onGui = std::move(onGui)] {
        if (generation == controls->generation.load()) onGui();
      },
      Qt::QueuedConnection);
}

EngineWorker::EngineWorker(std::shared_ptr<EngineControls> controls, QObject* gui)
    : m_controls(std::move(controls)), m_gui(gui) {}

EngineWorker::~EngineWorker() = default;

void EngineWorker::post(quint64 generation, quint64 commandId, EngineJobFn job, bool needsDebugger) {
  QMetaObject::invokeMethod(
      this, [=, this] { runJob(generation, commandId, job, needsDebugger); }, Qt::QueuedConnection);
}

void EngineWorker::runJob(quint64 generation, quint64 commandId, const EngineJobFn& job, bool needsDebugger) {
  // Opening A then B quickly should not make B wait for A's work.
  if (generation != m_controls->generation.load() || (needsDebugger && !m_debugger)) return;
  EngineJob context(*this, generation, commandId);
  job(context);
}

EngineQueue::EngineQueue(QObject* gui) {
  // Engine results cross threads through queued connections, which copy arguments by metatype.
  qRegisterMetaType<torchir::ui::EngineReportPtr>();
  qRegisterMetaType<torchir::ui::RunState>();
  qRegisterMetaType<torchir::Diagnosis>();
  qRegisterMetaType<torchir::TensorData>();
  qRegisterMetaType<torchir::StopReason>();
  qRegisterMetaType<std::vector<torchir::Problem>>();
  qRegisterMetaType<torchir::PatchTrial>();
  qRegisterMetaType<std::vector<torchir::ArgumentPatch>>();
  m_worker = new EngineWorker(m_controls, gui);
  m_worker->moveToThread(&m_thread);
  QObject::connect(&m_thread, &QThread::finished, m_worker, &QObject::deleteLater);
  // the run and its reference (and the threads they start) give way to the window
  QObject::connect(&m_thread, &QThread::started, m_worker, [] { torchir::lowerThisThreadPriority(); });
  m_thread.setObjectName(QStringLiteral("torchir-engine"));
  m_thread.start();
}

EngineQueue::~EngineQueue() {
  // A new generation stops a run between two nodes; queued work not yet started is skipped.
  m_controls->generation = std::numeric_limits<quint64>::max();
  m_controls->cancelUpTo = std::numeric_limits<quint64>::max();
  m_thread.quit();
  m_thread.wait();
}

}  // namespace torchir::ui
