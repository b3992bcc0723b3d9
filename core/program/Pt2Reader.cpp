#include "Pt2Reader.h"

#include <map>

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
}

}  // namespace

Program readPt2(const std::string& path) {
  Pt2Archive archive(path);
  Program program;
  program.source.path = path;
  program.source.format = "pt2";

  if (archive.has("serialized_exported_program.json"))
    throw LoadError(path, "flat .pt2 layout of torch 2.6/2.7 is not supported; re-save it with torch >= 2.9");
  if (!archive.has(kModelJson)) throw LoadError(path, "no models/model.json: not an exported program archive");
  if (archive.has("archive_version")) {
    auto v = archive.text("archive_version");
    while (!v.empty() && (v.back() == '\n' || v.back() == ' ')) v.pop_back();
    if (v != kSupportedArchiveVersion) throw LoadError(path, "unsupported archive version " + v);
  }

  json ep;
  try {
    ep = parseLenientJson(archive.text(kModelJson));
  } catch (const json::exception&) {
    throw LoadError(path, "models/model.json is not valid JSON");
  }
  if (!ep.is_object()) throw LoadError(path, "models/model.json is not an ExportedProgram object");
  readExportedProgram(ep, path, program);

  if (archive.has("data/weights/model_weights_config.json")) {
    program.source.layout = "pt2-archive";
    readTensorConfig(archive, "data/weights/", "model_weights_config.json", program);
    readTensorConfig(archive, "data/constants/", "model_constants_config.json", program);
  } else if (archive.has("data/weights/model.pt")) {
    program.source.layout = "pt2-archive (pickled weights, torch 2.8)";
  } else {
    program.source.layout = "pt2-archive (no weights)";
  }
  try {
    program.sampleInputs = readSampleInputs(archive);
  } catch (const LoadError&) {
    // Sample inputs are a convenience: a program whose samples cannot be read still opens.
  }
  auto slash = path.find_last_of('/');
  auto base = path.substr(slash == std::string::npos ? 0 : slash + 1);
  if (program.source.modelName.empty()) program.source.modelName = base.substr(0, base.find('.'));
  return program;
}

}  // namespace torchir
