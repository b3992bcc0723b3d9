#include "Pt2Reader.h"

#include <future>
#include <map>
#include <optional>
#include <unordered_map>

#include "DeferredRelease.h"
#include "EtRecordLayout.h"
#include "ExportedProgramReader.h"
#include "LenientJson.h"
#include "program/LoadError.h"
#include "OnDemandJson.h"
#include "ProgramCache.h"
#include "Pt2Archive.h"
#include "TorchSaveReader.h"

namespace torchir {
namespace {

namespace od = json::od;
using Weights = std::map<std::string, TensorData>;

constexpr const char* kModelJson = "models/model.json";
constexpr const char* kSupportedArchiveVersion = "0";
constexpr const char* kFlatProgramJson = "serialized_exported_program.json";

/// `tensor_meta` of a weights/constants config entry, as a view without its storage yet.
TensorData tensorFromMeta(const json::Reader& r, od::value meta, const std::string& fqn) {
  auto what = [&] { return "weight '" + fqn + "'"; };
  auto metaInt = [&](od::value symInt) {
    int64_t v = 0;
    const bool ok = json::readUnion(r, symInt, [&](std::string_view kind, od::value body) {
      const auto i = json::exactInt(body);
      if (kind != "as_int" || !i) return false;
      v = *i;
      return true;
    });
    if (!ok) r.fail(what() + " has a size, stride or offset that is not a 64-bit integer");
    return v;
  };
  auto ints = [&](od::value list, std::vector<int64_t>& out) {
    if (!json::forEach(r, list, [&](od::value x) { return out.push_back(metaInt(x)), true; }))
      r.fail(what() + "'s sizes or strides are not a list");
  };
  TensorData t;
  bool typed = false, sized = false, strided = false;
  const bool ok = json::forEachField(r, meta, [&](std::string_view key, od::value x) {
    if (key == "dtype") {
      const auto code = json::exactInt(x);
      typed = true;
      t.dtype = code && *code >= INT32_MIN && *code <= INT32_MAX
                    ? dtypeFromSerialized(static_cast<int>(*code)).value_or(DType::Unknown)
                    : DType::Unknown;
    } else if (key == "sizes") {
      ints(x, t.sizes), sized = true;
    } else if (key == "strides") {
      ints(x, t.strides), strided = true;
    } else if (key == "storage_offset") {
      t.storageOffset = metaInt(x);
    }
    return true;
  });
  if (!ok || !typed || !sized || !strided) r.fail(what() + " has no dtype, sizes and strides");
  return t;
}

/// One entry of a weights config: the view, and the record holding its bytes ("" for none), or
/// its pickle (a tensor subclass).
struct ConfigEntry {
  std::string fqn, record;
  TensorData tensor;
  bool pickled = false;
};

/// `{"tensor_meta": {...}, "path_name": "weight_0", "use_pickle": false}` of weight `fqn`.
ConfigEntry readConfigEntry(const Pt2Archive& archive, const json::Reader& r, const std::string& folder,
                            std::string_view fqn, od::value v) {
  ConfigEntry e{std::string(fqn), {}, {}, false};
  bool meta = false;
  std::string pathName;
  if (!json::forEachField(r, v, [&](std::string_view k, od::value x) {
        if (k == "tensor_meta") e.tensor = tensorFromMeta(r, x, e.fqn), meta = true;
        else if (k == "path_name") pathName = r.string(x, "a weight's path_name");
        else if (k == "use_pickle") e.pickled = r.boolean(x, "use_pickle");
        return true;
      }) || !meta)
    r.fail("weight '" + e.fqn + "' has no tensor_meta");
  // a dtype this build does not know (a newer torch): shown, but without data to run on
  if (e.tensor.dtype == DType::Unknown) return e;
  if (const auto problem = e.tensor.layoutProblem(); !problem.empty()) r.fail("weight '" + e.fqn + "' " + problem);
  if (pathName.empty()) r.fail("weight '" + e.fqn + "' has no path_name");
  e.record = folder + pathName;
  if (!archive.has(e.record)) r.fail("weight '" + e.fqn + "' names a missing record " + e.record);
  return e;
}

/// `data/weights/model_weights_config.json` or `data/constants/model_constants_config.json`.
void readTensorConfig(const Pt2Archive& archive, const std::string& folder, const std::string& config,
                      Weights& weights) {
  const std::string path = folder + config;
  if (!archive.has(path)) return;
  std::vector<ConfigEntry> entries;
  const json::Reader r(archive.path(), path);
  archive.withText(path, [&](std::string_view text, std::size_t readable) {
    json::parseObject(text, readable, r, [&](od::object top) {
      entries.clear();  // a second attempt (text with bare NaN quoted) starts afresh
      bool found = false;
      json::forEachField(r, top, [&](std::string_view key, od::value v) {
        if (key != "config") return true;
        found = true;
        if (!json::forEachField(r, v, [&](std::string_view fqn, od::value entry) {
              entries.push_back(readConfigEntry(archive, r, folder, fqn, entry));
              return true;
            }))
          r.fail(path + " has an unexpected structure");
        return true;
      });
      if (!found) r.fail(path + " has no 'config'");
    });
  });
  // Per record, the most any view on it reaches and then its storage, which tied weights share;
  // each entry keeps where its record's is, so that a record is looked up once (70k weights).
  struct RecordUse {
    std::uint64_t needed = 0;
    std::shared_ptr<const Storage> storage;
  };
  std::unordered_map<std::string_view, RecordUse> records;  // views of the entries' records
  records.reserve(entries.size());
  std::vector<RecordUse*> useOf(entries.size(), nullptr);
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const ConfigEntry& e = entries[i];
    if (e.record.empty() || e.pickled) continue;
    RecordUse& use = records[e.record];
    use.needed = std::max<std::uint64_t>(use.needed, e.tensor.bytesSpanned());
    useOf[i] = &use;
  }
  for (std::size_t i = 0; i < entries.size(); ++i) {
    ConfigEntry& e = entries[i];
    if (e.pickled && !e.record.empty()) {
      // a tensor subclass, torch.save'd alone: read as data, its outer view as the config says
      TensorData t;
      try {
        t = readPickledTensor(archive, e.record);
      } catch (const LoadError& nested) {  // named by the file the user opened, not the inner zip
        throw LoadError(archive.path(), "weight '" + e.fqn + "' (" + e.record + "): " + nested.problem());
      }
      if (t.dtype != e.tensor.dtype || t.sizes != e.tensor.sizes)
        throw LoadError(archive.path(), "weight '" + e.fqn + "' is " + sizesText(t.sizes) + " in its pickle but " +
                                            sizesText(e.tensor.sizes) + " in its config");
      e.tensor = std::move(t);
    } else if (RecordUse* use = useOf[i]) {
      if (!use->storage) use->storage = archive.storage(e.record, use->needed);
      e.tensor.storage = use->storage;
      // a 0-byte record is "no data" (a meta export); any other must hold the whole view
      if (use->storage->nbytes > 0 && use->storage->nbytes < e.tensor.bytesSpanned())
        throw LoadError(archive.path(), "weight '" + e.fqn + "' needs " + std::to_string(e.tensor.bytesSpanned()) +
                                            " bytes but its record holds " + std::to_string(use->storage->nbytes));
    }
    weights.insert_or_assign(std::move(e.fqn), std::move(e.tensor));
  }
}

/// A `torch.save` dict of FQN -> tensor held in `record` (torch 2.6-2.8 pickled weights and constants),
/// read in place when the record is stored. An empty record is torch's "nothing" (`b""` for None).
void readPickledTensors(const Pt2Archive& archive, const std::string& record, Weights& weights) {
  if (!archive.has(record)) return;
  auto bytes = archive.storage(record);
  if (bytes->nbytes == 0) return;
  Pt2Archive nested(std::move(bytes));  // its storages keep the outer map (or inflated buffer) alive
  for (auto& [fqn, t] : readTorchSave(nested)) {
    if (fqn.empty()) throw LoadError(archive.path(), record + " holds a single tensor, not a dict of them");
    weights[fqn] = std::move(t);
  }
}

/// The ExportedProgram JSON in `record`.
void readProgramJson(const Pt2Archive& archive, const std::string& record, Program& program) {
  archive.withText(record, [&](std::string_view text, std::size_t readable) {
    readExportedProgram(text, readable, archive.path(), record, program);
  });
}

/// torch 2.6/2.7 wrote a flat zip (no root folder) of the JSON and three torch.save pickles.
void readFlatZip(const Pt2Archive& archive, Program& program) {
  program.source.layout = "flat zip (torch 2.6/2.7)";
  readSerializedArtifact(archive, {kFlatProgramJson, "serialized_state_dict.pt", "serialized_constants.pt",
                                   "serialized_example_inputs.pt"},
                         program);
}

/// What a PT2 archive holds besides its graph.
struct ArchiveTensors {
  std::string layout;
  Weights weights;
  std::vector<TensorData> sampleInputs;
};

ArchiveTensors readTensors(const Pt2Archive& archive) {
  ArchiveTensors t;
  if (archive.has("data/weights/model_weights_config.json")) {
    t.layout = "pt2-archive";
    readTensorConfig(archive, "data/weights/", "model_weights_config.json", t.weights);
    readTensorConfig(archive, "data/constants/", "model_constants_config.json", t.weights);
  } else if (archive.has("data/weights/model.pt")) {
    t.layout = "pt2-archive (pickled weights, torch 2.8)";
    readPickledTensors(archive, "data/weights/model.pt", t.weights);
    readPickledTensors(archive, "data/constants/model.pt", t.weights);
  } else {
    t.layout = "pt2-archive (no weights)";
  }
  try {
    t.sampleInputs = readSampleInputs(archive);
  } catch (const LoadError&) {
    // Sample inputs are a convenience: a program whose samples cannot be read still opens.
  }
  return t;
}

/// The PT2 archive of torch >= 2.8: `models/model.json` under a root folder; weights as raw
/// storages with JSON configs (2.9 and later) or as torch.save pickles (2.8).
/// A cache entry of the file being read, decoded while the archive's directory is read.
struct CacheLookup {
  ProgramCache* cache = nullptr;
  std::optional<ProgramCache::Key> key;
  std::future<ProgramCache::Lookup> entry;
};

void readPt2Archive(const Pt2Archive& archive, Program& program, CacheLookup& cached) {
  const std::string& path = archive.path();
  if (!archive.has(kModelJson)) throw LoadError(path, "no models/model.json: not an exported program archive");
  if (archive.has("archive_version")) {
    auto v = archive.text("archive_version");
    while (!v.empty() && (v.back() == '\n' || v.back() == ' ')) v.pop_back();
    if (v != kSupportedArchiveVersion) throw LoadError(path, "unsupported archive version " + v);
  }
  // The weights and the graph are read at once, on two threads: they share only the archive,
  // whose reads take its lock; the graph's errors are reported first, as a reader in order would.
  auto tensors = std::async(std::launch::async, [&archive] { return readTensors(archive); });
  bool fromCache = false;
  if (cached.key) {
    // used only when made from the JSON the directory declares now
    const Pt2Archive::Declared json = archive.declared(kModelJson);
    cached.key->jsonBytes = json.bytes, cached.key->jsonCrc = json.crc;
    fromCache = cached.cache->use(cached.entry.get(), *cached.key, program);
  }
  if (!fromCache) {
    readProgramJson(archive, kModelJson, program);
    if (cached.key) cached.cache->missed(*cached.key);
  }
  ArchiveTensors t = tensors.get();
  program.source.layout = std::move(t.layout);
  program.weights = std::move(t.weights);
  program.sampleInputs = std::move(t.sampleInputs);
}

}  // namespace

