// The program cache: every `.pt2` of the fixture zoo read back from its entry is the program its
// JSON gives, shared texts still shared; a damaged, foreign or hostile entry is ignored with a
// note and removed, and the program is read from its file.
#include <QDirIterator>
#include <QTemporaryDir>
#include <QtTest>
#include <fstream>
#include <set>
#include <string>
#include <tuple>

#include "FixtureZoo.h"
#include "formats/ProgramCache.h"
#include "formats/ProgramCodec.h"
#include "formats/ProgramLoader.h"
#include "program/FxTable.h"
#include "program/LoadError.h"

using namespace torchir;

namespace {

/// Every `.pt2` the zoo holds that opens, torch.export's, torchao's and ExecuTorch's alike.
std::vector<std::string> zooPrograms() {
  std::vector<std::string> paths;
  QDirIterator it(QString::fromStdString(test::fixturesDir()), {QStringLiteral("*.pt2")}, QDir::Files,
                  QDirIterator::Subdirectories);
  while (it.hasNext()) {
    const std::string path = it.next().toStdString();
    try {
      loadProgram(path);
      paths.push_back(path);
    } catch (const LoadError&) {  // the zoo's deliberately broken files
    }
  }
  std::sort(paths.begin(), paths.end());
  return paths;
}

template <class T>
std::size_t distinct(const Program& p, std::shared_ptr<const T> Node::*member) {
  std::set<const T*> seen;
  for (const Node& n : p.nodes) seen.insert((n.*member).get());
  return seen.size();
}

/// What a codec that dropped or changed a field would not show in its own encoding of both:
/// the FX table as Python prints it, and each node's and value's fields read directly.
std::string fieldDifference(const Program& json, const Program& cached) {
  const auto a = fxTable(json), b = fxTable(cached);
  if (a.size() != b.size()) return "the FX tables differ in length";
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i].opcode != b[i].opcode || a[i].name != b[i].name || a[i].target != b[i].target || a[i].args != b[i].args ||
        a[i].kwargs != b[i].kwargs)
      return "FX row " + a[i].name + " differs";
  if (json.nodes.size() != cached.nodes.size() || json.values.size() != cached.values.size()) return "sizes differ";
  for (std::size_t i = 0; i < json.nodes.size(); ++i) {
    const Node &x = json.nodes[i], &y = cached.nodes[i];
    const auto origin = [](const Node& n) {
      return n.origin ? std::make_tuple(n.origin->name, n.origin->graphId, n.origin->debugHandle, n.origin->deviceHandle)
                      : std::make_tuple(std::string("-"), int64_t{0}, std::optional<int64_t>{}, std::optional<int64_t>{});
    };
    if (x.id != y.id || x.outputs != y.outputs || x.returnsTuple != y.returnsTuple || x.returnsList != y.returnsList ||
        x.subgraph != y.subgraph || x.stackTraceText() != y.stackTraceText() || origin(x) != origin(y) ||
        !x.serializedTarget != !y.serializedTarget || (x.serializedTarget && *x.serializedTarget != *y.serializedTarget))
      return "node " + x.name + " differs";
    const auto &fx = x.moduleFrames(), &fy = y.moduleFrames();
    if (fx.size() != fy.size()) return "node " + x.name + "'s module stack differs";
    for (std::size_t f = 0; f < fx.size(); ++f)
      if (fx[f].path != fy[f].path || fx[f].type != fy[f].type) return "node " + x.name + "'s module stack differs";
  }
  for (std::size_t i = 0; i < json.values.size(); ++i) {
    const Value &x = json.values[i], &y = cached.values[i];
    bool same = x.id == y.id && x.name == y.name && x.kind == y.kind && x.dtype == y.dtype && x.strides == y.strides &&
                x.device == y.device && x.producer == y.producer && x.outputIndex == y.outputIndex &&
                x.shape.size() == y.shape.size();
    for (std::size_t d = 0; same && d < x.shape.size(); ++d)
      same = x.shape[d].hint == y.shape[d].hint && x.shape[d].expr == y.shape[d].expr;
    if (!same) return "value " + x.name + " differs";
  }
  if (json.modules.size() != cached.modules.size()) return "the module trees differ";
  for (std::size_t i = 0; i < json.modules.size(); ++i) {
    const Module &x = json.modules[i], &y = cached.modules[i];
    if (x.path != y.path || x.type != y.type || x.parent != y.parent || x.children != y.children || x.nodes != y.nodes)
      return "module " + x.path + " differs";
  }
  for (std::size_t i = 0; i < json.inputs.size() && i < cached.inputs.size(); ++i)
    if (json.inputs[i].kind != cached.inputs[i].kind || json.inputs[i].target != cached.inputs[i].target ||
        json.inputs[i].persistent != cached.inputs[i].persistent)
      return "input " + json.inputs[i].target + " differs";
  if (json.inputs.size() != cached.inputs.size() || json.outputs.size() != cached.outputs.size() ||
      json.symbolRanges.size() != cached.symbolRanges.size() || json.inputSymbols != cached.inputSymbols ||
      json.subgraphs.size() != cached.subgraphs.size() || json.source.torchVersion != cached.source.torchVersion ||
      json.source.schemaVersion != cached.source.schemaVersion || json.source.verifiers != cached.source.verifiers ||
      json.source.modelName != cached.source.modelName || json.source.format != cached.source.format)
    return "the signature or source differs";
  for (std::size_t i = 0; i < json.subgraphs.size(); ++i) {
    if (json.subgraphs[i].name != cached.subgraphs[i].name) return "subgraph " + json.subgraphs[i].name + " differs";
    if (auto d = fieldDifference(*json.subgraphs[i].graph, *cached.subgraphs[i].graph); !d.empty())
      return "subgraph " + json.subgraphs[i].name + ": " + d;
  }
  return "";
}

