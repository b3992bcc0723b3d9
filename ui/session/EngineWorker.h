#pragma once
#include <QMetaType>
#include <QObject>
#include <QString>
#include <QStringList>
#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <vector>

#include "capture/CaptureFile.h"
#include "exec/Session.h"
#include "repro/Repro.h"
#include "session/ComparisonResult.h"
#include "session/ExecMetaTypes.h"
#include "session/LoadedProgram.h"

namespace torchir::ui {

/// What the GUI thread shares with the engine thread while a command runs. Only atomics and one
/// mutex that either side holds just long enough to copy a set, never while a node runs.
struct EngineControls {
  /// The program the GUI wants: work for an older one is skipped or stops between two nodes.
  std::atomic<quint64> generation{0};
  /// Commands with an id up to this one stop between two nodes (stop()). An id rather than a flag,
  /// so a stop that arrives after its command ended cannot cancel the next one.
  std::atomic<quint64> cancelUpTo{0};

  void setBreakpoints(std::set<torchir::NodeId> nodes);
  /// The breakpoints, if they changed since `version`, which is then updated.
  bool breakpointsSince(quint64& version, std::set<torchir::NodeId>& out);

 private:
  std::atomic<quint64> m_breakpointsVersion{0};
  std::mutex m_mutex;
  std::set<torchir::NodeId> m_breakpoints;
};

/// Compare starts a paired run (its report ends every paired command); CompareOn runs it on.
/// Replay: a command that ended in making a capture's run again (it failed or was stopped there).
enum class EngineCommand { Step, StepBack, Continue, RunTo, Reset, Compare, CompareOn, Replay, Sensitivity };

/// The session's state after some work, with copies of the records of the nodes that ran since the
/// previous report. Nodes run in order, so everything before `position` has run.
struct EngineReport {
  quint64 generation = 0;
  bool restart = false;                  // the frame was reset: earlier records are void
  torchir::NodeId firstRecord = 0;       // records[i] is node firstRecord + i
  // Shared, so the GUI keeps them without copying (null: the node did not run).
  std::vector<std::shared_ptr<const torchir::NodeRecord>> records;
  torchir::NodeId position = 0;          // program().nodes.size() when finished
  bool finished = false;
  bool ended = false;                    // the command ended (else: a progress report)
  EngineCommand command = EngineCommand::Step;
  torchir::StopReason reason = torchir::StopReason::Stepped;
  torchir::Diagnosis diagnosis;
  ComparisonPtr comparison;  // a Compare command's, when it could compare
};
/// Not const: its one receiver (SessionController) moves the records out rather than copying 70k
/// shared pointers, and the report's death then releases none of them on the GUI thread.
using EngineReportPtr = std::shared_ptr<EngineReport>;

/// Owns the engine Session and runs it on the engine thread; everything here runs on that thread.
/// The GUI thread reaches it only through queued calls and the signals below.
class EngineWorker : public QObject {
  Q_OBJECT

 public:
  explicit EngineWorker(std::shared_ptr<EngineControls> controls, QObject* parent = nullptr);
  ~EngineWorker() override;

  /// Loads the backend (the first time), creates the session and sets its inputs.
  void start(quint64 generation, torchir::ui::LoadedProgramPtr program);
  /// Drops the session (and with it the frame's tensors).
  void clear();
  void run(quint64 generation, quint64 commandId, EngineCommand command, torchir::NodeId target,
           const torchir::StopConditions& stops);
  void fetchTensor(quint64 generation, torchir::ValueId value);
  /// Runs the program again from the start, paired with the reference the request names, and
  /// reports each node's comparison with the command's end.
  void compare(quint64 generation, quint64 commandId, const torchir::ui::CompareRequest& request);
  /// Runs the paired run of the last comparison on to its next stop.
  void continueComparison(quint64 generation, quint64 commandId, torchir::CompareStop stop);
  /// The compared output of `node` in this run and in the reference, and their difference.
  void fetchCompared(quint64 generation, torchir::NodeId node);
  /// Edit and continue: the next node's call with and without `patches` (Session::tryPatches).
  void tryPatches(quint64 generation, torchir::NodeId node, const std::vector<torchir::ArgumentPatch>& patches);
  /// Writes `capture` (what the GUI side knows: marks, records, changes, notes) with the run's
  /// inputs, the tensors of the `pinned` values, the program's size and CRC-32 (and its bytes, when
  /// `embedProgram`) to `path`; captureSaved reports it.
  void saveCapture(quint64 generation, const QString& path, std::shared_ptr<torchir::Capture> capture,
                   const std::vector<torchir::ValueId>& pinned, bool embedProgram);
  /// A repro of `part` (torchir extract's): a run of its own, with this run's inputs and changes,
  /// to the part's end, then the files; reproExported reports them. Stop cancels it.
  void exportRepro(quint64 generation, quint64 commandId, const torchir::ReproPart& part, const QString& path);
  /// Compare › Layer Sensitivity: the comparison run to its end, then each quantized layer kept in
  /// float alone (compare/Sensitivity); reported as a Compare command whose comparison holds it.
  /// Stop cancels it between layers.
  void layerSensitivity(quint64 generation, quint64 commandId);
  /// Keep in Float: each of `layers` takes its keep-in-float changes (with the float program's
  /// weights when the comparison is with one), reported by patchesApplied; then the comparison (or
  /// the run, when there is none) is made again from the start to its end.
  void keepInFloat(quint64 generation, quint64 commandId, const std::vector<torchir::NodeId>& layers,
                   const torchir::StopConditions& stops);
  /// Every later run of `node` takes `patches` (Session::setPatches); reported by patchesApplied.
  /// With `andContinue` (and the change taken) the run goes on at once, as command `commandId`.
  void applyPatches(quint64 generation, quint64 commandId, torchir::NodeId node,
                    const std::vector<torchir::ArgumentPatch>& patches, bool andContinue,
                    const torchir::StopConditions& stops);

