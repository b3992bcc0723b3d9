#include "session/RunFiles.h"

#include <QFile>
#include <exception>
#include <utility>

#include "session/OneLine.h"
#include "session/SessionController.h"

namespace torchir::ui {

void saveCapture(SessionController& session, const QString& path, bool embedProgram, QObject* context,
                 std::function<void(const QString& problem)> done) {
  const auto capture = session.resting() ? session.capture() : nullptr;
  if (!capture) return done(QObject::tr("nothing to capture while the program is not ready or is running"));
  const auto& pins = session.annotations().pinned();
  session.hold(RunState::Saving, context, [=, pinned = std::vector<torchir::ValueId>(pins.begin(), pins.end())](EngineJob& job) {
    QString problem;
    try {
      job.debugger().saveCapture(QFile::encodeName(path).toStdString(), *capture, pinned, embedProgram);
    } catch (const std::exception& e) {
      problem = oneLine(QString::fromUtf8(e.what()));
    }
    return std::function<void()>([done, problem] { done(problem); });
  });
}

void exportRepro(SessionController& session, const torchir::ReproPart& part, const QString& path, QObject* context,
                 ReproDone done) {
  QString description = QString::fromStdString(part.describe());
  if (!session.resting())
    return done(description, {}, QObject::tr("nothing to cut out while the program is not ready or is running"));
  session.hold(RunState::Exporting, context, [=](EngineJob& job) mutable {
    QString problem;
    QStringList files;
    try {
      const auto repro = job.debugger().exportRepro(part, QFile::encodeName(path).toStdString(), job.observer());
      description = QString::fromStdString(repro.repro.description);
      for (const auto& f : repro.files) files << QFile::decodeName(f.c_str());
    } catch (const std::exception& e) {
      problem = oneLine(QString::fromUtf8(e.what()));
    }
    return std::function<void()>([=] { done(description, files, problem); });
  });
}

}  // namespace torchir::ui
