#include "session/LoadWorker.h"

#include <QFile>
#include <QFileInfo>
#include <QStandardPaths>
#include <QTimer>
#include <exception>
#include <memory>
#include <optional>
#include <utility>

#include "executorch/InstructionFrames.h"
#include "formats/DeferredRelease.h"
#include "program/LoadError.h"
#include "formats/ProgramLoader.h"
#include "session/BackgroundPool.h"
#include "session/OneLine.h"
#include "session/ProgramFiles.h"

namespace torchir::ui {
namespace {

/// An ETRecord's Edge program framed as the device runs it: a frame per delegate call or fused
/// kernel, named by the .pte's instruction where the .pte is there. Maps that cannot be read leave
/// the modules as they are: the program opens all the same.
void frameByDevice(LoadedProgram& loaded) {
  try {
    const std::string record = loaded.program.source.path;
    const torchir::EtRecord maps = torchir::readEtRecord(record, "", /*withProgram=*/false);
    std::optional<torchir::PteProgram> pte;
    if (const std::string path = torchir::pteFor(QFile::encodeName(loaded.request.path).toStdString(), record); !path.empty())
      pte = torchir::readPte(path);
    torchir::frameByInstruction(loaded.program, maps, pte ? pte->plan(maps.method) : nullptr);
  } catch (const std::exception&) {
    // the frames are a view of the program: without them it is shown by its modules
  }
}

}  // namespace

/// Where the program cache lives: none when the system names no cache folder.
std::string cacheFolder() {
  const QString base = QStandardPaths::writableLocation(QStandardPaths::CacheLocation);
  return base.isEmpty() ? std::string() : QFile::encodeName(base + QStringLiteral("/programs")).toStdString();
}

/// How long after a program reaches the window its cache entry is written: after its first view,
/// whose layout and painting would otherwise share the two cores with the encoding.
constexpr int kStoreDelayMs = 1000;

LoadWorker::LoadWorker(std::shared_ptr<const std::atomic<quint64>> latestRequest, QObject* parent)
    : QObject(parent),
      m_latestRequest(std::move(latestRequest)),
      m_cache(cacheFolder()) {}

void LoadWorker::storeInCache(const torchir::ProgramCache::Key& key, const LoadedProgramPtr& loaded) {
  m_cache.store(key, loaded->program);  // throws nothing: what fails is a note
  emitCacheNotes();
}

void LoadWorker::emitCacheNotes() {
  for (const std::string& note : m_cache.takeNotes()) Q_EMIT cacheNoted(oneLine(QString::fromStdString(note)));
}

void LoadWorker::load(quint64 requestId, const OpenRequest& request) {
  // Opening A then B quickly should not make B wait for A to be read and thrown away.
  if (requestId != m_latestRequest->load()) return;

  // A capture names its program; errors name the file the user opened.
  QString path = request.capturePath.isEmpty() ? request.path : request.capturePath;
  // The readers' JSON documents are freed after the program is on its way to the window.
  const torchir::DeferredReleaseScope deferred;
  try {
    // Its memory goes back to the system once it is freed, wherever its last reference goes.
    std::shared_ptr<LoadedProgram> result(new LoadedProgram(), [](const LoadedProgram* program) {
      delete program;
      returnFreedMemoryWhenQuiet();
    });
    result->request = request;
    if (!request.capturePath.isEmpty()) {
      const std::string capture = QFile::encodeName(request.capturePath).toStdString();
      result->capture = std::make_shared<const torchir::Capture>(torchir::readCapture(capture));
      const QString extractFolder = QStandardPaths::writableLocation(QStandardPaths::CacheLocation) + QStringLiteral("/captured");
      result->request.path = QFile::decodeName(
          torchir::capturedProgramPath(*result->capture, capture, QFile::encodeName(extractFolder).toStdString()).c_str());
      result->request.inputsPath.clear();  // the capture's inputs are the run's
      result->request = completeRequest(result->request);
    }
    const torchir::LoadOptions options{QFile::encodeName(result->request.weightsPath).toStdString(),
                                       QFile::encodeName(result->request.constantsPath).toStdString(), &m_cache};
    m_cache.takeMiss();  // a miss of an open that failed after its JSON is no key for this one
    result->program = torchir::loadProgram(QFile::encodeName(result->request.path).toStdString(), options);
    const auto miss = m_cache.takeMiss();
    emitCacheNotes();
    if (result->program.source.format == "etrecord") frameByDevice(*result);
    deriveViews(*result);
    Q_EMIT loaded(requestId, result);
    if (miss) {
      const LoadedProgramPtr kept = result;
      QTimer::singleShot(kStoreDelayMs, this, [this, key = *miss, kept] { storeInCache(key, kept); });
    }
  } catch (const torchir::LoadError& e) {
    // problem() leaves out the path: the window names the program itself. A weights or constants
    // file at fault is named, or the message would blame the program.
    QString problem = QString::fromStdString(e.problem());
    const QString file = QFile::decodeName(e.file().c_str());
    if (!file.isEmpty() && QFileInfo(file) != QFileInfo(path))
      problem = QFileInfo(file).fileName() + QStringLiteral(": ") + problem;
    Q_EMIT failed(requestId, path, oneLine(problem));
  } catch (const std::exception& e) {
    Q_EMIT failed(requestId, path, oneLine(QString::fromUtf8(e.what())));
  } catch (...) {
    Q_EMIT failed(requestId, path, QStringLiteral("unexpected error while reading the file"));
  }
}

}  // namespace torchir::ui
