#include "Safetensors.h"

#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>

#include "program/EscapedText.h"
#include "LenientJson.h"
#include "program/LoadError.h"
#include "MappedFile.h"

namespace torchir {

namespace {
// Debian's nlohmann has no safetensors dtype list; names follow the format's spec.
std::string safetensorsCode(DType t) {
  switch (t) {
    case DType::Bool: return "BOOL";
    case DType::UInt8: return "U8";
    case DType::Int8: return "I8";
    case DType::Int16: return "I16";
    case DType::UInt16: return "U16";
    case DType::Int32: return "I32";
    case DType::Int64: return "I64";
    case DType::Float16: return "F16";
    case DType::BFloat16: return "BF16";
    case DType::Float32: return "F32";
    case DType::Float64: return "F64";
    case DType::Complex64: return "C64";
    default: return std::string(dtypeName(t));
  }
}
}  // namespace

TensorMap readSafetensors(const std::string& path, SafetensorsMetadata* metadata) {
  auto file = MappedFile::open(path);
  if (file->size() < 8) throw LoadError(path, "too short for a safetensors header");
  uint64_t headerSize = 0;
  std::memcpy(&headerSize, file->data(), 8);
  if (headerSize > file->size() - 8) throw LoadError(path, "safetensors header size exceeds the file");
  const nlohmann::json header = parseFileJson(
      std::string_view(reinterpret_cast<const char*>(file->data()) + 8, headerSize), path, "safetensors header");
  if (!header.is_object()) throw LoadError(path, "safetensors header is not an object");
  const std::byte* base = file->data() + 8 + headerSize;
  const std::size_t available = file->size() - 8 - headerSize;
  auto owner = std::shared_ptr<const void>(file, file.get());

  TensorMap out;
  std::multimap<uint64_t, std::pair<uint64_t, std::string>> spans;  // start -> end, tensor
  for (const auto& [name, entry] : header.items()) {
    if (name == "__metadata__") {
      if (!metadata) continue;
      if (!entry.is_object()) throw LoadError(path, "safetensors __metadata__ is not an object");
      for (const auto& [key, value] : entry.items()) {
        if (!value.is_string()) throw LoadError(path, "safetensors __metadata__ '" + key + "' is not text");
        (*metadata)[key] = value.get<std::string>();
      }
      continue;
    }
    try {
      TensorData t;
      const auto code = entry.at("dtype").get<std::string>();
      const auto dtype = dtypeFromName(code);
      if (!dtype) throw LoadError(path, "tensor '" + name + "' has unknown dtype " + code);
      t.dtype = *dtype;
      const auto& shape = entry.at("shape");
      if (!shape.is_array() || shape.size() > TensorData::kMaxRank)
        throw LoadError(path, "tensor '" + name + "' has a malformed shape");
      for (const auto& d : shape) {
        const auto size = exactInt64(d);
        if (!size) throw LoadError(path, "tensor '" + name + "' has a size that is not a 64-bit integer");
        t.sizes.push_back(*size);
      }
      t.strides = TensorData::contiguousStrides(t.sizes);
      if (const auto problem = t.layoutProblem(); !problem.empty())
        throw LoadError(path, "tensor '" + name + "' " + problem);
      const auto& span = entry.at("data_offsets");
      std::vector<uint64_t> offsets;
      if (span.is_array())
        for (const auto& o : span)
          if (o.is_number_unsigned() || (o.is_number_integer() && o.get<int64_t>() >= 0)) offsets.push_back(o.get<uint64_t>());
      if (offsets.size() != 2 || span.size() != 2) throw LoadError(path, "tensor '" + name + "' has malformed data_offsets");
      if (offsets[0] > offsets[1] || offsets[1] > available)
        throw LoadError(path, "tensor '" + name + "' lies outside the file");
      const std::size_t nbytes = offsets[1] - offsets[0];
      if (nbytes < t.bytesSpanned())
        throw LoadError(path, "tensor '" + name + "' has " + std::to_string(nbytes) + " bytes, its shape needs " +
                                  std::to_string(t.bytesSpanned()));
      auto storage = std::make_shared<Storage>(Storage{base + offsets[0], nbytes, owner, path + ":" + name});
      storage->fileDescriptor = file->descriptor();
      storage->fileOffset = static_cast<std::size_t>(storage->data - file->data());
      t.storage = std::move(storage);
      if (nbytes > 0) spans.emplace(offsets[0], std::make_pair(offsets[1], name));
      out.emplace(name, std::move(t));
    } catch (const nlohmann::json::exception&) {
      throw LoadError(path, "tensor '" + name + "' has a malformed header entry");
    }
  }
  // As the format requires (and its own loader checks), no two tensors share bytes.
  const std::pair<uint64_t, std::string>* furthest = nullptr;  // of those starting earlier
  for (const auto& [start, span] : spans) {
    if (furthest && start < furthest->first)
      throw LoadError(path, "tensors '" + furthest->second + "' and '" + span.second + "' overlap in the file");
    if (!furthest || span.first > furthest->first) furthest = &span;
  }
  return out;
}

void writeSafetensors(const std::string& path, const TensorMap& tensors, const SafetensorsMetadata& metadata) {
  nlohmann::json header = nlohmann::json::object();
  if (!metadata.empty()) header["__metadata__"] = metadata;
  std::vector<std::vector<std::byte>> blobs;
  uint64_t offset = 0;
  for (const auto& [name, t] : tensors) {
    blobs.push_back(t.contiguousBytes());
    header[name] = {{"dtype", safetensorsCode(t.dtype)},
                    {"shape", t.sizes},
                    {"data_offsets", {offset, offset + blobs.back().size()}}};
    offset += blobs.back().size();
  }
  std::string text = jsonText(header);  // a name or metadata text that is not UTF-8 as U+FFFD, not an exception
  while ((text.size() + 8) % 8 != 0) text.push_back(' ');
  std::ofstream f(path, std::ios::binary);
  if (!f) throw LoadError(path, "cannot write");
  const uint64_t n = text.size();
  f.write(reinterpret_cast<const char*>(&n), 8);
  f.write(text.data(), static_cast<std::streamsize>(text.size()));
  for (const auto& b : blobs) f.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
  if (!f) throw LoadError(path, "write failed");
}

}  // namespace torchir
