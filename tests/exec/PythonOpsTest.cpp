// Ops defined in Python, run by a worker process of the user's Python (the fixture venv's): the
// programs of tests/fixtures/make_python_ops.py against eager's (and pytorch-ir's) outputs, a
// raising op's traceback as the diagnosis, a worker killed, stopped or timed out mid-call.
#include <signal.h>

#include <QDir>
#include <QFile>
#include <QtTest>
#include <cstdlib>
#include <fstream>
#include <thread>

#include "../program/FixtureZoo.h"
#include "CliProcess.h"
#include "exec/AtenBackend.h"
#include "exec/Session.h"
#include "formats/ProgramLoader.h"
#include "formats/Safetensors.h"

using namespace torchir;
using namespace torchir::test;

namespace {

std::string pyopsDir() { return fixturesDir() + "/pyops"; }
std::string pyops(const std::string& name, const std::string& suffix) {
  return pyopsDir() + "/" + name + "/" + name + suffix;
}

PythonHostOptions withModule() {
  PythonHostOptions o;
  o.python = TORCHIR_TEST_PYTHON;
  o.imports = {"torchir_pyops"};
  return o;
}

struct SessionRun {
  std::unique_ptr<Session> session;
  StepOutcome outcome;
};

SessionRun runProgram(const Program& p, const std::string& inputs) {
  SessionRun r{atenBackend().createSession(p), {}};
  std::vector<TensorData> in;
  for (const auto& [name, t] : readSafetensors(inputs)) in.push_back(t);  // input_0, input_1, ... in order
  const Diagnosis refused = r.session->setInputs(in);
  if (!refused.ok()) throw std::runtime_error(refused.message);
  r.outcome = r.session->run();
  return r;
}

/// A float32 tensor's values times `factor`, in memory of its own.
TensorData scaled(const TensorData& t, float factor) {
  auto values = std::make_shared<std::vector<float>>(static_cast<std::size_t>(t.numel()));
  const auto* from = reinterpret_cast<const float*>(t.storage->data) + t.storageOffset;
  for (std::size_t i = 0; i < values->size(); ++i) (*values)[i] = from[i] * factor;
  TensorData out = t;
  out.storageOffset = 0;
  out.storage = std::make_shared<Storage>(Storage{reinterpret_cast<const std::byte*>(values->data()),
                                                  values->size() * sizeof(float), values, "scaled"});
  return out;
}

/// The state letter of process `pid` in /proc ('Z' for a zombie: dead, not yet reaped); 0 if none.
char processState(int pid) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  std::getline(f, line);
  const auto close = line.rfind(')');
  return close == std::string::npos || close + 2 >= line.size() ? 0 : line[close + 2];
}

/// Every output equal to output_<i> of the file, bit for bit; "" when so.
std::string mismatch(const Session& s, const std::string& expectedFile) {
  const auto expected = readSafetensors(expectedFile);
  const auto outputs = s.outputs();
  if (outputs.size() != expected.size()) return std::to_string(outputs.size()) + " outputs";
  for (std::size_t i = 0; i < outputs.size(); ++i)
    if (!sameTensor(outputs[i], expected.at("output_" + std::to_string(i)))) return "output " + std::to_string(i) + " differs";
  return {};
}

}  // namespace

class PythonOpsTest : public QObject {
  Q_OBJECT
 private:
  QTemporaryDir m_tmp;
  /// Where the slow op writes its worker's pid on entry (every worker of the test is told).
  std::string enteredFile() const { return m_tmp.filePath("entered").toStdString(); }

