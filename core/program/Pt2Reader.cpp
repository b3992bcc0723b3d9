#include "Pt2Reader.h"

#include <map>

#include "DeferredRelease.h"
#include "ExportedProgramReader.h"
#include "LenientJson.h"
#include "LoadError.h"
#include "Pt2Archive.h"
#include "TorchSaveReader.h"

namespace torchir {
namespace {

using nlohmann::json;

constexpr const char* kModelJson = "models/model.json";
constexpr const char* kSupportedArchiveVersion = "0";
constexpr const char* kFlatProgramJson = "serialized_exported_program.json";

/// `tensor_meta` of a weights/constants config entry, as a view on `storage`.
TensorData tensorFromMeta(const json& meta, std::shared_ptr<const Storage> storage) {
  TensorData t;
  t.dtype = dtypeFromSerialized(meta.at("dtype").get<int>()).value_or(DType::Unknown);
  for (const auto& s : meta.at("sizes")) t.sizes.push_back(s.at("as_int").get<int64_t>());
  for (const auto& s : meta.at("strides")) t.strides.push_back(s.at("as_int").get<int64_t>());
  t.storageOffset = meta.contains("storage_offset") ? meta.at("storage_offset").at("as_int").get<int64_t>() : 0;
  t.storage = std::move(storage);
  return t;
}

/// `data/weights/model_weights_config.json` or `data/constants/model_constants_config.json`.
void readTensorConfig(const Pt2Archive& archive, const std::string& folder, const std::string& config,
                      Program& program) {
  const std::string path = folder + config;
  if (!archive.has(path)) return;
  json cfg;
  try {
    cfg = json::parse(archive.text(path));
  } catch (const json::exception&) {
    throw LoadError(archive.path(), path + " is not valid JSON");
  }
  std::map<std::string, std::shared_ptr<const Storage>> storages;  // one per record: tied weights share it
  try {
    for (const auto& [fqn, entry] : cfg.at("config").items()) {
      if (entry.value("use_pickle", false)) {
        // tensor subclasses and TorchBind objects: not readable without Python
        TensorData t = tensorFromMeta(entry.at("tensor_meta"), nullptr);
        program.weights[fqn] = t;
        continue;
      }
      const std::string record = folder + entry.at("path_name").get<std::string>();
      auto& storage = storages[record];
      if (!storage) {
        if (!archive.has(record)) throw LoadError(archive.path(), "weight '" + fqn + "' names a missing record " + record);
        storage = archive.storage(record);
      }
      TensorData t = tensorFromMeta(entry.at("tensor_meta"), storage);
      if (storage->nbytes > 0 && storage->nbytes < t.bytesSpanned())
        throw LoadError(archive.path(), "weight '" + fqn + "' needs " + std::to_string(t.bytesSpanned()) +
                                            " bytes but its record holds " + std::to_string(storage->nbytes));
      program.weights[fqn] = std::move(t);
    }
  } catch (const json::exception&) {
    throw LoadError(archive.path(), path + " has an unexpected structure");
  }
  releaseLater(std::make_shared<json>(std::move(cfg)));
}

/// A `torch.save` dict of FQN -> tensor held in `record` (torch 2.6-2.8 pickled weights and constants),
/// read in place when the record is stored. An empty record is torch's "nothing" (`b""` for None).
void readPickledTensors(const Pt2Archive& archive, const std::string& record, Program& program) {
  if (!archive.has(record)) return;
  auto bytes = archive.storage(record);
  if (bytes->nbytes == 0) return;
  Pt2Archive nested(std::move(bytes));  // its storages keep the outer map (or inflated buffer) alive
  for (auto& [fqn, t] : readTorchSave(nested)) {
    if (fqn.empty()) throw LoadError(archive.path(), record + " holds a single tensor, not a dict of them");
    program.weights[fqn] = std::move(t);
  }
}

/// The ExportedProgram JSON in `record`.
void readProgramJson(const Pt2Archive& archive, const std::string& record, Program& program) {
  json ep;
  try {
    ep = parseLenientJson(archive.text(record));
  } catch (const json::exception&) {
    throw LoadError(archive.path(), record + " is not valid JSON");
  }
  if (!ep.is_object()) throw LoadError(archive.path(), record + " is not an ExportedProgram object");
  readExportedProgram(ep, archive.path(), program);
  releaseLater(std::make_shared<json>(std::move(ep)));
}

/// torch 2.6/2.7 wrote a flat zip (no root folder) of the JSON and three torch.save pickles.
void readFlatZip(const Pt2Archive& archive, Program& program) {
  program.source.layout = "flat zip (torch 2.6/2.7)";
  readProgramJson(archive, kFlatProgramJson, program);
  readPickledTensors(archive, "serialized_state_dict.pt", program);
  readPickledTensors(archive, "serialized_constants.pt", program);
  try {
    // torch.save((args, kwargs)): the tensors of args, then those of kwargs' values
    if (archive.has("serialized_example_inputs.pt")) {
      auto bytes = archive.storage("serialized_example_inputs.pt");
      if (bytes->nbytes > 0) {
        Pt2Archive nested(std::move(bytes));
        for (auto& entry : readTorchSave(nested)) program.sampleInputs.push_back(std::move(entry.second));
      }
    }
  } catch (const LoadError&) {
    // Sample inputs are a convenience: a program whose samples cannot be read still opens.
  }
}

/// The PT2 archive of torch >= 2.8: `models/model.json` under a root folder; weights as raw
/// storages with JSON configs (2.9 and later) or as torch.save pickles (2.8).
void readPt2Archive(const Pt2Archive& archive, Program& program) {
  const std::string& path = archive.path();
  if (!archive.has(kModelJson)) throw LoadError(path, "no models/model.json: not an exported program archive");
  if (archive.has("archive_version")) {
    auto v = archive.text("archive_version");
    while (!v.empty() && (v.back() == '\n' || v.back() == ' ')) v.pop_back();
    if (v != kSupportedArchiveVersion) throw LoadError(path, "unsupported archive version " + v);
  }
  readProgramJson(archive, kModelJson, program);

  if (archive.has("data/weights/model_weights_config.json")) {
    program.source.layout = "pt2-archive";
    readTensorConfig(archive, "data/weights/", "model_weights_config.json", program);
    readTensorConfig(archive, "data/constants/", "model_constants_config.json", program);
  } else if (archive.has("data/weights/model.pt")) {
    program.source.layout = "pt2-archive (pickled weights, torch 2.8)";
    readPickledTensors(archive, "data/weights/model.pt", program);
    readPickledTensors(archive, "data/constants/model.pt", program);
  } else {
    program.source.layout = "pt2-archive (no weights)";
  }
  try {
    program.sampleInputs = readSampleInputs(archive);
  } catch (const LoadError&) {
    // Sample inputs are a convenience: a program whose samples cannot be read still opens.
  }
}

}  // namespace

Program readPt2(const std::string& path) {
  Pt2Archive archive(path);
  Program program;
  program.source.path = path;
  program.source.format = "pt2";
  if (archive.has(kFlatProgramJson)) readFlatZip(archive, program);
  else readPt2Archive(archive, program);
  auto slash = path.find_last_of('/');
  auto base = path.substr(slash == std::string::npos ? 0 : slash + 1);
  if (program.source.modelName.empty()) program.source.modelName = base.substr(0, base.find('.'));
  return program;
}

}  // namespace torchir
