#pragma once
#include <QObject>
#include <QString>
#include <atomic>
#include <memory>

#include "formats/ProgramCache.h"
#include "session/LoadedProgram.h"

namespace torchir::ui {

/// Does the blocking part of opening a program; lives on a worker thread.
class LoadWorker : public QObject {
  Q_OBJECT

 public:
  /// `latestRequest` is written by the GUI thread; requests older than it are skipped unstarted.
  explicit LoadWorker(std::shared_ptr<const std::atomic<quint64>> latestRequest, QObject* parent = nullptr);

  /// Reads the program with the request's weights and constants and emits loaded() or failed()
  /// (naming request.path); never throws.
  void load(quint64 requestId, const OpenRequest& request);

 Q_SIGNALS:
  void loaded(quint64 requestId, torchir::ui::LoadedProgramPtr program);
  void failed(quint64 requestId, const QString& path, const QString& problem);
  /// A program cache entry that was ignored or could not be written, in one line.
  void cacheNoted(const QString& note);

 private:
  void storeInCache(const torchir::ProgramCache::Key& key, const LoadedProgramPtr& loaded);
  void emitCacheNotes();

  std::shared_ptr<const std::atomic<quint64>> m_latestRequest;
  /// Big programs' graphs, kept in the user's cache folder: a second open skips the JSON.
  torchir::ProgramCache m_cache;
};

}  // namespace torchir::ui