  /// Runs the hour-long py_slow on a thread until its op is in Python (it writes the worker's pid
  /// to a file on entry), then `act(pid, session)`; returns the run's outcome.
  StepOutcome whileInPython(const std::function<void(int, Session&)>& act) {
    const std::string entered = enteredFile();
    std::remove(entered.c_str());
    const Program p = loadProgram(pyops("py_slow", ".pt2"));  // the run's thread is joined before it goes
    auto session = atenBackend().createSession(p);
    session->setInputs({readSafetensors(pyops("py_slow", ".inputs.safetensors")).at("input_0")});
    StepOutcome outcome;
    std::thread run([&] { outcome = session->run(); });
    bool in = false;
    for (int i = 0; i < 6000 && !in; ++i) {  // up to a minute for the worker to start and enter
      std::ifstream f(entered);
      int pid = 0;
      in = static_cast<bool>(f >> pid);
      if (in) act(pid, *session);
      else QTest::qWait(10);
    }
    if (!in) session->requestCancel();  // the test fails below, not waiting an hour
    run.join();
    if (!in) throw std::runtime_error("the slow op never entered Python");
    return outcome;
  }

 private Q_SLOTS:
  void initTestCase() {
    if (!std::ifstream(pyopsDir() + "/manifest.json")) QSKIP("no pyops fixtures (scripts/fixtures.sh writes them)");
    // the worker imports the fixtures' modules as users import theirs: from its path
    setenv("PYTHONPATH", pyopsDir().c_str(), 1);
    setenv("TORCHIR_PYOPS_ENTERED", enteredFile().c_str(), 1);
    atenBackend().setThreads(1);  // the fixtures' outputs were made with one thread
  }

  void withoutAPythonTheDiagnosisSaysHowToNameOne() {
    const Program p = loadProgram(pyops("py_scale", ".pt2"));
    const SessionRun r = runProgram(p, pyops("py_scale", ".inputs.safetensors"));
    QCOMPARE(r.outcome.reason, StopReason::Failed);
    QCOMPARE(r.outcome.diagnosis.kind, DiagnosisClass::OpNotFound);
    QVERIFY(r.outcome.diagnosis.message.find("--python PATH") != std::string::npos);
    QCOMPARE(atenBackend().pythonWorkerPid(), -1);  // no Python named: none started
  }

  void aCustomOpRunsToEagersBits() {
    atenBackend().setPythonHost(withModule());
    const Program p = loadProgram(pyops("py_scale", ".pt2"));
    const SessionRun r = runProgram(p, pyops("py_scale", ".inputs.safetensors"));
    QCOMPARE(r.outcome.reason, StopReason::Finished);
    QCOMPARE(mismatch(*r.session, pyops("py_scale", ".outputs.safetensors")), std::string());
    const NodeRecord* scale = r.session->record(*p.findNode("scale"));
    QVERIFY(scale);
    QVERIFY(scale->schema.find("torchir_py::scale(Tensor x, float factor) -> Tensor") == 0);
    QVERIFY(scale->schema.find("run in Python") != std::string::npos);
    QCOMPARE(scale->arguments.at(1).value.text, std::string("0.5"));  // the float, rebuilt from the schema
  }

  void aTensorListOpReturnsTwoTensors() {
    atenBackend().setPythonHost(withModule());
    const Program p = loadProgram(pyops("py_list", ".pt2"));
    const SessionRun r = runProgram(p, pyops("py_list", ".inputs.safetensors"));
    QCOMPARE(r.outcome.reason, StopReason::Finished);
    QCOMPARE(mismatch(*r.session, pyops("py_list", ".outputs.safetensors")), std::string());
  }

  void aRaisingOpsTracebackIsTheDiagnosis() {
    atenBackend().setPythonHost(withModule());
    const Program p = loadProgram(pyops("py_raise", ".pt2"));
    const SessionRun bad = runProgram(p, pyops("py_raise", ".bad.inputs.safetensors"));
    QCOMPARE(bad.outcome.reason, StopReason::Failed);
    const Diagnosis& d = bad.outcome.diagnosis;
    QCOMPARE(d.kind, DiagnosisClass::PythonError);
    QCOMPARE(d.nodeName, std::string("checked_log"));
    const std::string eager = readJson(pyopsDir() + "/py_raise/expected.json").at("error");
    QCOMPARE(d.message, "ValueError: " + eager);
    QVERIFY(d.traceback.find("torchir_pyops.py") != std::string::npos);
    QVERIFY(d.traceback.find("raise ValueError") != std::string::npos);
    // the worker lives on: the good inputs run next, in the same worker
    const int pid = atenBackend().pythonWorkerPid();
    const SessionRun good = runProgram(p, pyops("py_raise", ".inputs.safetensors"));
    QCOMPARE(good.outcome.reason, StopReason::Finished);
    QCOMPARE(mismatch(*good.session, pyops("py_raise", ".outputs.safetensors")), std::string());
    QCOMPARE(atenBackend().pythonWorkerPid(), pid);
  }

