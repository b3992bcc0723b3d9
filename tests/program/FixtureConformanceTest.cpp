// Every fixture, read by us, against what torch and pytorch-ir wrote or printed for it.
#include <QtTest>
#include <algorithm>
#include <fstream>
#include <functional>
#include <set>

#include "FixtureZoo.h"
#include "formats/ExportedProgramReader.h"
#include "program/FxTable.h"
#include "exec/AtenBackend.h"
#include "formats/IrWriter.h"
#include "formats/LenientJson.h"
#include "program/ModuleTree.h"
#include "formats/ProgramLoader.h"
#include "formats/Pt2Archive.h"
#include "formats/Pt2Reader.h"
#include "formats/Safetensors.h"

using namespace torchir;
using namespace torchir::test;

namespace {

std::string n_of(const QString& name) { return name.toStdString(); }

const SchemaLookup schemas = [](const std::string& op) { return atenBackend().schemaSpecs(op); };

/// Every value's dtype and shape as in `expected` (QCOMPARE: a failure ends this function only).
void compareValueMetas(const Program& p, const Program& expected) {
  QCOMPARE(p.values.size(), expected.values.size());
  for (std::size_t i = 0; i < p.values.size(); ++i) {
    QCOMPARE(p.values[i].dtype, expected.values[i].dtype);
    QCOMPARE(p.values[i].shape.size(), expected.values[i].shape.size());
    for (std::size_t d = 0; d < p.values[i].shape.size(); ++d) {
      QCOMPARE(p.values[i].shape[d].hint, expected.values[i].shape[d].hint);
      QCOMPARE(p.values[i].shape[d].expr, expected.values[i].shape[d].expr);
    }
    QCOMPARE(p.values[i].strides, expected.values[i].strides);
  }
}

/// The same modules (path, type, parent, children, nodes) in the same order.
void compareModules(const Program& p, const Program& expected) {
  QCOMPARE(p.modules.size(), expected.modules.size());
  for (std::size_t m = 0; m < p.modules.size(); ++m) {
    QCOMPARE(p.modules[m].path, expected.modules[m].path);
    QCOMPARE(p.modules[m].type, expected.modules[m].type);
    QCOMPARE(p.modules[m].parent, expected.modules[m].parent);
    QCOMPARE(p.modules[m].children, expected.modules[m].children);
    QCOMPARE(p.modules[m].nodes, expected.modules[m].nodes);
  }
}

}  // namespace