void readSerializedArtifact(const Pt2Archive& archive, const SerializedArtifactRecords& records, Program& program) {
  readProgramJson(archive, records.program, program);
  readPickledTensors(archive, records.stateDict, program.weights);
  readPickledTensors(archive, records.constants, program.weights);
  try {
    // torch.save((args, kwargs)): the tensors of args, then those of kwargs' values
    if (archive.has(records.exampleInputs)) {
      auto bytes = archive.storage(records.exampleInputs);
      if (bytes->nbytes > 0) {
        Pt2Archive nested(std::move(bytes));
        for (auto& entry : readTorchSave(nested)) program.sampleInputs.push_back(std::move(entry.second));
      }
    }
  } catch (const LoadError&) {
    // Sample inputs are a convenience: a program whose samples cannot be read still opens.
  }
}

Program readPt2(const std::string& path, ProgramCache* cache) {
  CacheLookup cached{cache, cache ? cache->keyFor(path) : std::nullopt, {}};
  if (cached.key)
    cached.entry = std::async(std::launch::async, [cache, key = *cached.key] { return cache->lookUp(key); });
  auto archive = std::make_shared<Pt2Archive>(path);
  Program program;
  program.source.path = path;
  program.source.format = "pt2";
  if (isEtRecord(*archive))
    readEtRecordProgram(*archive, etRecordMethod(*archive, ""), program);
  else if (archive->has(kFlatProgramJson))
    readFlatZip(*archive, program);
  else
    readPt2Archive(*archive, program, cached);
  // Its directory (70k records at 100k ops: 17 ms to free) is freed once the program is on its way
  // where the caller defers that; the weights hold the map itself.
  releaseLater(std::move(archive));
  if (program.source.modelName.empty()) program.source.modelName = modelNameOfPath(path);
  return program;
}

std::string modelNameOfPath(const std::string& path) {
  const auto slash = path.find_last_of('/');
  const auto base = path.substr(slash == std::string::npos ? 0 : slash + 1);
  return base.substr(0, base.find('.'));
}

}  // namespace torchir
