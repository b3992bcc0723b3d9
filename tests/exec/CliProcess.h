#pragma once
// `torchir` as a process, as users call it, for the command-line tests (TORCHIR_CLI: its path).
#include <QByteArray>
#include <QProcess>
#include <QString>
#include <QStringList>

#include "../program/FixtureZoo.h"

namespace torchir::test {

struct Ran {
  int exitCode = -1;  // -1: it did not finish (timeout, crash)
  QByteArray out, err;
};

/// `torchir ARGS` with OMP_NUM_THREADS=`threads`; by default one intra-op thread, as the eager
/// references were made: the same kernels then give the same bits. `extraEnv` adds variables.
inline Ran runTorchir(const QStringList& args, const QString& threads = "1",
                      const QProcessEnvironment& extraEnv = QProcessEnvironment()) {
  QProcess p;
  QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
  env.insert("OMP_NUM_THREADS", threads);
  env.insert(extraEnv);
  p.setProcessEnvironment(env);
  p.start(TORCHIR_CLI, args);
  if (!p.waitForFinished(120000) || p.exitStatus() != QProcess::NormalExit) return {};
  return {p.exitCode(), p.readAllStandardOutput(), p.readAllStandardError()};
}

inline QString fixture(const char* name, const char* suffix) { return QString::fromStdString(fixturePath(name, suffix)); }

}  // namespace torchir::test
