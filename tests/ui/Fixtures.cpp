#include "Fixtures.h"

#include <QFile>
#include <QJsonDocument>
#include <QSettings>
#include <QStandardPaths>

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

void isolateSettings() {
  QStandardPaths::setTestModeEnabled(true);  // before any QSettings is made
  torchir::ui::applyApplicationIdentity();
  QSettings().clear();
}

}  // namespace torchir::test
