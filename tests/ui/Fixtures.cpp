#include "Fixtures.h"

#include <QFile>
#include <QJsonDocument>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>

#include "formats/ProgramLoader.h"
#include "session/AppIdentity.h"

namespace torchir::test {

QString fixturesDir() { return qEnvironmentVariable("TORCHIR_FIXTURES"); }

QString fixturePath(const QString& name, const QString& suffix) {
  return QStringLiteral("%1/%2/%2%3").arg(fixturesDir(), name, suffix);
}

QJsonArray pythonFxTable(const QString& name) {
  QFile file(fixturePath(name, QStringLiteral(".table.json")));
  if (!file.open(QIODevice::ReadOnly)) return {};
  return QJsonDocument::fromJson(file.readAll()).array();
}

torchir::ui::LoadedProgramPtr loadedProgram(const QString& path, const QString& inputsPath) {
  auto loaded = std::make_shared<torchir::ui::LoadedProgram>();
  loaded->request.path = path;
  loaded->request.inputsPath = inputsPath;
  loaded->program = torchir::loadProgram(path.toStdString());
  torchir::ui::deriveViews(*loaded);
  return loaded;
}

torchir::ui::LoadedProgramPtr loadedFixture(const QString& name, const QString& inputsPath) {
  return loadedProgram(fixturePath(name, QStringLiteral(".pt2")), inputsPath);
}

void isolateSettings() {
  QStandardPaths::setTestModeEnabled(true);  // before any QSettings is made
  // A folder of this process's own: ctest runs test processes side by side, and one clearing a
  // shared test file (~/.qttest) erased the breakpoints another had just stored.
  static const QTemporaryDir dir;
  QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, dir.path());
  QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, dir.path());
  torchir::ui::applyApplicationIdentity();
  QSettings().clear();
}

}  // namespace torchir::test
