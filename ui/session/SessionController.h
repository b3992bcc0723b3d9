#pragma once
#include <QMetaType>
#include <QObject>
#include <QString>
#include <QThread>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <utility>
#include <set>
#include <vector>

#include "session/Annotations.h"
#include "session/CaptureMapping.h"
#include "session/EngineWorker.h"
#include "session/ExecMetaTypes.h"
#include "session/ExecutionMarks.h"
#include "session/LoadedProgram.h"
#include "session/RunRecords.h"
#include "session/RunState.h"

namespace torchir::ui {

/// The GUI side of one run of the program: a state machine over an engine Session that lives on a
/// thread of its own. Every command returns at once; its outcome arrives by signal, with copies of
/// what the views show (marks, node records, tensors), so the GUI thread never waits on libtorch.
class SessionController : public QObject {
  Q_OBJECT

 public:
  explicit SessionController(QObject* parent = nullptr);
  ~SessionController() override;  // cancels any run and joins the engine thread

  /// Creates the engine session on the engine thread: inputs from request.inputsPath, else the
  /// program's sample inputs, else random inputs with seed 0; a body's, its call `call`. Ready, or
  /// Failed with sessionFailed(), follows. The breakpoints are the program's from the start (e.g.
  /// those stored for its file). A null program is clear().
  void setProgram(torchir::ui::LoadedProgramPtr program, const std::set<torchir::NodeId>& breakpoints = {},
                  std::size_t call = 0);
  /// The body's call the run is of (0 for a program that is no body).
  std::size_t call() const { return m_call; }
  void clear();  // back to Empty

  RunState state() const { return m_state; }
  torchir::ui::LoadedProgramPtr program() const { return m_program; }
  const ExecutionMarks& marks() const { return m_marks; }  // current = session position (kNone when finished)
  /// The GUI-side copy of the node's record; nullptr if it has not run since the last reset.
  const torchir::NodeRecord* record(torchir::NodeId node) const { return m_records.record(node); }
  /// The same, shared: records are never changed once made, so a view may keep them.
  std::shared_ptr<const torchir::NodeRecord> sharedRecord(torchir::NodeId node) const { return m_records.shared(node); }
  /// The node that did work last before `position` (kNone: the end), what a step just did: not the
  /// placeholders, getitems and output a step passes on the way; kNone when none did.
  torchir::NodeId lastWorkBefore(torchir::NodeId position) const { return m_records.lastWorkBefore(position, m_marks); }
  /// The node the last stop shows (nodeAStopShows): where it failed, its breakpoint, what it did.
  torchir::NodeId shownNode() const { return m_shownNode; }
  /// Of the last Failed or StopCondition stop (or of inputs the engine refused), else empty.
  const torchir::Diagnosis& diagnosis() const { return m_diagnosis; }
  /// What would stop a run of the program, found when its session started (none before).
  const std::vector<torchir::Problem>& problems() const { return m_problems; }
  /// "sample inputs from the archive", "inputs from F", "random inputs (seed 0)"; empty before Ready.
  QString inputsDescription() const { return m_inputsDescription; }

  bool canStep() const;
  bool canStepBack() const;
  /// Edit and continue applies to the next node, paused or failed there.
  bool canEditCall() const;
  bool canContinue() const;
  bool canRunTo(torchir::NodeId node) const;
  bool canReset() const { return isStopped(m_state); }
  bool canStop() const;  // while Running or Exporting
  /// With a session and no command running: a comparison starts the run anew.
  bool canCompare() const { return resting(); }

  // Ignored when not allowed in the current state.
  void step();
  void stepBack();  // the last node that ran runs next again (Session::stepBack)
  void continueRun();
  void runTo(torchir::NodeId node);
  void reset();
  void stop();  // the running command stops between two nodes and the run is Paused
  /// A program opened from a capture shows the capture's run (records, marks, notes, the diagnosis)
  /// without running; the first command makes the run again up to there.
  bool fromCapture() const { return m_program && m_program->capture; }

  /// Bookmarks, notes and pins on this program.
  Annotations& annotations() { return m_annotations; }
  const Annotations& annotations() const { return m_annotations; }
  /// The run as the studio holds it, to write as a capture (the engine adds the inputs, the pinned
  /// tensors and the program's identity); null without a program.
  std::shared_ptr<torchir::Capture> capture();
  /// While marksChanged() is emitted for an engine report: the rows [first, end) whose records it
  /// brought (a view need look only at those and at the rows whose marks changed); otherwise
  /// nullopt, any row may have changed.
  std::optional<std::pair<int, int>> changedRecords() const { return m_changedRecords; }
  /// The user's changes to calls, by node, as the engine took them.
  const std::map<torchir::NodeId, std::vector<torchir::ArgumentPatch>>& patches() const { return m_patches; }
  /// Runs the program from the start in lockstep with the reference the request names (Stop
  /// works as for a run); comparisonChanged() follows with the result.
  void compareWith(const torchir::ui::CompareRequest& request);
  /// The last comparison's result; null before one, after a reset, or for another program.
  ComparisonPtr comparison() const { return m_comparison; }
  /// After a comparison stopped (at a divergence, a NaN): runs it on to the next `stop`.
  bool canContinueComparison() const;
  void continueComparison(torchir::CompareStop stop);

