#pragma once
// The fixture zoo written by tests/fixtures/make_fixtures.py, shared by the data-driven tests.
#include <QString>
#include <QtTest>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "program/LenientJson.h"

namespace torchir::test {

inline std::string fixturesDir() {
  const QByteArray dir = qgetenv("TORCHIR_FIXTURES");
  if (dir.isEmpty()) qFatal("TORCHIR_FIXTURES is not set: run the tests through ctest");
  return dir.toStdString();
}

inline std::string fixturePath(const std::string& name, const std::string& suffix) {
  return fixturesDir() + "/" + name + "/" + name + suffix;
}

/// Python-written JSON, bare NaN/Infinity included.
inline nlohmann::json readJson(const std::string& path) {
  std::ifstream f(path);
  if (!f) qFatal("missing fixture file %s", path.c_str());
  return parseLenientJson(std::string(std::istreambuf_iterator<char>(f), {}));
}

inline bool fixtureHas(const std::string& name, const std::string& suffix) {
  return std::ifstream(fixturePath(name, suffix)).good();
}

/// One row per fixture of the manifest: QFETCH(QString, name), QFETCH(bool, meta) etc.
inline void addFixtureRows() {
  QTest::addColumn<QString>("name");
  QTest::addColumn<bool>("meta");
  QTest::addColumn<bool>("dynamic");
  QTest::addColumn<bool>("ir");
  QTest::addColumn<bool>("eagerFails");
  QTest::addColumn<bool>("customOp");  // uses an op defined in Python, which no run without Python has
  const auto manifest = readJson(fixturesDir() + "/manifest.json");
  for (const auto& f : manifest.at("fixtures")) {
    const std::string name = f.at("name");
    QTest::newRow(name.c_str()) << QString::fromStdString(name) << f.at("meta").get<bool>()
                                << f.at("dynamic").get<bool>() << f.at("ir").get<bool>()
                                << f.value("eager_fails", false) << f.value("custom_op", false);
  }
}

}  // namespace torchir::test