  void largeTensorsTravelInSharedBuffersToEagersBits() {
    // 256 KiB each way, past the arena's 64 KiB: shared buffers in, shared buffers as the outputs' storage
    atenBackend().setPythonHost(withModule());
    const Program p = loadProgram(pyops("py_large", ".pt2"));
    const SessionRun r = runProgram(p, pyops("py_large", ".inputs.safetensors"));
    QVERIFY2(r.outcome.reason == StopReason::Finished, r.outcome.diagnosis.message.c_str());
    QCOMPARE(mismatch(*r.session, pyops("py_large", ".outputs.safetensors")), std::string());
  }

  void largeTensorsReuseTheirSharedBuffersRunAfterRun() {
    // the first runs make buffers (each a memfd both processes fault in); later runs only reuse them
    atenBackend().setPythonHost({});  // a new worker, and a pool with no buffers yet
    atenBackend().setPythonHost(withModule());
    const Program p = loadProgram(pyops("py_large", ".pt2"));
    std::vector<std::size_t> made;
    for (int run = 0; run < 4; ++run) {
      const std::size_t before = atenBackend().pythonCallTraffic().buffersMade;
      const SessionRun r = runProgram(p, pyops("py_large", ".inputs.safetensors"));
      QVERIFY2(r.outcome.reason == StopReason::Finished, r.outcome.diagnosis.message.c_str());
      QCOMPARE(mismatch(*r.session, pyops("py_large", ".outputs.safetensors")), std::string());
      made.push_back(atenBackend().pythonCallTraffic().buffersMade - before);
    }
    QVERIFY(made[0] > 0);
    QCOMPARE(made[2], std::size_t{0});
    QCOMPARE(made[3], std::size_t{0});
  }

  void aResultKeptKeepsItsBitsWhileLaterCallsRun() {
    // a result lives in a shared buffer: no later call may write into it while the result lives
    atenBackend().setPythonHost(withModule());
    const Program p = loadProgram(pyops("py_large", ".pt2"));
    const SessionRun kept = runProgram(p, pyops("py_large", ".inputs.safetensors"));
    QCOMPARE(kept.outcome.reason, StopReason::Finished);
    for (float factor : {-1.0f, 3.0f}) {
      std::vector<TensorData> other;
      for (const auto& [name, t] : readSafetensors(pyops("py_large", ".inputs.safetensors"))) other.push_back(scaled(t, factor));
      SessionRun later{atenBackend().createSession(p), {}};
      QVERIFY(later.session->setInputs(other).ok());
      later.outcome = later.session->run();
      QCOMPARE(later.outcome.reason, StopReason::Finished);
      QVERIFY(mismatch(*later.session, pyops("py_large", ".outputs.safetensors")) != std::string());
    }
    QCOMPARE(mismatch(*kept.session, pyops("py_large", ".outputs.safetensors")), std::string());
  }

