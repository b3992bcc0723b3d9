#pragma once
#include <QFileInfo>
#include <QJsonArray>
#include <QString>
#include <QTest>

#include "session/LoadedProgram.h"

namespace torchir::test {

/// The fixture directory named by $TORCHIR_FIXTURES; empty when the variable is unset.
QString fixturesDir();
/// `<fixtures>/<name>/<name><suffix>`, e.g. fixturePath("mlp", ".pt2").
QString fixturePath(const QString& name, const QString& suffix);
/// The rows of `<name>.table.json`: Python's print_tabular cells, one object per node.
QJsonArray pythonFxTable(const QString& name);
/// For initTestCase(): QSettings go to an empty file of this process's own, so neither the
/// developer's recent files, window state and breakpoints leak into a test, nor a test's into
/// them or into another test process running at the same time.
void isolateSettings();
/// A program read the way the studio's loader reads it (without the FX cells), for views under test.
torchir::ui::LoadedProgramPtr loadedProgram(const QString& path, const QString& inputsPath = {});
torchir::ui::LoadedProgramPtr loadedFixture(const QString& name, const QString& inputsPath = {});

}  // namespace torchir::test

// For initTestCase(): fails the whole test with a clear message when the fixtures are missing.
#define TORCHIR_REQUIRE_FIXTURES()                                                              \
  do {                                                                                          \
    QVERIFY2(!torchir::test::fixturesDir().isEmpty(),                                           \
             "TORCHIR_FIXTURES is not set: point it at the fixture directory (ctest sets it)"); \
    QVERIFY2(QFileInfo(torchir::test::fixturesDir()).isDir(),                                   \
             qPrintable(QStringLiteral("TORCHIR_FIXTURES=%1 is not a directory")                \
                            .arg(torchir::test::fixturesDir())));                               \
  } while (false)