 Q_SIGNALS:
  void started(quint64 generation, torchir::ui::EngineReportPtr report, const QString& inputsDescription);
  void startFailed(quint64 generation, const QString& problem, const torchir::Diagnosis& diagnosis);
  /// What would stop a run, found without running (checkProgram), right after `started`.
  void problemsFound(quint64 generation, const std::vector<torchir::Problem>& problems);
  void reported(torchir::ui::EngineReportPtr report);
  void tensorReady(quint64 generation, torchir::ValueId value, const torchir::TensorData& tensor);
  void tensorUnavailable(quint64 generation, torchir::ValueId value, const QString& why);
  void comparedReady(quint64 generation, torchir::NodeId node, const torchir::TensorData& run,
                     const torchir::TensorData& reference, const torchir::TensorData& difference);
  void comparedUnavailable(quint64 generation, torchir::NodeId node, const QString& why);
  void patchTried(quint64 generation, torchir::NodeId node, const torchir::PatchTrial& trial);
  /// `problem` is empty when the capture was written.
  void captureSaved(quint64 generation, const QString& path, const QString& problem);
  /// `files` are those written, the .pt2 first; `problem` is empty when they were.
  void reproExported(quint64 generation, const QString& description, const QStringList& files, const QString& problem);
  /// `problem` is empty when the session took the patches.
  /// `continues`: the run goes on from the change, and its report ends the job.
  /// Layer sensitivity: `done` of `total` layers measured.
  void sensitivityProgress(quint64 generation, int done, int total);
  void patchesApplied(quint64 generation, torchir::NodeId node, const std::vector<torchir::ArgumentPatch>& patches,
                      const QString& problem, bool continues);

 private:
  class CommandObserver;
  bool shouldStop(quint64 generation, quint64 commandId) const;
  void syncBreakpoints();
  /// A report with the records of the nodes that ran since the last one.
  std::shared_ptr<EngineReport> makeReport(quint64 generation);
  QString chooseInputs();
  /// A program opened from a capture starts with the capture's inputs and changes, its run shown as
  /// the capture has it and not made: the first command that needs it makes it again, up to the
  /// node the capture stood at, before doing what it was asked.
  void startFromCapture(const torchir::Capture& capture);
  /// The capture's run made again up to where it stood (Session::replayTo).
  torchir::StepOutcome replayCapture(torchir::RunObserver& observer);

  std::shared_ptr<EngineControls> m_controls;
  torchir::ui::LoadedProgramPtr m_program;     // outlives m_session, which refers to its Program
  std::unique_ptr<torchir::Session> m_session;
  /// The inputs the session was given (a reference run gets the same); none: random, seed 0.
  std::optional<std::vector<torchir::TensorData>> m_inputs;
  /// The last comparison's reference run, kept for its tensors until the run starts anew.
  struct Reference {
    QString description;
    std::shared_ptr<const torchir::Program> program;  // the reference's: this one, or another file's
    std::unique_ptr<torchir::Session> session;
    std::unique_ptr<torchir::PairedRun> run;          // with m_session, to go on after a stop
    torchir::CompareOptions options;
    std::shared_ptr<const torchir::SensitivityResult> sensitivity;  // of this paired run
  };
  /// What the paired run has compared so far, for the views.
  ComparisonPtr comparisonSoFar() const;
  /// Runs the paired run to `stop` and reports the command's end with the comparison.
  void runComparison(quint64 generation, quint64 commandId, torchir::CompareStop stop);
  std::unique_ptr<Reference> m_reference;
  /// The node the capture stood at (nodes.size(): finished), until the run is made again.
  std::optional<torchir::NodeId> m_replayTo;
  /// The capture's pinned tensors, by value: what the views can show before the run is made again.
  std::map<torchir::ValueId, torchir::TensorData> m_pinned;
  torchir::NodeId m_reportedUpTo = 0;          // records before this node have been sent
  bool m_restartPending = false;
  quint64 m_breakpointsVersion = 0;
  std::set<torchir::NodeId> m_breakpoints;
};

}  // namespace torchir::ui

Q_DECLARE_METATYPE(torchir::ui::EngineReportPtr)
