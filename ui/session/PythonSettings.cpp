#include "PythonSettings.h"

#include <QSettings>
#include <QStringList>

namespace torchir::ui {
namespace {

QStringList toQt(const std::vector<std::string>& items) {
  QStringList out;
  for (const auto& s : items) out << QString::fromStdString(s);
  return out;
}

std::vector<std::string> fromQt(const QStringList& items) {
  std::vector<std::string> out;
  for (const QString& s : items)
    if (!s.trimmed().isEmpty()) out.push_back(s.trimmed().toStdString());
  return out;
}

}  // namespace

PythonHostOptions savedPythonHost() {
  QSettings s;
  PythonHostOptions o;
  o.python = s.value(QStringLiteral("python/interpreter")).toString().trimmed().toStdString();
  o.imports = fromQt(s.value(QStringLiteral("python/imports")).toStringList());
  o.executorFiles = fromQt(s.value(QStringLiteral("python/executorFiles")).toStringList());
  const double timeout = s.value(QStringLiteral("python/callTimeoutSeconds"), o.callTimeoutSeconds).toDouble();
  if (timeout > 0) o.callTimeoutSeconds = timeout;
  return o;
}

void savePythonHost(const PythonHostOptions& o) {
  QSettings s;
  s.setValue(QStringLiteral("python/interpreter"), QString::fromStdString(o.python));
  s.setValue(QStringLiteral("python/imports"), toQt(o.imports));
  s.setValue(QStringLiteral("python/executorFiles"), toQt(o.executorFiles));
  s.setValue(QStringLiteral("python/callTimeoutSeconds"), o.callTimeoutSeconds);
}

PythonHostOptions effectivePythonHost() {
  PythonHostOptions o = savedPythonHost();
  if (o.python.empty()) o.python = qEnvironmentVariable("TORCHIR_PYTHON").trimmed().toStdString();
  return o;
}

}  // namespace torchir::ui
