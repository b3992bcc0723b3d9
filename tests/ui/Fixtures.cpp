#include "Fixtures.h"

#include <QFile>
#include <QJsonDocument>

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

}  // namespace torchir::test