  void aWeightGoesToPythonAsItsFilesPages() {
    // the worker maps the .pt2's own bytes of the 256 KiB weight (a descriptor and an offset), not a copy
    atenBackend().setPythonHost(withModule());
    const Program p = loadProgram(pyops("py_weight", ".pt2"));
    const PythonCallTraffic before = atenBackend().pythonCallTraffic();
    const SessionRun r = runProgram(p, pyops("py_weight", ".inputs.safetensors"));
    QVERIFY2(r.outcome.reason == StopReason::Finished, r.outcome.diagnosis.message.c_str());
    QCOMPARE(mismatch(*r.session, pyops("py_weight", ".outputs.safetensors")), std::string());
    const PythonCallTraffic after = atenBackend().pythonCallTraffic();
    QCOMPARE(after.fileBytes - before.fileBytes, std::size_t{256 * 256 * 4});
    QCOMPARE(after.copiedBytes - before.copiedBytes, std::size_t{0});
  }

  void aWorkerKilledWhileIdleIsReplacedAtTheNextCall() {
    atenBackend().setPythonHost(withModule());
    const Program p = loadProgram(pyops("py_scale", ".pt2"));
    QCOMPARE(runProgram(p, pyops("py_scale", ".inputs.safetensors")).outcome.reason, StopReason::Finished);
    const int pid = atenBackend().pythonWorkerPid();
    QVERIFY(pid > 0);
    QCOMPARE(kill(pid, SIGKILL), 0);
    // dead between calls, not yet reaped: its other threads may still be on their way out, and
    // with them its end of the socket, so the next request may find it open and never read
    QTRY_COMPARE_WITH_TIMEOUT(processState(pid), 'Z', 60000);
    const SessionRun r = runProgram(p, pyops("py_scale", ".inputs.safetensors"));
    QVERIFY2(r.outcome.reason == StopReason::Finished, r.outcome.diagnosis.message.c_str());
    QCOMPARE(mismatch(*r.session, pyops("py_scale", ".outputs.safetensors")), std::string());
    QVERIFY(atenBackend().pythonWorkerPid() != pid);
    QCOMPARE(processState(pid), '\0');  // the dead one was reaped
  }

  void filesInTheCurrentDirectoryDoNotShadowTorchOrTheHost() {
    // an unpacked model folder may hold a torch.py or socket.py: the worker starts there, imports neither
    QTemporaryDir folder;
    for (const char* name : {"torch.py", "socket.py"}) {
      std::ofstream(folder.filePath(name).toStdString()) << "raise SystemExit('the " << name << " of the folder ran')\n";
    }
    PythonHostOptions o = withModule();
    o.callTimeoutSeconds = 599;  // other options: a new worker, started in that folder
    const QString before = QDir::currentPath();
    QVERIFY(QDir::setCurrent(folder.path()));
    atenBackend().setPythonHost(o);
    std::string error;
    PythonHostReport report;
    try {
      report = atenBackend().preparePythonHost();
    } catch (const std::exception& e) {
      error = e.what();
    }
    QVERIFY(QDir::setCurrent(before));
    QCOMPARE(error, std::string());
    QCOMPARE(report.error, std::string());
    QVERIFY(!report.torchVersion.empty());
  }

  void aPytorchIrExecutorFileServesTheIrJson() {
    PythonHostOptions o;
    o.python = TORCHIR_TEST_PYTHON;
    o.executorFiles = {pyopsDir() + "/torchir_pyops_executors.py"};  // the op itself is not imported
    atenBackend().setPythonHost(o);
    const PythonHostReport report = atenBackend().preparePythonHost();
    QCOMPARE(report.error, std::string());
    QCOMPARE(report.executors, std::vector<std::string>{"torchir_py.scale.default"});
    const Program p = loadProgram(pyops("py_ir", ".json"), {pyops("py_ir", ".weights.safetensors"), ""});
    const SessionRun r = runProgram(p, pyops("py_ir", ".inputs.safetensors"));
    QCOMPARE(r.outcome.reason, StopReason::Finished);
    QCOMPARE(mismatch(*r.session, pyops("py_ir", ".outputs.safetensors")), std::string());  // pytorch-ir's own run
    QVERIFY(r.session->record(*p.findNode("scale"))->schema.find("Python executor") != std::string::npos);
    atenBackend().setPythonHost(withModule());  // the executors go with their host
    QVERIFY(atenBackend().registeredExecutors().empty());
  }