/// The first difference between a program read from its JSON and one read from the cache, or "".
std::string difference(const Program& json, const Program& cached) {
  if (auto d = fieldDifference(json, cached); !d.empty()) return d;
  // Everything the codec writes, byte for byte: nodes, values, signature, modules, subgraphs...
  if (encodeProgramGraph(json) != encodeProgramGraph(cached)) return "the graphs differ";
  // ...what it derives instead...
  for (std::size_t v = 0; v < json.values.size(); ++v)
    if (json.values[v].users != cached.values[v].users) return "value " + json.values[v].name + "'s users differ";
  for (std::size_t n = 0; n < json.nodes.size(); ++n)
    for (std::size_t a = 0; a < json.nodes[n].inputs.size(); ++a)
      if (json.nodes[n].inputs[a].values != cached.nodes[n].inputs[a].values) return json.nodes[n].name + "'s argument values differ";
  // ...what it leaves to the archive, and what nodes share.
  if (json.source.path != cached.source.path || json.source.layout != cached.source.layout) return "the source differs";
  if (json.weights.size() != cached.weights.size() || json.sampleInputs.size() != cached.sampleInputs.size())
    return "the weights differ";
  for (const auto& [name, w] : json.weights)
    if (!cached.weights.count(name) || !cached.weights.at(name).storage != !w.storage) return "weight " + name + " differs";
  if (distinct(json, &Node::stackTrace) != distinct(cached, &Node::stackTrace) ||
      distinct(json, &Node::moduleStack) != distinct(cached, &Node::moduleStack) ||
      distinct(json, &Node::serializedTarget) != distinct(cached, &Node::serializedTarget))
    return "shared texts are no longer shared";
  return "";
}

