#include "session/LoadWorker.h"

#include <QFile>
#include <exception>
#include <utility>

#include "program/LoadError.h"
#include "program/ProgramLoader.h"

namespace torchir::ui {

namespace {

// The status bar and the error label have room for one line only.
QString oneLine(QString text) {
  text.replace(QLatin1Char('\n'), QLatin1Char(' '));
  return text.simplified();
}

}  // namespace

LoadWorker::LoadWorker(std::shared_ptr<const std::atomic<quint64>> latestRequest, QObject* parent)
    : QObject(parent), m_latestRequest(std::move(latestRequest)) {}

void LoadWorker::load(quint64 requestId, const QString& path) {
  // Opening A then B quickly should not make B wait for A to be read and thrown away.
  if (requestId != m_latestRequest->load()) return;

  try {
    auto result = std::make_shared<LoadedProgram>();
    result->path = path;
    result->program = torchir::loadProgram(QFile::encodeName(path).toStdString());
    result->fxRows = torchir::fxTable(result->program);
    Q_EMIT loaded(requestId, std::move(result));
  } catch (const torchir::LoadError& e) {
    // problem() leaves out the path: the window names the file itself.
    Q_EMIT failed(requestId, path, oneLine(QString::fromStdString(e.problem())));
  } catch (const std::exception& e) {
    Q_EMIT failed(requestId, path, oneLine(QString::fromUtf8(e.what())));
  } catch (...) {
    Q_EMIT failed(requestId, path, QStringLiteral("unexpected error while reading the file"));
  }
}

}  // namespace torchir::ui
