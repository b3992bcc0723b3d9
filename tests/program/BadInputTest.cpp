// Damaged and wrong files: the command line answers exit 2 and one line naming the file.
#include <QProcess>
#include <QtTest>

#include "FixtureZoo.h"

using namespace torchir::test;

class BadInputTest : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void refusedWithOneLine_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("says");
    const QString bad = QString::fromStdString(fixturesDir()) + "/bad/";
    const QString mlp = QString::fromStdString(fixturePath("mlp", ".pt2"));
    auto info = [](const QString& f) { return QStringList{"info", f}; };
    QTest::newRow("truncated archive") << info(bad + "truncated.pt2") << bad + "truncated.pt2" << "truncated";
    QTest::newRow("random bytes") << info(bad + "random.pt2") << bad + "random.pt2" << "neither";
    QTest::newRow("empty file") << info(bad + "empty.pt2") << bad + "empty.pt2" << "neither";
    QTest::newRow("unknown schema") << info(bad + "unknown_schema.pt2") << bad + "unknown_schema.pt2"
                                    << "schema version 99";
    QTest::newRow("unknown archive version")
        << info(bad + "unknown_archive_version.pt2") << bad + "unknown_archive_version.pt2" << "archive version 7";
    QTest::newRow("model.json lacks nodes") << info(bad + "missing_nodes.pt2") << bad + "missing_nodes.pt2" << "nodes";
    QTest::newRow("IR missing keys") << info(bad + "missing_keys.ir.json") << bad + "missing_keys.ir.json"
                                     << "required key 'nodes'";
    QTest::newRow("IR unknown producer") << info(bad + "bad_producer.ir.json") << bad + "bad_producer.ir.json"
                                         << "no_such_node";
    QTest::newRow("IR not JSON") << info(bad + "not_json.ir.json") << bad + "not_json.ir.json" << "not valid JSON";
    QTest::newRow("weights shorter than shape")
        << QStringList{"info", mlp, "--weights", bad + "short_weights.safetensors"} << bad + "short_weights.safetensors"
        << "400 bytes";
    QTest::newRow("absurd shape") << QStringList{"info", mlp, "--weights", bad + "absurd_size.safetensors"}
                                  << bad + "absurd_size.safetensors" << "impossible shape";
    QTest::newRow("missing file") << info(bad + "nope.pt2") << bad + "nope.pt2" << "No such file";
    QTest::newRow("table of random bytes") << QStringList{"table", bad + "random.pt2"} << bad + "random.pt2"
                                           << "neither";
  }
  void refusedWithOneLine() {
    QFETCH(QStringList, args);
    QFETCH(QString, file);
    QFETCH(QString, says);
    QProcess p;
    p.start(TORCHIR_CLI, args);
    QVERIFY(p.waitForFinished(30000));
    QCOMPARE(p.exitStatus(), QProcess::NormalExit);  // no crash
    QCOMPARE(p.exitCode(), 2);
    const QString err = QString::fromUtf8(p.readAllStandardError());
    QCOMPARE(err.count('\n'), 1);
    QVERIFY2(err.startsWith("error: " + file + ": "), qPrintable(err));
    QVERIFY2(err.contains(says), qPrintable(err));
    QVERIFY(p.readAllStandardOutput().isEmpty());
  }

  void dynamicProgramIsRefusedByConvert() {
    QProcess p;
    const QString out = QDir::temp().filePath("torchir-dynamic.json");
    p.start(TORCHIR_CLI, {"convert", QString::fromStdString(fixturePath("dynamic_batch", ".pt2")), "-o", out});
    QVERIFY(p.waitForFinished(30000));
    QCOMPARE(p.exitCode(), 1);  // the program is at fault, not the file
    QVERIFY(QString::fromUtf8(p.readAllStandardError()).contains("Dynamic shape detected in node 'x'"));
  }

  void usageErrorsExitTwo() {
    QProcess p;
    p.start(TORCHIR_CLI, {"frobnicate", "x.pt2"});
    QVERIFY(p.waitForFinished(30000));
    QCOMPARE(p.exitCode(), 2);
  }
};

QTEST_GUILESS_MAIN(BadInputTest)
#include "BadInputTest.moc"