  /// What a feature runs on the engine thread as a command: it holds the run (Running until its
  /// report; Stop cancels it) and returns how it ended, which is shown as a step's end (nullopt: it
  /// ended otherwise, as a refused change). The observer shows the records as they come when
  /// `progress`, and stops at breakpoints.
  using Command = std::function<std::optional<torchir::DebugOutcome>(EngineJob& job, torchir::RunObserver* observer)>;
  /// `clearsStop`: the last stop's diagnosis is the past (false: the command decides, as a change
  /// of the failed node's call does).
  void runCommand(Command command, bool progress = true, bool clearsStop = true);
  /// A command whose job ran nothing after all (its files could not be read) and returned nullopt:
  /// the run rests as it was. Its job calls it with job.reply.
  void commandRanNothing();
  /// A job beside the run (a tensor, a trial call): after any command in progress, on the engine
  /// thread; it answers with job.reply(context, ...). Skipped before the debugger has started.
  void ask(EngineJobFn job, bool needsDebugger = true);
  /// A change of a node's call the engine took (problem empty) or refused, as a job tells it:
  /// marks, patchRefused; `continues`: the run goes on from it and its report ends the job.
  void takeCallChange(const torchir::CallChange& change, bool continues);
  /// A job that holds the run until it ends (a capture written, a repro's own run): the state is
  /// `busy` meanwhile, Saving (Stop cannot cut it short) or Exporting (Stop cancels it). It returns
  /// what runs on the GUI thread at its end, after the state follows the run's marks again, unless
  /// `context` is gone by then. Ignored unless resting().
  using HeldJob = std::function<std::function<void()>(EngineJob& job)>;
  void hold(RunState busy, QObject* context, HeldJob job);
  /// No job holds the engine thread.
  bool resting() const { return isResting(m_state); }
  /// What shows a job's reports of the run on the GUI thread as they come: for a job beside the
  /// run that moves it (a trial call makes a capture's run again first).
  std::function<void(EngineReportPtr)> progressToGui();

  /// Taken in any state with a program, also while Running (the run sees it before its next node).
  void toggleBreakpoint(torchir::NodeId node);
  /// Applies from the next command on.
  void setStopConditions(const torchir::StopConditions& conditions) { m_stopConditions = conditions; }
  torchir::StopConditions stopConditions() const { return m_stopConditions; }

  /// tensorReady() or tensorUnavailable() follows: at once (queued) when the last stop's report
  /// brought the value, else after any command in progress.
  void requestTensor(torchir::ValueId value);
  /// Whether a command's report brings the output of the node its stop shows (true at first): the
  /// tensor dock wants it while it is on screen.
  void carryShownTensor(bool carry) { m_engine.controls().carryShownTensor = carry; }

 Q_SIGNALS:
  void stateChanged(torchir::ui::RunState state);
  void marksChanged();                           // current/executed/failed/breakpoints changed
  void stopped(torchir::StopReason reason);      // a command ended; diagnosis() is set for Failed/StopCondition
  void progress(int executedNodes, int totalNodes);  // during continue/runTo, at most every ~50 ms
  void tensorReady(torchir::ValueId value, const torchir::TensorData& tensor);
  void tensorUnavailable(torchir::ValueId value, const QString& why);  // not run yet, released, not a tensor
  void sessionFailed(const QString& problem);    // the engine could not start (backend missing, bad inputs file)
  void comparisonChanged();
  void problemsChanged();
  void patchRefused(torchir::NodeId node, const QString& why);

 private:
  void send(EngineCommand command, torchir::NodeId target, const CompareRequest& compare = {});
  /// Queues `job` on the engine thread for this program (commandId 0: Stop does not cancel it).
  void post(quint64 commandId, EngineJobFn job, bool needsDebugger = true);
  /// The job's end: its records and outcome, shown on the GUI thread.
  void replyReport(EngineJob& job, torchir::DebugOutcome outcome);
  void onStarted(const EngineReportPtr& report, const QString& description);
  void onStartFailed(const QString& problem);
  void onReported(const EngineReportPtr& report);
  void applyRecords(torchir::DebugProgress& report);
  /// The stop `outcome` made: its node, and the tensor the report brought of it.
  void takeStop(const torchir::DebugOutcome& outcome, const EngineReport* report);
  /// The parts of the GUI's run a capture holds (CaptureMapping).
  CapturedRun capturedRun();
  /// Bookmarks, notes, pins and changes belong to one program.
  void forgetAnnotations();
  /// Drops the run's state and makes any work still on the engine thread stale.
  void forgetRun();
  void setState(RunState state);
  void setProblems(std::vector<torchir::Problem> problems);
  bool validNode(torchir::NodeId node) const;
  int nodeCount() const;
  /// A job that took the engine thread is over: Ready, Paused, Finished or Failed, as the marks say.
  RunState restingState() const;
  /// A new command starts: the last stop's diagnosis and mark are the past. True when marks changed.
  bool clearStop();

  EngineQueue m_engine;  // first made, last gone: a job may reply until it is joined

  RunState m_state = RunState::Empty;
  torchir::ui::LoadedProgramPtr m_program;
  std::size_t m_call = 0;
  quint64 m_generation = 0;  // of the program (or Empty) now shown; older engine results are dropped
  quint64 m_commandId = 0;   // of the last command sent
  ExecutionMarks m_marks;
  std::optional<std::pair<int, int>> m_changedRecords;  // see changedRecords()
  RunRecords m_records;  // shared with the reports
  Annotations m_annotations{m_marks, this};
  torchir::NodeId m_shownNode = torchir::kNone;
  std::optional<std::pair<torchir::ValueId, torchir::TensorData>> m_shownTensor;  // the last stop's report's
  torchir::Diagnosis m_diagnosis;
  std::vector<torchir::Problem> m_problems;
  std::map<torchir::NodeId, std::vector<torchir::ArgumentPatch>> m_patches;
  QString m_inputsDescription;
  torchir::StopConditions m_stopConditions;
  ComparisonPtr m_comparison;
};

}  // namespace torchir::ui
