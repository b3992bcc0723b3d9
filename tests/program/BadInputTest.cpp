// Damaged and wrong files: the command line answers exit 2 and one line naming the file.
#include <sys/stat.h>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
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
                                  << bad + "absurd_size.safetensors" << "product overflows";
    QTest::newRow("missing file") << info(bad + "nope.pt2") << bad + "nope.pt2" << "No such file";
    QTest::newRow("table of random bytes") << QStringList{"table", bad + "random.pt2"} << bad + "random.pt2"
                                           << "neither";

    // tests/data/crafted (made by tests/data/make_crafted.py): one broken rule each.
    const QString crafted = QStringLiteral(TORCHIR_CRAFTED "/");
    const QString mlpIr = QString::fromStdString(fixturePath("mlp", ".ir.json"));
    const std::pair<const char*, const char*> pt2[] = {
        {"strides_shorter_than_sizes.pt2", "has 2 sizes but 1 strides"},
        {"negative_size.pt2", "negative size"},
        {"negative_stride.pt2", "negative stride"},
        {"negative_offset.pt2", "negative storage offset"},  // would read the zip header before the record
        {"offset_past_storage.pt2", "needs 402048 bytes but its record holds 2048"},
        {"sizes_overflow.pt2", "product overflows"},
        {"stride0_view_1e12.pt2", "repeats 4 bytes of storage as 4000000000000"},
        {"float_size.pt2", "not a 64-bit integer"},
        {"deep_model_json.pt2", "models/model.json nests deeper than 512 levels"},
        {"deep_config.pt2", "model_weights_config.json nests deeper than 512 levels"},
        {"zip_bomb.pt2", "a zip bomb"},
        {"aliased_records.pt2", "shares its bytes with record"},
        {"parameter_count_overflow.pt2", "more elements than int64 counts"},
        {"newline_in_name.pt2", "'x\\nerror: forged line'"},  // the file's newline, escaped
        {"malformed_argument.pt2", "node 'linear' has a malformed argument 'weight'"},
        {"empty_argument.pt2", "node 'linear' has a malformed argument 'weight'"},
        {"deep.ir.json", "nests deeper than 512 levels"},
        {"constant_dims_wrap.ir.json", "product overflows"},  // 2^16 four deep wraps to 0 bytes
        {"constant_int_out_of_range.ir.json", "does not fit int32"},
        {"producer_index_2_32.ir.json", "takes output 4294967296"},  // not output 0
    };
    for (const auto& [file, says] : pt2)
      QTest::newRow(file) << info(crafted + file) << crafted + file << says;
    const std::pair<const char*, const char*> weights[] = {
        {"float_dims.safetensors", "not a 64-bit integer"},  // 2.5 is not read as 2
        {"overlapping.safetensors", "overlap"},
        {"offsets_wrap.safetensors", "lies outside the file"},
        {"deep_header.safetensors", "nests deeper than 512 levels"},
    };
    for (const auto& [file, says] : weights)
      QTest::newRow(file) << QStringList{"info", mlpIr, "--weights", crafted + file} << crafted + file << says;
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

  // Files that are strange but readable open, and quickly enough for a test (the old quadratic
  // de-duplication took half a minute on this one; bench/ times it).
  void thirtyThousandNodesOfOneNameGetFxsNames() {
    QProcess p;
    p.start(TORCHIR_CLI, {"table", QStringLiteral(TORCHIR_CRAFTED "/thirty_thousand_same_names.pt2")});
    QVERIFY(p.waitForFinished(120000));
    QCOMPARE(p.exitCode(), 0);
    const QString table = QString::fromUtf8(p.readAllStandardOutput());
    QVERIFY(table.contains(QRegularExpression("\\brelu \\s")));
    QVERIFY(table.contains(QRegularExpression("\\brelu_29999 ")));
    QVERIFY(!table.contains("relu_30000"));
  }

  void symbolicSizeNestedDeeperThanItsParserGoesIsKeptAsWritten() {
    QProcess p;
    p.start(TORCHIR_CLI, {"info", "--json", QStringLiteral(TORCHIR_CRAFTED "/deep_symbolic_expr.pt2")});
    QVERIFY(p.waitForFinished(60000));
    QCOMPARE(p.exitStatus(), QProcess::NormalExit);
    QCOMPARE(p.exitCode(), 0);
    const auto info = QJsonDocument::fromJson(p.readAllStandardOutput()).object();
    QVERIFY(info["input_shapes"].toObject()["x"].toArray().at(0).toString().startsWith("Mul(Mul(Mul("));
  }

  void weightOfAnUnknownDtypeOpensWithoutData() {
    QProcess p;
    p.start(TORCHIR_CLI, {"info", "--json", QStringLiteral(TORCHIR_CRAFTED "/unknown_dtype.pt2")});
    QVERIFY(p.waitForFinished(60000));
    QCOMPARE(p.exitCode(), 0);
    const auto info = QJsonDocument::fromJson(p.readAllStandardOutput()).object();
    QCOMPARE(info["missing_data"].toArray(), QJsonArray{"fc1.weight"});
  }

  void fifoIsRefusedWithoutWaitingForAWriter() {
    QTemporaryDir dir;
    const QString fifo = dir.filePath("model.pt2");
    QCOMPARE(::mkfifo(qPrintable(fifo), 0600), 0);
    QProcess p;
    p.start(TORCHIR_CLI, {"info", fifo});
    QVERIFY(p.waitForFinished(60000));  // before the fix, it waited for a writer forever
    QCOMPARE(p.exitCode(), 2);
    QCOMPARE(QString::fromUtf8(p.readAllStandardError()), "error: " + fifo + ": not a regular file\n");
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
