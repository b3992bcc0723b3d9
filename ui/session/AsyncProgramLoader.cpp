#include "session/AsyncProgramLoader.h"

#include "exec/ThreadPriority.h"
#include "session/FirstFrameGate.h"
#include "session/LoadWorker.h"

namespace torchir::ui {

AsyncProgramLoader::AsyncProgramLoader(QObject* parent)
    : QObject(parent), m_latestRequest(std::make_shared<std::atomic<quint64>>(0)) {
  // Results cross threads through queued connections, which copy arguments by metatype.
  qRegisterMetaType<torchir::ui::LoadedProgramPtr>();

  m_worker = new LoadWorker(m_latestRequest);
  m_worker->moveToThread(&m_thread);
  connect(&m_thread, &QThread::finished, m_worker, &QObject::deleteLater);
  connect(&m_thread, &QThread::started, m_worker, [] { torchir::lowerThisThreadPriority(); });
  connect(m_worker, &LoadWorker::loaded, this, &AsyncProgramLoader::onWorkerLoaded);
  connect(m_worker, &LoadWorker::failed, this, &AsyncProgramLoader::onWorkerFailed);
  connect(m_worker, &LoadWorker::cacheNoted, this, &AsyncProgramLoader::cacheNoted);
  m_thread.setObjectName(QStringLiteral("torchir-loader"));
  m_thread.start();
}

AsyncProgramLoader::~AsyncProgramLoader() {
  // Only reached at shutdown. loadProgram cannot be interrupted, so a load in flight is allowed
  // to finish: leaving it running would let static destructors run underneath it.
  m_thread.quit();
  m_thread.wait();
}

void AsyncProgramLoader::load(const OpenRequest& request) {
  const quint64 requestId = ++*m_latestRequest;
  m_loading = true;
  LoadWorker* worker = m_worker;
  // Queued onto the worker's thread; the worker object is the context, so this never runs on
  // the GUI thread.
  auto start = [worker, requestId, request] {
    QMetaObject::invokeMethod(
        worker, [worker, requestId, request] { worker->load(requestId, request); }, Qt::QueuedConnection);
  };
  if (m_firstFrame)
    m_firstFrame->run(start);
  else
    start();
  Q_EMIT started(request.path);
}

void AsyncProgramLoader::startAfterFirstFrameOf(QWidget* window) { m_firstFrame = new FirstFrameGate(window); }

void AsyncProgramLoader::onWorkerLoaded(quint64 requestId, const torchir::ui::LoadedProgramPtr& program) {
  if (requestId != m_latestRequest->load()) return;
  m_loading = false;
  Q_EMIT loaded(program);
}

void AsyncProgramLoader::onWorkerFailed(quint64 requestId, const QString& path, const QString& problem) {
  if (requestId != m_latestRequest->load()) return;
  m_loading = false;
  Q_EMIT failed(path, problem);
}

}  // namespace torchir::ui
