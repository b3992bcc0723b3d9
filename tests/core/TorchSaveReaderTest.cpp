// torch.save files read by our restricted unpickler: the fixture zoo's state dicts and .pt2 sample
// inputs against their safetensors twins, small committed files (tests/data, made by
// make_bad_pickles.py) for dtypes, views and hostile pickles, and fuzzed pickles that must fail cleanly.
#include <QtTest>
#include <fstream>
#include <random>

#include "program/LoadError.h"
#include "formats/Pt2Archive.h"
#include "formats/Safetensors.h"
#include "formats/TorchSaveReader.h"
#include "formats/Unpickler.h"

using namespace torchir;

namespace {

const QStringList kFixtures = {"mlp",  "cnn_bn",  "residual",        "attention",      "topk",      "multi_io",
                               "tied", "buffers", "lifted_constant", "mutated_buffer", "cat_index", "resnet18",
                               "gpt2", "llama"};

std::string fixture(const QString& name, const QString& suffix) {
  const QString dir = qEnvironmentVariable("TORCHIR_FIXTURES");
  return (dir + "/" + name + "/" + name + suffix).toStdString();
}
std::string data(const char* name) { return std::string(TORCHIR_TEST_DATA_DIR "/") + name; }
bool exists(const std::string& path) { return std::ifstream(path).good(); }

// Same dtype, shape and elements, bit for bit.
void compareTensor(const std::string& key, const TensorData& got, const TensorData& want) {
  QVERIFY2(got.dtype == want.dtype, key.c_str());
  QVERIFY2(got.sizes == want.sizes, key.c_str());
  if (got.numel() == 0) return;  // an empty record has no bytes to compare
  QVERIFY2(got.hasData(), key.c_str());
  QVERIFY2(got.contiguousBytes() == want.contiguousBytes(), key.c_str());
}

// Expects a LoadError whose message contains `what`.
template <typename F>
QString loadError(F&& f) {
  try {
    f();
  } catch (const LoadError& e) {
    return QString::fromStdString(e.what());
  }
  return {};
}

// A storage loader for running data.pkl outside its archive: every storage is 1 MiB of zeros.
PersistentLoad fakeStorages() {
  static const std::vector<std::byte> zeros(1 << 20);
  return [](const PickleValue& pid) {
    auto v = std::make_shared<PickleValue>();
    v->kind = PickleValue::Kind::Storage;
    if (pid.kind == PickleValue::Kind::Tuple && pid.items.size() > 1) v->dtype = pid.items[1]->dtype;
    v->storage = std::make_shared<Storage>(Storage{zeros.data(), zeros.size(), nullptr, "zeros"});
    return v;
  };
}

std::string kindsPickle() {
  Pt2Archive archive(data("kinds.pt"));
  return archive.text("data.pkl");
}

}  // namespace

class TorchSaveReaderTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void stateDict_data() {
    QTest::addColumn<QString>("name");
    for (const auto& name : kFixtures) QTest::newRow(qPrintable(name)) << name;
  }
  void stateDict() {
    QFETCH(QString, name);
    const auto path = fixture(name, ".state_dict.pt");
    if (!exists(path)) QSKIP("fixture missing: set TORCHIR_FIXTURES (tests/fixtures/make_fixtures.py)");
    const auto got = readTorchSaveStateDict(path);
    const auto want = readSafetensors(fixture(name, ".weights.safetensors"));
    // weights.safetensors also holds non-persistent buffers and constants, which state_dict() leaves out.
    for (const auto& [key, t] : got) {
      QVERIFY2(want.count(key), key.c_str());
      compareTensor(key, t, want.at(key));
      QVERIFY(t.storage->origin.rfind(path + ":data/", 0) == 0);  // a view into the file itself
    }
  }

  void tiedWeightsShareStorage() {
    const auto path = fixture("tied", ".state_dict.pt");
    if (!exists(path)) QSKIP("fixture missing");
    const auto sd = readTorchSaveStateDict(path);
    QCOMPARE(sd.at("emb.weight").storage.get(), sd.at("head.weight").storage.get());
  }

  void sampleInputs_data() { stateDict_data(); }
  void sampleInputs() {
    QFETCH(QString, name);
    const auto path = fixture(name, ".pt2");
    if (!exists(path)) QSKIP("fixture missing");
    Pt2Archive pt2(path);
    const auto got = readSampleInputs(pt2);
    const auto want = readSafetensors(fixture(name, ".inputs.safetensors"));
    QCOMPARE(got.size(), want.size());
    for (std::size_t i = 0; i < got.size(); ++i) {
      const auto key = "input_" + std::to_string(i);
      compareTensor(key, got[i], want.at(key));
    }
  }

  void metaSampleInputsHaveNoData() {
    const auto path = fixture("meta_mlp", ".pt2");
    if (!exists(path)) QSKIP("fixture missing");
    Pt2Archive pt2(path);
    const auto got = readSampleInputs(pt2);
    QCOMPARE(got.size(), std::size_t(1));
    QCOMPARE(got[0].sizes, (std::vector<int64_t>{2, 16}));
    QVERIFY(!got[0].hasData());
  }

  void dtypesViewsAndParameters_data() {
    QTest::addColumn<QString>("file");
    QTest::newRow("protocol 2") << "kinds.pt";
    QTest::newRow("protocol 4") << "kinds_p4.pt";
  }
  void dtypesViewsAndParameters() {
    QFETCH(QString, file);
    const auto got = readTorchSaveStateDict(data(qPrintable(file)));
    const auto want = readSafetensors(data("kinds.safetensors"));
    QCOMPARE(got.size(), want.size());
    for (const auto& [key, t] : want) {
      QVERIFY2(got.count(key), key.c_str());
      compareTensor(key, got.at(key), t);
    }
    // Views keep their storage, offset and strides, as in the file.
    QCOMPARE(got.at("view_t").storage.get(), got.at("base").storage.get());
    QCOMPARE(got.at("view_off").storage.get(), got.at("base").storage.get());
    QCOMPARE(got.at("view_off").storageOffset, int64_t(8));
    QVERIFY(!got.at("view_t").isContiguous());
  }

  void nestedDictsAreFlattened() {
    const auto got = readTorchSaveStateDict(data("nested.pt"));
    const auto want = readSafetensors(data("nested.safetensors"));
    QCOMPARE(got.size(), want.size());
    for (const auto& [key, t] : want) {
      QVERIFY2(got.count(key), key.c_str());
      compareTensor(key, got.at(key), t);
    }
  }

  void refused_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("problem");
    QTest::newRow("os.system") << "evil_system.pt"
                               << "refused global posix.system";
    QTest::newRow("eval, protocol 4") << "evil_eval_p4.pt"
                                      << "refused global builtins.eval";
    QTest::newRow("recursive list") << "recursive.pt"
                                    << "container put into itself";
    QTest::newRow("deep nesting") << "deep.pt"
                                  << "nested deeper than";
    QTest::newRow("shared-reference bomb") << "bomb.pt"
                                           << "expands to more than";
  }
  void refused() {
    QFETCH(QString, file);
    QFETCH(QString, problem);
    const auto message = loadError([&] { readTorchSaveStateDict(data(qPrintable(file))); });
    QVERIFY2(message.contains(problem), qPrintable(message));
    QVERIFY2(!message.contains('\n'), qPrintable(message));
  }

  void truncatedOrRandomFiles() {
    QTemporaryDir dir;
    std::ifstream in(data("kinds.pt"), std::ios::binary);
    const std::string whole((std::istreambuf_iterator<char>(in)), {});
    const auto path = dir.filePath("bad.pt").toStdString();
    auto write = [&](const std::string& bytes) { std::ofstream(path, std::ios::binary) << bytes; };
    for (std::size_t n = 0; n < whole.size(); n += 331) {
      write(whole.substr(0, n));
      QVERIFY2(!loadError([&] { readTorchSaveStateDict(path); }).isEmpty(), qPrintable(QString::number(n)));
    }
    std::mt19937 rng(7);
    std::string noise(4096, '\0');
    for (auto& c : noise) c = static_cast<char>(rng());
    noise[0] = 'P';  // a zip's magic, to get past the first check
    noise[1] = 'K';
    write(noise);
    QVERIFY(!loadError([&] { readTorchSaveStateDict(path); }).isEmpty());
    write(std::string("\x80\x02}q\x00.", 6));  // a pre-1.6 bare pickle
    QVERIFY(loadError([&] { readTorchSaveStateDict(path); }).contains("legacy"));
    QVERIFY(
        loadError([&] { readTorchSaveStateDict(dir.filePath("missing.pt").toStdString()); }).contains("missing.pt"));
  }

  // The pickle itself: every strict prefix fails (no STOP), and corrupted bytes fail or load,
  // but never crash or hang.
  void truncatedPickle() {
    const auto pickle = kindsPickle();
    const auto* bytes = reinterpret_cast<const std::byte*>(pickle.data());
    QVERIFY(unpickle(bytes, pickle.size(), "kinds.pt", "data.pkl", fakeStorages()));
    for (std::size_t n = 0; n < pickle.size(); ++n)
      QVERIFY(!loadError([&] { unpickle(bytes, n, "kinds.pt", "data.pkl", fakeStorages()); }).isEmpty());
  }

  // Damaged pickles end in a tensor tree or a one-line LoadError naming the file: never a crash,
  // another exception or a message of several lines. Some damage leaves a readable pickle (a
  // changed digit of a number), most does not: both outcomes are counted, so the loop really ran
  // the reader to both ends.
  void corruptedPickle() {
    const auto pickle = kindsPickle();
    std::mt19937 rng(1);
    int refused = 0, read = 0;
    auto attempt = [&](const std::string& bytes, const char* name) {
      try {
        unpickle(reinterpret_cast<const std::byte*>(bytes.data()), bytes.size(), "x", name, fakeStorages());
        ++read;
      } catch (const LoadError& e) {
        const std::string what = e.what();
        QVERIFY2(what.rfind("x: ", 0) == 0 && what.find('\n') == std::string::npos, what.c_str());
        ++refused;
      }
    };
    for (int round = 0; round < 20000; ++round) {
      std::string bad = pickle;
      for (int k = 0; k < 1 + round % 4; ++k) bad[rng() % bad.size()] = static_cast<char>(rng());
      attempt(bad, "data.pkl");
    }
    QVERIFY(refused > 1000);
    QVERIFY(read > 100);
    std::string noise(512, '\0');
    const int noiseRefusedBefore = refused;
    for (int round = 0; round < 20000; ++round) {
      for (auto& c : noise) c = static_cast<char>(rng());
      attempt(noise, "noise");
    }
    QVERIFY(refused - noiseRefusedBefore > 19000);  // noise is almost never a pickle
  }
};

QTEST_APPLESS_MAIN(TorchSaveReaderTest)
#include "TorchSaveReaderTest.moc"