class FixtureConformanceTest : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void fxTableMatchesPython_data() { addFixtureRows(); }
  void fxTableMatchesPython() {
    QFETCH(QString, name);
    const std::string n = name.toStdString();
    const std::string mismatch = fxTableMismatch(loadProgram(fixturePath(n, ".pt2")), n);
    QVERIFY2(mismatch.empty(), (n + ": " + mismatch).c_str());
  }

  void weightsMatchTorchBitForBit_data() { addFixtureRows(); }
  void weightsMatchTorchBitForBit() {
    QFETCH(QString, name);
    QFETCH(bool, meta);
    const std::string n = name.toStdString();
    const Program p = loadProgram(fixturePath(n, ".pt2"));
    if (meta) {
      QCOMPARE(p.missingData().size(), p.weights.size());  // a meta export carries no bytes
      QVERIFY(!p.weights.empty());
      return;
    }
    const std::string mismatch = weightMismatch(p, readSafetensors(fixturePath(n, ".weights.safetensors")));
    QVERIFY2(mismatch.empty(), (n + ": " + mismatch).c_str());
  }

  void tiedWeightsShareOneStorage() {
    const Program p = loadProgram(fixturePath("tied", ".pt2"));
    QCOMPARE(p.weights.at("emb.weight").storage.get(), p.weights.at("head.weight").storage.get());
  }

  // A higher-order op's graph argument names its subgraph, which was read once into a Program of
  // its own; the argument does not carry the body again (it did, once per level of nesting).
  // Another writer may order an object's fields otherwise (a JSON tool that sorts or reverses
  // keys). With every object's keys reversed, the nodes come before the graph's inputs and
  // tensor_values before the nodes: the program must read exactly as torch's order reads.
  void fieldsInAnyOrderReadTheSame_data() {
    QTest::addColumn<QString>("name");
    for (const char* name : {"mlp", "cond_branch", "topk", "dynamic_batch"}) QTest::newRow(name) << name;
  }
  void fieldsInAnyOrderReadTheSame() {
    QFETCH(QString, name);
    const std::string path = fixturePath(name.toStdString(), ".pt2");
    const Program expected = loadProgram(path);
    auto ep = parseLenientOrderedJson(Pt2Archive(path).text("models/model.json"));
    std::function<nlohmann::ordered_json(const nlohmann::ordered_json&)> reversed = [&](const nlohmann::ordered_json& j) {
      if (j.is_array()) {
        auto out = nlohmann::ordered_json::array();
        for (const auto& x : j) out.push_back(reversed(x));
        return out;
      }
      if (!j.is_object()) return j;
      auto out = nlohmann::ordered_json::object();
      for (auto it = j.crbegin(); it != j.crend(); ++it) out[it.key()] = reversed(it.value());
      return out;
    };
    const auto flipped = reversed(ep);
    std::vector<std::string> graphKeys;
    for (const auto& [key, v] : flipped.at("graph_module").at("graph").items()) graphKeys.push_back(key);
    const auto at = [&](const char* key) { return std::find(graphKeys.begin(), graphKeys.end(), key) - graphKeys.begin(); };
    QVERIFY(at("tensor_values") < at("nodes") && at("nodes") < at("inputs"));
    const std::string text = flipped.dump();
    Program p;
    p.source.format = "pt2";
    readExportedProgram(text, text.capacity(), path, "models/model.json", p);
    const auto ours = fxTable(p), theirs = fxTable(expected);
    QCOMPARE(ours.size(), theirs.size());
    for (std::size_t i = 0; i < ours.size(); ++i) {
      QCOMPARE(ours[i].name, theirs[i].name);
      QCOMPARE(ours[i].target, theirs[i].target);
      QCOMPARE(ours[i].args, theirs[i].args);
      QCOMPARE(ours[i].kwargs, theirs[i].kwargs);
    }
    compareValueMetas(p, expected);
    if (QTest::currentTestFailed()) return;
    buildModuleTree(p);  // the reader made the tree (nodes before inputs here); this names the root
    compareModules(p, expected);
    if (QTest::currentTestFailed()) return;
    QCOMPARE(p.symbolRanges.size(), expected.symbolRanges.size());
    QCOMPARE(p.source.schemaVersion, expected.source.schemaVersion);
    QCOMPARE(p.inputs.size(), expected.inputs.size());
    for (std::size_t i = 0; i < p.inputs.size(); ++i) QCOMPARE(p.inputs[i].target, expected.inputs[i].target);
  }

  // The reader matches each tensor_values key against the value after the last one found (torch's
  // order) before it looks the name up: keys in another order, after the nodes, read the same.
  void tensorValuesInAnyOrderReadTheSame_data() {
    QTest::addColumn<QString>("name");
    for (const char* name : {"mlp", "cond_branch", "topk", "dynamic_batch"}) QTest::newRow(name) << name;
  }
  void tensorValuesInAnyOrderReadTheSame() {
    QFETCH(QString, name);
    const std::string path = fixturePath(name.toStdString(), ".pt2");
    const Program expected = loadProgram(path);
    auto ep = parseLenientOrderedJson(Pt2Archive(path).text("models/model.json"));
    auto& graph = ep.at("graph_module").at("graph");
    auto reversedValues = nlohmann::ordered_json::object();
    const auto& values = graph.at("tensor_values");
    QVERIFY(values.size() > 2);
    for (auto it = values.crbegin(); it != values.crend(); ++it) reversedValues[it.key()] = it.value();
    graph["tensor_values"] = reversedValues;  // an existing key keeps its place: after the nodes
    std::vector<std::string> graphKeys;
    for (const auto& [key, v] : graph.items()) graphKeys.push_back(key);
    const auto at = [&](const char* key) {
      return std::find(graphKeys.begin(), graphKeys.end(), key) - graphKeys.begin();
    };
    QVERIFY(at("nodes") < at("tensor_values"));
    const std::string text = ep.dump();
    Program p;
    p.source.format = "pt2";
    readExportedProgram(text, text.capacity(), path, "models/model.json", p);
    compareValueMetas(p, expected);
  }

  void graphArgumentsKeepOnlyTheirName() {
    const Program p = loadProgram(fixturePath("cond_branch", ".pt2"));
    const Node& cond = p.node(*p.findNode("cond"));
    int graphs = 0;
    for (const NodeArgument& a : cond.inputs) {
      const auto* graph = a.arg.as<arg::Graph>();
      if (!graph) continue;
      ++graphs;
      const std::string name = graph->name;
      QCOMPARE(a.values, std::vector<ValueId>{graph->value});
      const Node& getAttr = p.node(p.value(graph->value).producer);
      QCOMPARE(getAttr.name, name);  // the get_attr node, whose subgraph is the body
      QVERIFY(getAttr.subgraph >= 0);
    }
    QCOMPARE(graphs, 2);
  }

  void convertMatchesPytorchIr_data() { addFixtureRows(); }
  void convertMatchesPytorchIr() {
    QFETCH(QString, name);
    QFETCH(bool, ir);
    const std::string n = name.toStdString();
    const Program p = loadProgram(fixturePath(n, ".pt2"));
    if (!ir) {
      std::ifstream f(fixturePath(n, ".ir_error.txt"));
      std::string expected;
      std::getline(f, expected);
      QVERIFY_THROWS_EXCEPTION(ConversionError, toIrJson(p, "", schemas));
      try {
        toIrJson(p, "", schemas);
      } catch (const ConversionError& e) {
        QCOMPARE(QString(e.what()), QString::fromStdString(expected));
      }
      return;
    }
    // Through our own writer and lenient reader, so NaN/Infinity and float text round-trip too.
    auto ours = parseLenientJson(dumpPythonJson(toIrJson(p, "", schemas)));
    std::ifstream f(fixturePath(n, ".ir.json"));
    auto theirs = parseLenientJson(std::string(std::istreambuf_iterator<char>(f), {}));
    ours.erase("pytorch_version");
    theirs.erase("pytorch_version");
    if (ours != theirs) {
      for (const auto& [key, value] : theirs.items())
        QVERIFY2(ours[key] == value, (n + ": key " + key + " differs").c_str());
    }
    QCOMPARE(ours.size(), theirs.size());
  }

  void irJsonReadsWithWeights_data() { addFixtureRows(); }
  void irJsonReadsWithWeights() {
    QFETCH(QString, name);
    QFETCH(bool, meta);
    QFETCH(bool, ir);
    const std::string n = name.toStdString();
    if (!ir) QSKIP("pytorch-ir refuses this program, so it has no IR JSON");
    const bool ownWeights = fixtureHas(n, ".weights.safetensors");
    const std::string weights = fixturePath(ownWeights ? n : "mlp", ".weights.safetensors");
    const std::string constants = fixtureHas(n, ".constants.safetensors") ? fixturePath(n, ".constants.safetensors") : "";
    const Program fromIr = loadProgram(fixturePath(n, ".ir.json"), LoadOptions{weights, constants});
    const Program fromPt2 = loadProgram(fixturePath(n, ".pt2"));
    QVERIFY2(fromIr.missingData().empty(), n.c_str());
    const auto irJson = readJson(fixturePath(n, ".ir.json"));
    int ops = 0;
    for (const auto& node : fromIr.nodes) ops += node.opcode == Opcode::CallFunction;
    QCOMPARE(ops, static_cast<int>(irJson.at("nodes").size()));
    QCOMPARE(fromIr.outputs.size(), irJson.at("graph_outputs").size());
    if (meta) return;
    for (const auto& [key, tensor] : fromIr.weights)  // constants from the JSON, weights from the file
      QVERIFY2(sameTensor(tensor, fromPt2.weights.at(key)), (n + ": " + key).c_str());
  }

  void sampleInputsMatchTorch_data() { addFixtureRows(); }
  void sampleInputsMatchTorch() {
    QFETCH(QString, name);
    QFETCH(bool, meta);
    if (meta) QSKIP("a meta export's sample inputs have no data");
    if (!fixtureHas(n_of(name), ".inputs.safetensors")) QSKIP("no inputs file");
    const std::string n = name.toStdString();
    const Program p = loadProgram(fixturePath(n, ".pt2"));
    const TensorMap inputs = readSafetensors(fixturePath(n, ".inputs.safetensors"));
    QCOMPARE(p.sampleInputs.size(), inputs.size());
    for (std::size_t i = 0; i < p.sampleInputs.size(); ++i)
      QVERIFY(sameTensor(p.sampleInputs[i], inputs.at("input_" + std::to_string(i))));
  }

  void irJsonTakesTorchSaveStateDict_data() {
    QTest::addColumn<QString>("name");
    for (const char* n : {"mlp", "tied", "buffers", "lifted_constant", "resnet18"}) QTest::newRow(n) << QString(n);
  }
  void irJsonTakesTorchSaveStateDict() {
    QFETCH(QString, name);
    const std::string n = name.toStdString();
    const Program p = loadProgram(fixturePath(n, ".ir.json"), LoadOptions{fixturePath(n, ".state_dict.pt"), ""});
    QVERIFY(p.missingData().empty());
    const TensorMap torchWeights = readSafetensors(fixturePath(n, ".weights.safetensors"));
    for (const auto& [key, tensor] : p.weights) QVERIFY2(sameTensor(tensor, torchWeights.at(key)), key.c_str());
  }

  void metaExportRunsOnceGivenWeights() {
    const auto path = fixturePath("meta_mlp", ".pt2");
    QCOMPARE(loadProgram(path).missingData(),
             (std::vector<std::string>{"fc1.bias", "fc1.weight", "fc2.bias", "fc2.weight"}));
    const Program p = loadProgram(path, LoadOptions{fixturePath("mlp", ".weights.safetensors"), ""});
    QVERIFY(p.missingData().empty());
  }

  void dynamicBatchKeepsSymbolAndRange() {
    const Program p = loadProgram(fixturePath("dynamic_batch", ".pt2"));
    QVERIFY(p.isDynamic());
    const Value& x = p.value(*p.findValue("x"));
    QCOMPARE(QString::fromStdString(x.shape[0].expr), QString("s77"));
    QCOMPARE(x.shape[0].hint, 4);
    QCOMPARE(*p.symbolRanges.at("s77").min, 1);
    QCOMPARE(*p.symbolRanges.at("s77").max, 64);
  }

  void moduleStackAndStackTraceAreKept() {
    const Program p = loadProgram(fixturePath("resnet18", ".pt2"));
    const Node& conv = p.node(*p.findNode("conv2d_1"));
    QVERIFY(!conv.stackTraceText().empty());
    QVERIFY(!conv.moduleFrames().empty());
    QCOMPARE(QString::fromStdString(conv.moduleFrames().front().path), QString("layer1"));
    QCOMPARE(QString::fromStdString(p.source.modelName), QString("ResNet"));
  }

  // The .pt2 reader makes the module tree from the nodes while it reads the rest of the file, and
  // adds the nodes made after them (the output): the tree made from all nodes at once.
  void moduleTreeMadeWhileReadingIsTheWholeTree_data() { addFixtureRows(); }
  void moduleTreeMadeWhileReadingIsTheWholeTree() {
    QFETCH(QString, name);
    Program read = readPt2(fixturePath(n_of(name), ".pt2"));  // the reader alone: no tree made after it
    QVERIFY(!read.modules.empty());
    buildModuleTree(read);  // names the root
    Program afresh = read;
    afresh.modules.clear();
    buildModuleTree(afresh);
    compareModules(read, afresh);
    QCOMPARE(read.modules.front().type, read.source.modelName);
    QVERIFY(read.modules.front().nodes.size() >= 1);
    QCOMPARE(read.node(read.modules.front().nodes.back()).opcode, Opcode::Output);
  }

  void moduleHierarchyFollowsTheModel() {
    const Program p = loadProgram(fixturePath("resnet18", ".pt2"));
    QCOMPARE(QString::fromStdString(p.modules.front().path), QString(""));
    std::vector<std::string> top;
    for (int c : p.modules.front().children) top.push_back(p.modules[static_cast<std::size_t>(c)].path);
    QCOMPARE(top, (std::vector<std::string>{"conv1", "bn1", "relu", "maxpool", "layer1", "layer2", "layer3", "layer4",
                                            "avgpool", "fc"}));
    const Node& conv = p.node(*p.findNode("conv2d_1"));
    const Module* inner = nullptr;
    for (const auto& m : p.modules)
      for (NodeId n : m.nodes)
        if (n == conv.id) inner = &m;
    QVERIFY(inner);
    QCOMPARE(QString::fromStdString(inner->path), QString("layer1.0.conv1"));
    QCOMPARE(QString::fromStdString(p.modules[static_cast<std::size_t>(inner->parent)].path), QString("layer1.0"));
    std::size_t placed = 0;
    for (const auto& m : p.modules) placed += m.nodes.size();
    QCOMPARE(placed, p.nodes.size());  // every node sits in exactly one module
  }
};

QTEST_APPLESS_MAIN(FixtureConformanceTest)
#include "FixtureConformanceTest.moc"