  void aWorkerKilledMidCallFailsTheNodeAndTheNextRunRecovers() {
    atenBackend().setPythonHost(withModule());
    const StepOutcome o = whileInPython([](int pid, Session&) { kill(pid, SIGKILL); });
    QCOMPARE(o.reason, StopReason::Failed);
    QCOMPARE(o.diagnosis.kind, DiagnosisClass::PythonError);
    QCOMPARE(o.diagnosis.nodeName, std::string("slow_copy"));
    QVERIFY2(o.diagnosis.message.find("killed by signal 9") != std::string::npos, o.diagnosis.message.c_str());
    QCOMPARE(atenBackend().pythonWorkerPid(), -1);
    const Program p = loadProgram(pyops("py_scale", ".pt2"));  // a new worker serves the next call
    const SessionRun r = runProgram(p, pyops("py_scale", ".inputs.safetensors"));
    QCOMPARE(r.outcome.reason, StopReason::Finished);
    QCOMPARE(mismatch(*r.session, pyops("py_scale", ".outputs.safetensors")), std::string());
  }

  void stopEndsACallInPython() {
    atenBackend().setPythonHost(withModule());
    int worker = 0;
    const StepOutcome o = whileInPython([&](int pid, Session& s) {
      worker = pid;
      s.requestCancel();
    });
    QCOMPARE(o.reason, StopReason::Cancelled);
    QCOMPARE(kill(worker, 0), -1);  // the worker was stopped with the call (and reaped)
  }

  void aCallPastTheLimitStopsTheWorker() {
    PythonHostOptions o = withModule();
    o.callTimeoutSeconds = 10;  // a first call to a custom op imports torch._dynamo: seconds here
    atenBackend().setPythonHost(o);
    const Program warm = loadProgram(pyops("py_scale", ".pt2"));  // the worker's first call, within the limit
    QCOMPARE(runProgram(warm, pyops("py_scale", ".inputs.safetensors")).outcome.reason, StopReason::Finished);
    const StepOutcome out = whileInPython([](int, Session&) {});
    QCOMPARE(out.reason, StopReason::Failed);
    QVERIFY2(out.diagnosis.message.find("longer than 10 s") != std::string::npos, out.diagnosis.message.c_str());
    QCOMPARE(atenBackend().pythonWorkerPid(), -1);  // stopped
  }

  void aPythonWithoutTorchIsOneLine() {
    PythonHostOptions o;
    o.python = "python3";  // the system's, from PATH
    o.imports = {"torchir_pyops"};
    atenBackend().setPythonHost(o);
    const PythonHostReport report = atenBackend().preparePythonHost();
    if (!report.torchVersion.empty()) QSKIP("this machine's python3 has torch");
    QVERIFY(report.error.find("cannot import torch") != std::string::npos);
    QVERIFY(report.error.find('\n') == std::string::npos);
    const Program p = loadProgram(pyops("py_scale", ".pt2"));
    QVERIFY_THROWS_EXCEPTION(std::runtime_error, atenBackend().createSession(p));
  }

  void anotherTorchVersionIsAWarning() {
    // the environment scripts/fixtures.sh makes beside ours for torch 2.7's programs
    const std::string older = QFileInfo(QString(TORCHIR_TEST_PYTHON)).absolutePath().toStdString() +
                              "/../../venv-torch2.7/bin/python";
    if (!QFileInfo::exists(QString::fromStdString(older))) QSKIP("no torch 2.7 environment beside the fixtures' one");
    PythonHostOptions o;
    o.python = older;
    o.imports = {"torchir_pyops"};  // registers with 2.7's torch.library as well
    atenBackend().setPythonHost(o);
    const PythonHostReport report = atenBackend().preparePythonHost();
    QCOMPARE(report.torchVersion.substr(0, 4), std::string("2.7."));
    QCOMPARE(report.warnings.size(), std::size_t{1});
    QVERIFY2(report.warnings[0].find("has torch 2.7.") != std::string::npos, report.warnings[0].c_str());
    QVERIFY(report.warnings[0].find('\n') == std::string::npos);
  }

