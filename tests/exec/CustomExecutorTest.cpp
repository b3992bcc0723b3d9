// Custom executors (pytorch-ir's register_executor): loaded from a library, found by op type,
// called with the node's tensors and attributes.
#include <dlfcn.h>

#include <QtTest>

#include "../program/FixtureZoo.h"
#include "exec/AtenBackend.h"
#include "exec/Session.h"
#include "formats/ProgramLoader.h"
#include "formats/Safetensors.h"

using namespace torchir;
using namespace torchir::test;

class CustomExecutorTest : public QObject {
  Q_OBJECT
 private:
  static int reluCalls() {
    void* lib = dlopen(TORCHIR_TEST_EXECUTORS, RTLD_NOW | RTLD_NOLOAD);
    auto calls = lib ? reinterpret_cast<int (*)()>(dlsym(lib, "torchir_test_relu_calls")) : nullptr;
    return calls ? calls() : -1;
  }

  static void runsAndMatches(const std::string& file, const LoadOptions& options) {
    const Program p = loadProgram(file, options);
    auto s = atenBackend().createSession(p);
    QVERIFY(s->setInputs({readSafetensors(fixturePath("mlp", ".inputs.safetensors")).at("input_0")}).ok());
    QCOMPARE(s->run().reason, StopReason::Finished);
    const auto expected = readSafetensors(fixturePath("mlp", ".outputs.safetensors")).at("output_0");
    QVERIFY(s->outputs().at(0).contiguousBytes() == expected.contiguousBytes());
    const NodeRecord* relu = s->record(*p.findNode("relu"));
    QVERIFY(relu);
    QVERIFY(QString::fromStdString(relu->schema).contains("custom executor"));
    QCOMPARE(relu->arguments.at(0).source, ArgSource::Input);
  }

 private Q_SLOTS:
  void initTestCase() {
    QVERIFY(atenBackend().registeredExecutors().empty());
    atenBackend().loadExecutors(TORCHIR_TEST_EXECUTORS);
    QCOMPARE(atenBackend().registeredExecutors(), std::vector<std::string>{"aten.relu"});
  }

  void replacesTheDispatcherForItsOp() {
    const int before = reluCalls();
    runsAndMatches(fixturePath("mlp", ".pt2"), {});
    QCOMPARE(reluCalls(), before + 1);  // aten.relu.default found by its name without the overload
  }

  void servesIrJsonToo() {
    const int before = reluCalls();
    runsAndMatches(fixturePath("mlp", ".ir.json"), LoadOptions{fixturePath("mlp", ".weights.safetensors"), ""});
    QCOMPARE(reluCalls(), before + 1);
  }

  void aMissingLibraryIsAnError() {
    QVERIFY_THROWS_EXCEPTION(std::runtime_error, atenBackend().loadExecutors("/nonexistent/libnothing.so"));
  }
};

QTEST_APPLESS_MAIN(CustomExecutorTest)
#include "CustomExecutorTest.moc"
