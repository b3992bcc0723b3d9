#pragma once
#include <QObject>
#include <QString>
#include <QThread>
#include <QWidget>
#include <atomic>
#include <memory>

#include "session/LoadedProgram.h"
#include "session/OpenRequest.h"

namespace torchir::ui {

class FirstFrameGate;
class LoadWorker;

/// Opens programs on a background thread so the GUI thread never blocks on a file.
/// Only the most recent request is reported; results of superseded ones are dropped.
class AsyncProgramLoader : public QObject {
  Q_OBJECT

 public:
  explicit AsyncProgramLoader(QObject* parent = nullptr);
  ~AsyncProgramLoader() override;

  /// Starts reading the request's file, with the weights, constants and inputs files it names
  /// (empty: none); returns at once. Supersedes any request still running.
  void load(const OpenRequest& request);
  bool isLoading() const { return m_loading; }
  /// Reads start only once `window` has painted its first frame (FirstFrameGate); loading is
  /// reported from the request all the same.
  void startAfterFirstFrameOf(QWidget* window);

 Q_SIGNALS:
  void started(const QString& path);
  void loaded(torchir::ui::LoadedProgramPtr program);
  void failed(const QString& path, const QString& problem);
  /// A program cache entry that was ignored or could not be written, in one line.
  void cacheNoted(const QString& note);

 private:
  void onWorkerLoaded(quint64 requestId, const torchir::ui::LoadedProgramPtr& program);
  void onWorkerFailed(quint64 requestId, const QString& path, const QString& problem);

  QThread m_thread;
  LoadWorker* m_worker = nullptr;  // lives on m_thread, deleted when the thread finishes
  std::shared_ptr<std::atomic<quint64>> m_latestRequest;
  bool m_loading = false;
  FirstFrameGate* m_firstFrame = nullptr;  // the window's, or none
};

}  // namespace torchir::ui
