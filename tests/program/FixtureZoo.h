#pragma once
// The fixture zoo written by tests/fixtures/make_fixtures.py, shared by the data-driven tests.
#include <QString>
#include <QtTest>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "program/FxTable.h"
#include "formats/LenientJson.h"
#include "program/Program.h"
#include "formats/Safetensors.h"

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

/// Same dtype, shape and bytes, both with data.
inline bool sameTensor(const TensorData& a, const TensorData& b) {
  return a.dtype == b.dtype && a.sizes == b.sizes && a.hasData() && b.hasData() &&
         a.contiguousBytes() == b.contiguousBytes();
}

/// Every parameter, buffer and constant the program takes against torch's tensor of the same key,
/// bit for bit, and no weight the signature does not name: empty when all match, else the first
/// difference.
inline std::string weightMismatch(const Program& p, const TensorMap& torchWeights) {
  if (!p.missingData().empty()) return "no data for " + p.missingData().front();
  std::size_t compared = 0;
  for (const auto& spec : p.inputs) {
    if (spec.kind == InputKind::UserInput) continue;
    const auto ours = p.weights.find(spec.target);
    const auto theirs = torchWeights.find(spec.target);
    if (ours == p.weights.end() || theirs == torchWeights.end()) return spec.target + " is missing";
    if (!sameTensor(ours->second, theirs->second)) return spec.target + " differs";
    ++compared;
  }
  return compared == p.weights.size() ? "" : "the program holds weights its signature does not name";
}

/// Our FX table of the program against the one torch printed (a `.table.json` file), cell for
/// cell: empty when equal, else the first difference.
inline std::string fxTableMismatchWith(const Program& p, const std::string& tablePath) {
  const auto rows = fxTable(p);
  const auto expected = readJson(tablePath);
  if (rows.size() != expected.size())
    return std::to_string(rows.size()) + " rows, torch printed " + std::to_string(expected.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto& e = expected[i];
    const std::pair<const char*, const std::string*> cells[] = {{"opcode", &rows[i].opcode}, {"name", &rows[i].name},
        {"target", &rows[i].target}, {"args", &rows[i].args}, {"kwargs", &rows[i].kwargs}};
    for (const auto& [column, ours] : cells)
      if (*ours != e.at(column).get<std::string>())
        return "row " + std::to_string(i) + " " + column + ": " + *ours + " vs " + e.at(column).get<std::string>();
  }
  return "";
}

/// The same for fixture `name`, whose table is `<name>.table.json`.
inline std::string fxTableMismatch(const Program& p, const std::string& name) {
  return fxTableMismatchWith(p, fixturePath(name, ".table.json"));
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
