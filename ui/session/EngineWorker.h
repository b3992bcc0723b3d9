#pragma once
// The one queue onto the engine thread: the GUI posts a job (a function of the debugger), tagged
// with the program's generation and a command id; the job runs on the engine thread and replies
// with functions that run on the GUI thread, unless the program changed in between. Every feature
// is a job: none needs a method here, a signal, or a relay of its own.
#include <QObject>
#include <QThread>
#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <set>

#include "debug/Debugger.h"
#include "session/ExecMetaTypes.h"

namespace torchir::ui {

/// What the GUI thread shares with the engine thread while a job runs. Only atomics and one
/// mutex that either side holds just long enough to copy a set, never while a node runs.
struct EngineControls {
  /// The program the GUI wants: work for an older one is skipped or stops between two nodes, and
  /// its replies are dropped.
  std::atomic<quint64> generation{0};
  /// Jobs with a command id up to this one stop between two nodes (Stop). An id rather than a
  /// flag, so a stop that arrives after its job ended cannot cancel the next one.
  std::atomic<quint64> cancelUpTo{0};
  /// A command's report carries the output of the node its stop shows (the tensor dock, on
  /// screen, shows it at once).
  std::atomic<bool> carryShownTensor{true};

  void setBreakpoints(std::set<torchir::NodeId> nodes);
  /// The breakpoints, if they changed since `version`, which is then updated.
  bool breakpointsSince(quint64& version, std::set<torchir::NodeId>& out);

 private:
  std::atomic<quint64> m_breakpointsVersion{0};
  std::mutex m_mutex;
  std::set<torchir::NodeId> m_breakpoints;
};

using EngineCommand = torchir::DebugCommand;

/// The run's state after some work: the records of the nodes that ran since the previous report,
/// and, once the job ended, how.
struct EngineReport {
  torchir::DebugProgress progress;
  bool ended = false;  // else: a report while the job runs
  torchir::DebugOutcome outcome;
  /// Once ended: the first output of the node the stop shows, when it is a tensor the engine holds,
  /// so the views need not ask for it again.
  torchir::ValueId shownValue = torchir::kNone;
  std::optional<torchir::TensorData> shownTensor;
};
/// Not const: its one receiver moves the records out rather than copying 70k shared pointers.
using EngineReportPtr = std::shared_ptr<EngineReport>;

class EngineWorker;

/// A job's view of the engine, on the engine thread.
class EngineJob {
 public:
  EngineJob(EngineWorker& worker, quint64 generation, quint64 commandId);
  ~EngineJob();

  bool hasDebugger() const;
  torchir::Debugger& debugger();
  /// The job's debugger from now on (null: none); the old one goes first.
  void setDebugger(std::unique_ptr<torchir::Debugger> debugger);

  /// For the run loop: Stop or a newer program cancels between two nodes. With `progress` (which
  /// runs on the GUI thread), breakpoints set while the job runs take effect at the next node and
  /// a report of the records so far goes to it now and then.
  torchir::RunObserver* observer(std::function<void(EngineReportPtr)> progress = {});
  /// Stop was asked for this job, or another program was opened.
  bool stopped() const;
  /// Whether another program was opened since the job was posted, asked at any time from any
  /// thread (it outlives the job).
  std::function<bool()> abandoned() const;
  /// The records since the last report, and the job's end when `outcome` is given.
  EngineReportPtr report(std::optional<torchir::DebugOutcome> outcome = std::nullopt);
  /// Runs `onGui` on the GUI thread, unless the program changed by then; with `context`, unless
  /// that object (the feature that asked) is gone by then too (Qt drops a call whose context is
  /// deleted after it was posted). The context must outlive the job's post: an object that may be
  /// deleted while the job runs (a dialog) replies without one and checks a QPointer instead.
  void reply(std::function<void()> onGui) const;
  void reply(QObject* context, std::function<void()> onGui) const;

  quint64 generation() const { return m_generation; }

 private:
  class Observer;
  void syncBreakpoints();
  EngineWorker& m_worker;
  quint64 m_generation, m_commandId;
  std::unique_ptr<Observer> m_observer;
};

using EngineJobFn = std::function<void(EngineJob&)>;

/// Owns the debugger and runs the jobs posted to it, in order, on the thread it lives on.
class EngineWorker : public QObject {
  Q_OBJECT

 public:
  /// `gui`: where replies run (they are dropped once it is gone).
  EngineWorker(std::shared_ptr<EngineControls> controls, QObject* gui);
  ~EngineWorker() override;

  /// Queues `job` for the engine thread, tagged with the program's `generation` and the command
  /// `commandId` (Stop cancels it; 0: no command). Skipped when another program was opened before
  /// it runs, or when it `needsDebugger` and none was started. From any thread.
  void post(quint64 generation, quint64 commandId, EngineJobFn job, bool needsDebugger = true);

 private:
  friend class EngineJob;
  void runJob(quint64 generation, quint64 commandId, const EngineJobFn& job, bool needsDebugger);

  std::shared_ptr<EngineControls> m_controls;
  QObject* m_gui;
  std::unique_ptr<torchir::Debugger> m_debugger;
  quint64 m_breakpointsVersion = 0;
};

/// The engine thread and its worker, made with the studio's run and joined with it; the controls
/// the GUI shares with it.
class EngineQueue {
 public:
  /// `gui`: where replies run.
  explicit EngineQueue(QObject* gui);
  /// Cancels every job and joins the thread. A node already running is allowed to finish:
  /// libtorch cannot be interrupted inside an op.
  ~EngineQueue();

  EngineControls& controls() { return *m_controls; }
  /// EngineWorker::post.
  void post(quint64 generation, quint64 commandId, EngineJobFn job, bool needsDebugger = true) {
    m_worker->post(generation, commandId, std::move(job), needsDebugger);
  }

 private:
  std::shared_ptr<EngineControls> m_controls = std::make_shared<EngineControls>();
  QThread m_thread;
  EngineWorker* m_worker = nullptr;  // lives on m_thread, deleted when the thread finishes
};

}  // namespace torchir::ui

Q_DECLARE_METATYPE(torchir::ui::EngineReportPtr)
