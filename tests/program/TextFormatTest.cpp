// Python's text forms that the FX table and the IR JSON must reproduce exactly.
#include <QtTest>
#include <cmath>

#include "formats/LenientJson.h"
#include "program/LoadError.h"
#include "formats/OnDemandJson.h"
#include "program/PythonRepr.h"
#include "program/SymbolExpr.h"

using namespace torchir;

class TextFormatTest : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void floatRepr_data() {
    QTest::addColumn<double>("value");
    QTest::addColumn<QString>("python");
    QTest::newRow("half") << 0.5 << QString("0.5");
    QTest::newRow("tenth") << 0.1 << QString("0.1");
    QTest::newRow("integral") << 100.0 << QString("100.0");
    QTest::newRow("eps") << 1e-05 << QString("1e-05");
    QTest::newRow("small fixed") << 0.0001 << QString("0.0001");
    QTest::newRow("big fixed") << 1e15 << QString("1000000000000000.0");
    QTest::newRow("big sci") << 1e16 << QString("1e+16");
    QTest::newRow("long") << 123456789012345680.0 << QString("1.2345678901234568e+17");
    QTest::newRow("negative") << -2.5 << QString("-2.5");
    QTest::newRow("float32 tenth") << static_cast<double>(0.1f) << QString("0.10000000149011612");
    QTest::newRow("inf") << double(INFINITY) << QString("inf");
    QTest::newRow("-inf") << -double(INFINITY) << QString("-inf");
  }
  void floatRepr() {
    QFETCH(double, value);
    QFETCH(QString, python);
    QCOMPARE(QString::fromStdString(pythonFloatRepr(value)), python);
  }

  void stringRepr() {
    QCOMPARE(QString::fromStdString(pythonStringRepr("cpu")), QString("'cpu'"));
    QCOMPARE(QString::fromStdString(pythonStringRepr("it's")), QString("\"it's\""));
  }

  void lenientJsonAcceptsBareTokens() {
    const auto j = parseLenientJson(R"({"a": NaN, "b": -Infinity, "c": "NaN", "d": [Infinity, 1]})");
    QVERIFY(std::isnan(j.at("a").get<double>()));
    QCOMPARE(j.at("b").get<double>(), -INFINITY);
    QCOMPARE(QString::fromStdString(j.at("c").get<std::string>()), QString("NaN"));
    QCOMPARE(j.at("d")[0].get<double>(), INFINITY);
  }

  void pythonJsonDumpMatchesJsonDumps() {
    const auto j = parseLenientOrderedJson(R"({"z": 1e-05, "a": [-Infinity, 2.0, true, null], "s": "\u00e9"})");
    QCOMPARE(QString::fromStdString(dumpPythonJson(j)),
             QString("{\n  \"z\": 1e-05,\n  \"a\": [\n    -Infinity,\n    2.0,\n    true,\n    null\n  ],\n"
                     "  \"s\": \"\\u00e9\"\n}"));
  }

  void onDemandKeysAndStringsAsWritten() {
    // Read in place without an escape, unescaped with one: the same text either way.
    // {"plain": "conv2d", "esc\u0061ped": "a\"b\\c\u00e9\n", "": "", "tail": "x y"}, not a raw string: moc misreads one
    // with escaped quotes
    const std::string text =
        "{\"plain\": \"conv2d\", \"esc\\u0061ped\": \"a\\\"b\\\\c\\u00e9\\n\", \"\": \"\", \"tail\": \"x y\"}";
    const std::string padded = text + std::string(simdjson::SIMDJSON_PADDING, ' ');
    const json::Reader r("test.json", "model.json");
    std::vector<std::pair<std::string, std::string>> fields;
    json::parseObject(std::string_view(padded.data(), text.size()), padded.size(), r, [&](json::od::object o) {
      fields.clear();
      json::forEachField(r, o, [&](std::string_view key, json::od::value v) {
        fields.emplace_back(key, r.string(v, "a value"));
        return true;
      });
    });
    const std::vector<std::pair<std::string, std::string>> expected{
        {"plain", "conv2d"}, {"escaped", "a\"b\\c\u00e9\n"}, {"", ""}, {"tail", "x y"}};
    QCOMPARE(fields, expected);
    // Not a string: the reader's error, naming the value.
    const std::string number = std::string(R"({"n": 5})") + std::string(simdjson::SIMDJSON_PADDING, ' ');
    try {
      json::parseObject(std::string_view(number.data(), 8), number.size(), r, [&](json::od::object o) {
        json::forEachField(r, o, [&](std::string_view, json::od::value v) { return !r.string(v, "the name").empty(); });
      });
      QFAIL("a number read as a string");
    } catch (const LoadError& e) {
      QVERIFY2(std::string(e.what()).find("the name is not a string") != std::string::npos, e.what());
    }
  }

  void symbolExpressionsReadable() {
    QCOMPARE(QString::fromStdString(readableSymbolExpr("Symbol('s77', positive=True, integer=True)")), QString("s77"));
    QCOMPARE(QString::fromStdString(readableSymbolExpr("Mul(Integer(2), Symbol('s0', positive=True, integer=True))")),
             QString("2*s0"));
    QCOMPARE(QString::fromStdString(readableSymbolExpr("s0 + 1")), QString("s0 + 1"));
  }
};

QTEST_APPLESS_MAIN(TextFormatTest)
#include "TextFormatTest.moc"