  void convertAsksTheHostForTheSchemaAndWritesPytorchIrsJson() {
    QProcessEnvironment env;
    env.insert("PYTHONPATH", QString::fromStdString(pyopsDir()));
    for (const std::string name : {"py_scale", "py_list"}) {
      const QString out = m_tmp.filePath(QString::fromStdString(name + ".ir.json"));
      const auto ran = runTorchir({"convert", QString::fromStdString(pyops(name, ".pt2")), "-o", out, "--python",
                                   TORCHIR_TEST_PYTHON, "--python-import", "torchir_pyops"},
                                  "1", env);
      QVERIFY2(ran.exitCode == 0, ran.err.constData());
      QVERIFY2(ran.err.isEmpty(), ran.err.constData());
      nlohmann::json ours = readJson(out.toStdString()), theirs = readJson(pyops(name, ".ir.json"));
      ours.erase("pytorch_version");
      theirs.erase("pytorch_version");
      for (const auto& [key, value] : theirs.items())
        QVERIFY2(ours[key] == value, (name + ": " + key + " differs from pytorch-ir's").c_str());
      QCOMPARE(ours.size(), theirs.size());
    }
    // without the host, the Tensor[] op's float argument has no schema to be named by
    const auto bare = runTorchir({"convert", QString::fromStdString(pyops("py_list", ".pt2")), "-o",
                                  m_tmp.filePath("bare.ir.json")}, "1", env);
    QVERIFY2(bare.err.contains("no schema for torchir_pylist.split_stats.default"), bare.err.constData());
  }

  void theCommandLineNamesThePython() {
    const QString python = TORCHIR_TEST_PYTHON;
    QProcessEnvironment env;
    env.insert("PYTHONPATH", QString::fromStdString(pyopsDir()));
    const QString program = QString::fromStdString(pyops("py_list", ".pt2"));
    const auto none = runTorchir({"run", program});
    QCOMPARE(none.exitCode, 1);
    QVERIFY(none.err.contains("--python PATH"));
    const auto ran = runTorchir({"run", program, "--python", python, "--python-import", "torchir_pyops", "--expect",
                                 QString::fromStdString(pyops("py_list", ".outputs.safetensors"))},
                                "1", env);
    QVERIFY2(ran.exitCode == 0, ran.err.constData());
    env.insert("TORCHIR_PYTHON", python);  // the variable names it as the flag does
    const auto byEnv = runTorchir({"run", program, "--python-import", "torchir_pyops"}, "1", env);
    QVERIFY2(byEnv.exitCode == 0, byEnv.err.constData());
    // check names the op that will run in Python; a repro of it imports the module that defines it
    const auto checked = runTorchir({"check", program, "--python-import", "torchir_pyops"}, "1", env);
    QCOMPARE(checked.exitCode, 0);
    QVERIFY2(checked.out.contains("torchir_pylist.split_stats.default runs in Python"), checked.out.constData());
    const QString repro = m_tmp.filePath("split_stats.pt2");
    const auto extracted = runTorchir({"extract", program, "--node", "split_stats", "-o", repro, "--python-import",
                                       "torchir_pyops"}, "1", env);
    QVERIFY2(extracted.exitCode == 0, extracted.err.constData());
    QFile script(m_tmp.filePath("split_stats.py"));
    QVERIFY(script.open(QIODevice::ReadOnly));
    QVERIFY(script.readAll().contains("\nimport torchir_pyops  #"));
    const auto noModule = runTorchir({"run", program, "--python", python, "--python-import", "no_such_module"}, "1", env);
    QCOMPARE(noModule.exitCode, 2);
    QVERIFY(noModule.err.startsWith("error: cannot import no_such_module"));
    QCOMPARE(noModule.err.count('\n'), 1);
  }
};

QTEST_GUILESS_MAIN(PythonOpsTest)
#include "PythonOpsTest.moc"