std::string readFile(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

void writeFile(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

}  // namespace

class ProgramCacheTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void everyProgramReadsBackAsItsJsonGivesIt() {
    QTemporaryDir dir;
    ProgramCache cache(dir.path().toStdString(), 0);
    const auto programs = zooPrograms();
    QVERIFY2(programs.size() > 50, "the fixture zoo is missing");
    int cached = 0;
    for (const std::string& path : programs) {
      const Program fromJson = loadProgram(path, {{}, {}, &cache});
      const auto key = cache.takeMiss();
      if (!key) continue;  // an older layout (a flat zip, pickled programs) is read as it is
      QVERIFY2(cache.store(*key, fromJson), path.c_str());
      const int hits = cache.hits();
      const Program fromCache = loadProgram(path, {{}, {}, &cache});
      QVERIFY2(cache.hits() == hits + 1, path.c_str());
      QVERIFY2(!cache.takeMiss(), path.c_str());
      const std::string diff = difference(fromJson, fromCache);
      QVERIFY2(diff.empty(), (path + ": " + diff).c_str());
      ++cached;
    }
    QVERIFY2(cached > 50, std::to_string(cached).c_str());
    QVERIFY(cache.takeNotes().empty());
    // the least recently used entries are dropped past the bound
    QCOMPARE(QDir(dir.path()).entryList({QStringLiteral("*.program")}).size(), int(ProgramCache::kMaxEntries));
  }

  void aBadEntryIsIgnoredWithANoteAndRemoved_data() {
    QTest::addColumn<QString>("damage");
    QTest::addColumn<QString>("noted");
    QTest::newRow("truncated") << "truncate" << "holds";
    QTest::newRow("made from other JSON") << "json" << "made from another version";
    QTest::newRow("a body byte flipped") << "flip" << "do not match their hash";
    QTest::newRow("another torchir's") << "header" << "another version";
    QTest::newRow("empty") << "empty" << "shorter than";
    // A well-formed entry, its hash right, whose graph names what does not exist.
    QTest::newRow("a node's output past the values") << "output" << "out of range";
    QTest::newRow("a module before its parent") << "module" << "has child";
    QTest::newRow("a getitem of no node") << "getitem" << "names node";
    QTest::newRow("a getitem of itself") << "self" << "not before it";
    QTest::newRow("a subgraph with no graph") << "subgraph" << "has no graph";
    QTest::newRow("a negative size") << "size" << "negative dimension";
    QTest::newRow("a module listed twice") << "twice" << "listed twice";
  }
  void aBadEntryIsIgnoredWithANoteAndRemoved() {
    QFETCH(QString, damage);
    QFETCH(QString, noted);
    const std::string path = test::fixturePath("cnn_bn", ".pt2");
    QTemporaryDir dir;
    ProgramCache cache(dir.path().toStdString(), 0);
    const Program fromJson = loadProgram(path, {{}, {}, &cache});
    const auto key = cache.takeMiss();
    QVERIFY(key);
    const std::string entry = dir.path().toStdString() + "/" + key->fileName();

    Program bad = fromJson;
    if (damage == "output") bad.nodes[3].outputs.push_back(static_cast<ValueId>(bad.values.size()));
    if (damage == "module") bad.modules.back().parent = static_cast<int>(bad.modules.size());
    if (damage == "getitem" || damage == "self") {
      NodeArgument a;
      const auto last = static_cast<NodeId>(bad.nodes.size() - 1);
      a.arg = arg::OutputOf{damage == "self" ? last : last + 8, 0};
      bad.nodes.back().inputs.insert(bad.nodes.back().inputs.begin(), a);
    }
    if (damage == "subgraph") bad.subgraphs.push_back(Subgraph{"true_graph_0", nullptr});
    if (damage == "size") bad.values.back().shape.push_back(Dim{-3, ""});
    if (damage == "twice") bad.modules.front().children.push_back(bad.modules.front().children.front());
    ProgramCache::Key stored = *key;
    if (damage == "json") stored.jsonCrc ^= 1;  // as if the file had been written again, same size and time
    QVERIFY(cache.store(stored, bad));
    std::string bytes = readFile(entry);
    if (damage == "truncate") bytes.resize(bytes.size() - 9);
    if (damage == "flip") bytes[bytes.size() - 5] ^= 0x10;
    if (damage == "header") bytes[10] ^= 0x01;
    if (damage == "empty") bytes.clear();
    writeFile(entry, bytes);

    const Program opened = loadProgram(path, {{}, {}, &cache});
    QCOMPARE(cache.hits(), 0);
    QVERIFY(difference(fromJson, opened).empty());
    const auto notes = cache.takeNotes();
    QCOMPARE(notes.size(), std::size_t{1});
    QVERIFY2(notes[0].find(noted.toStdString()) != std::string::npos, notes[0].c_str());
    QVERIFY2(notes[0].find(key->fileName()) != std::string::npos, notes[0].c_str());  // names the entry
    QVERIFY(!QFile::exists(QString::fromStdString(entry)));
    QVERIFY(cache.takeMiss());  // and it is written again once the program is open
  }

  void smallProgramsAndOtherFilesFindNoEntry() {
    QTemporaryDir dir;
    ProgramCache cache(dir.path().toStdString());  // the default bound: 8 MB
    QVERIFY(!cache.keyFor(test::fixturePath("cnn_bn", ".pt2")));
    loadProgram(test::fixturePath("cnn_bn", ".pt2"), {{}, {}, &cache});
    QVERIFY(!cache.takeMiss());
    // a key is the file's: another file, or this one written again, is another entry
    ProgramCache all(dir.path().toStdString(), 0);
    const std::string copy = dir.path().toStdString() + "/copy.pt2";
    QVERIFY(QFile::copy(QString::fromStdString(test::fixturePath("cnn_bn", ".pt2")), QString::fromStdString(copy)));
    const auto a = all.keyFor(test::fixturePath("cnn_bn", ".pt2")), b = all.keyFor(copy);
    QVERIFY(a && b && a->fileName() != b->fileName());
    QFile touched(QString::fromStdString(copy));
    QVERIFY(touched.open(QIODevice::ReadWrite));
    QVERIFY(touched.setFileTime(touched.fileTime(QFileDevice::FileModificationTime).addSecs(-60), QFileDevice::FileModificationTime));
    touched.close();
    QVERIFY(all.keyFor(copy)->fileName() != b->fileName());
  }
};

QTEST_GUILESS_MAIN(ProgramCacheTest)
#include "ProgramCacheTest.moc"
