#include "PythonSettings.h"

#include <QCryptographicHash>
#include <QFileInfo>
#include <QSettings>
#include <QStringList>
#include <algorithm>

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

/// Where a program's modules are kept: by its file's real path, hashed (a path is no settings key).
QString programKey(const QString& path) {
  const QFileInfo file(path);
  const QString real = file.canonicalFilePath().isEmpty() ? file.absoluteFilePath() : file.canonicalFilePath();
  return QStringLiteral("python/programImports/") +
         QString::fromLatin1(QCryptographicHash::hash(real.toUtf8(), QCryptographicHash::Sha1).toHex());
}

constexpr int kMaxProgramImports = 16;

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

PythonHostOptions effectivePythonHost(const QString& programPath) {
  PythonHostOptions o = savedPythonHost();
  if (o.python.empty()) o.python = qEnvironmentVariable("TORCHIR_PYTHON").trimmed().toStdString();
  QStringList extra = qEnvironmentVariable("TORCHIR_PYTHON_IMPORTS").split(QLatin1Char(','), Qt::SkipEmptyParts);
  if (!programPath.isEmpty()) extra += programImports(programPath);
  for (const std::string& m : fromQt(extra))
    if (std::find(o.imports.begin(), o.imports.end(), m) == o.imports.end()) o.imports.push_back(m);
  return o;
}

QStringList programImports(const QString& path) {
  return QSettings().value(programKey(path)).toStringList().mid(0, kMaxProgramImports);
}

void rememberProgramImport(const QString& path, const QString& module) {
  QStringList modules = programImports(path);
  if (modules.contains(module)) return;
  modules << module;
  QSettings().setValue(programKey(path), modules.mid(0, kMaxProgramImports));
}

}  // namespace torchir::ui
