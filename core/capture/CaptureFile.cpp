#include "capture/CaptureFile.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>

#include "capture/ExecJson.h"
#include "compare/ComparisonJson.h"
#include "formats/Crc32.h"
#include "program/EscapedText.h"
#include "formats/JsonFields.h"
#include "formats/LenientJson.h"
#include "program/LoadError.h"
#include "formats/MappedFile.h"
#include "formats/Safetensors.h"

namespace torchir {
namespace {

using Json = nlohmann::json;
constexpr const char* kMetadataKey = "torchir.capture";

std::string_view patchKindName(ArgumentPatch::Kind k) {
  switch (k) {
    case ArgumentPatch::Kind::Scalar: return "scalar";
    case ArgumentPatch::Kind::Cast: return "cast";
    case ArgumentPatch::Kind::Fill: return "fill";
    case ArgumentPatch::Kind::Replace: return "replace";
    case ArgumentPatch::Kind::FromValue: return "from_value";
  }
  return "?";
}

Json comparisonJson(const Capture::Comparison& c) {
  Json nodes = Json::array();
  for (const auto& [node, n] : c.nodes) {
    Json entry = nodeComparisonJson(n);
    entry["node"] = node;
    nodes.push_back(std::move(entry));
  }
  return {{"reference", c.reference}, {"reference_failure", c.referenceFailure}, {"nodes", nodes},
          {"nonfinite_slice", c.nonfiniteSlice}};
}

Capture::Comparison comparisonFromJson(const JsonFields& f, const Json& o, const std::string& where) {
  Capture::Comparison c;
  c.reference = f.text(o, "reference", where);
  c.referenceFailure = f.text(o, "reference_failure", where);
  const Json& nodes = f.array(o, "nodes", where);
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const std::string w = where + ".nodes[" + std::to_string(i) + "]";
    c.nodes.emplace_back(f.text(nodes[i], "node", w), nodeComparisonFromJson(f, nodes[i], w));
  }
  for (const Json& name : f.array(o, "nonfinite_slice", where)) {
    if (!name.is_string()) f.fail(where + ".nonfinite_slice holds something that is not a node's name");
    c.nonfiniteSlice.push_back(name.get<std::string>());
  }
  return c;
}

std::string patchTensorName(const std::string& node, const std::string& argument) {
  return "patch/" + node + "/" + argument;
}

}  // namespace

namespace {

bool sameTensor(const TensorData& a, const TensorData& b) {
  if (a.dtype != b.dtype || a.sizes != b.sizes || a.hasData() != b.hasData()) return false;
  return !a.hasData() || a.contiguousBytes() == b.contiguousBytes();
}

bool samePatch(const ArgumentPatch& a, const ArgumentPatch& b) {
  return a.argument == b.argument && a.kind == b.kind && realJson(a.value) == realJson(b.value) && a.dtype == b.dtype &&
         sameTensor(a.tensor, b.tensor) && a.origin == b.origin && a.source == b.source;
}

template <class Map, class Same>
bool sameEntries(const Map& a, const Map& b, Same same) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [&](const auto& x, const auto& y) {
           return x.first == y.first && same(x.second, y.second);
         });
}

}  // namespace

bool Capture::operator==(const Capture& o) const {
  const auto recordsEqual = [](const NodeRecord& a, const NodeRecord& b) { return nodeRecordJson(a) == nodeRecordJson(b); };
  const auto patchesEqual = [](const std::vector<ArgumentPatch>& a, const std::vector<ArgumentPatch>& b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), samePatch);
  };
  return program == o.program && sameTensor(embeddedProgram, o.embeddedProgram) && inputs.size() == o.inputs.size() &&
         std::equal(inputs.begin(), inputs.end(), o.inputs.begin(), sameTensor) && breakpoints == o.breakpoints &&
         bookmarks == o.bookmarks && notes == o.notes && sameEntries(patches, o.patches, patchesEqual) &&
         next == o.next && sameEntries(records, o.records, recordsEqual) &&
         diagnosisJson(diagnosis) == diagnosisJson(o.diagnosis) && sameEntries(pinned, o.pinned, sameTensor) &&
         comparison.has_value() == o.comparison.has_value() &&
         (!comparison || comparisonJson(*comparison) == comparisonJson(*o.comparison)) && python.python == o.python.python &&
         python.imports == o.python.imports && python.executorFiles == o.python.executorFiles;
}

Capture::Comparison namedComparison(const ComparisonRecord& record, const Program& p) {
  Capture::Comparison named;
  named.reference = record.reference;
  named.referenceFailure = record.referenceFailure;
  for (NodeComparison n : record.nodes) {
    const std::string name = p.node(n.a).name;
    n.a = n.b = kNone;  // ids are one load's; names are what loads agree on
    named.nodes.emplace_back(name, std::move(n));
  }
  for (NodeId n : record.nonfiniteSlice) named.nonfiniteSlice.push_back(p.node(n).name);
  return named;
}

ComparisonRecord comparisonFromNames(const Capture::Comparison& named, std::shared_ptr<const Program> program) {
  const Program& p = *program;
  ComparisonRecord record;
  record.reference = named.reference;
  record.referenceFailure = named.referenceFailure;
  record.referenceProgram = std::move(program);
  std::vector<bool> seen(p.nodes.size(), false);
  for (const auto& [name, compared] : named.nodes) {
    const auto n = p.findNode(name);
    if (!n || seen[static_cast<std::size_t>(*n)]) continue;
    seen[static_cast<std::size_t>(*n)] = true;
    NodeComparison entry = compared;
    entry.a = entry.b = *n;
    record.nodes.push_back(std::move(entry));
    if (compared.makesNonfinite && record.firstNonfinite == kNone) record.firstNonfinite = *n;
  }
  record.index(p.nodes.size());
  for (const auto& name : named.nonfiniteSlice)
    if (const auto n = p.findNode(name)) record.nonfiniteSlice.push_back(*n);
  std::sort(record.nonfiniteSlice.begin(), record.nonfiniteSlice.end());  // looked up sorted
  return record;
}

Capture::ProgramRef programReference(const std::string& path) {
  const auto file = MappedFile::open(path);
  return {path, file->size(), crc32Of(file->data(), file->size())};
}

std::string capturedProgramPath(const Capture& c, const std::string& capturePath, const std::string& extractFolder) {
  namespace fs = std::filesystem;
  auto fail = [&](const std::string& what) -> std::string { throw LoadError(capturePath, "capture: " + what); };
  const std::string name = fs::path(c.program.path).filename().string();
  fs::path path;
  if (c.embeddedProgram.hasData() && c.embeddedProgram.numel() > 0) {
    char crc[9];
    std::snprintf(crc, sizeof crc, "%08x", c.program.crc32);
    path = fs::path(extractFolder) / (std::string(crc) + "-" + (name.empty() ? "program.pt2" : name));
    std::error_code ec;
    if (!fs::exists(path, ec) || fs::file_size(path, ec) != c.program.size) {
      fs::create_directories(extractFolder, ec);
      const auto bytes = c.embeddedProgram.contiguousBytes();
      std::ofstream out(path, std::ios::binary | std::ios::trunc);
      out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
      if (!out.flush()) fail("its embedded program cannot be written to " + path.string());
    }
  } else {
    path = c.program.path;
    if (path.is_relative()) path = fs::path(capturePath).parent_path() / path;
    std::error_code ec;
    if (!fs::exists(path, ec)) fail("its program " + c.program.path + " is not there (save the capture with the program embedded to send it)");
  }
  Capture::ProgramRef now = programReference(path.string());
  if (now.size != c.program.size || now.crc32 != c.program.crc32)
    fail("its program " + path.string() + " is not the one it ran (size or CRC-32 differ)");
  return path.string();
}

void writeCapture(const std::string& path, const Capture& c) {
  TensorMap tensors;
  for (std::size_t i = 0; i < c.inputs.size(); ++i) tensors["input/" + std::to_string(i)] = c.inputs[i];
  for (const auto& [value, t] : c.pinned) tensors["pinned/" + value] = t;
  if (c.embeddedProgram.hasData() && c.embeddedProgram.numel() > 0) tensors["program"] = c.embeddedProgram;

  Json patches = Json::object();
  for (const auto& [node, list] : c.patches) {
    Json entries = Json::array();
    for (const ArgumentPatch& p : list) {
      entries.push_back({{"argument", p.argument}, {"kind", std::string(patchKindName(p.kind))}, {"value", realJson(p.value)},
                         {"dtype", std::string(dtypeName(p.dtype))}, {"origin", p.origin}, {"source", p.source}});
      if (p.kind == ArgumentPatch::Kind::Replace) tensors[patchTensorName(node, p.argument)] = p.tensor;
    }
    patches[node] = entries;
  }
  Json records = Json::array();
  for (const auto& [node, r] : c.records) {
    Json entry = nodeRecordJson(r);
    entry["node"] = node;
    records.push_back(entry);
  }
  Json bookmarks = Json::object();
  for (const auto& [slot, node] : c.bookmarks) bookmarks[std::to_string(slot)] = node;
  Json meta = {
      {"version", Capture::kVersion},
      {"program", {{"path", c.program.path}, {"size", c.program.size}, {"crc32", c.program.crc32},
                   {"embedded", tensors.count("program") != 0}}},
      {"inputs", c.inputs.size()},
      {"breakpoints", c.breakpoints},
      {"bookmarks", bookmarks},
      {"notes", c.notes},
      {"patches", patches},
      {"next", c.next},
      {"records", records},
      {"diagnosis", diagnosisJson(c.diagnosis)},
  };
  if (c.comparison) meta["comparison"] = comparisonJson(*c.comparison);  // optional: older readers pass it by
  if (c.python.named())
    meta["python"] = {{"interpreter", c.python.python}, {"imports", c.python.imports},
                      {"executor_files", c.python.executorFiles}};
  // a path or name that is not UTF-8 (a file name can be anything) is kept as U+FFFD, not refused
  writeSafetensors(path, tensors, {{kMetadataKey, jsonText(meta)}});
}

Capture readCapture(const std::string& path) {
  SafetensorsMetadata metadata;
  TensorMap tensors = readSafetensors(path, &metadata);
  const JsonFields r(path, "capture: ");
  const auto found = metadata.find(kMetadataKey);
  if (found == metadata.end()) r.fail("no '" + std::string(kMetadataKey) + "' in the metadata: not a capture");
  const Json meta = parseFileJson(found->second, path, "capture metadata");
  const std::string top = "capture";

  const int64_t version = r.integer(meta, "version", top);
  if (version < 1 || version > Capture::kVersion)
    r.fail("version " + std::to_string(version) + "; this build reads versions 1 to " + std::to_string(Capture::kVersion));

  Capture c;
  const Json& program = r.at(meta, "program", top);
  c.program.path = r.text(program, "path", "program");
  const int64_t size = r.integer(program, "size", "program");
  const int64_t crc = r.integer(program, "crc32", "program");
  if (size < 0 || crc < 0 || crc > std::numeric_limits<uint32_t>::max()) r.fail("program.size or .crc32 out of range");
  c.program.size = static_cast<uint64_t>(size);
  c.program.crc32 = static_cast<uint32_t>(crc);
  if (r.flag(program, "embedded", "program")) {
    const auto it = tensors.find("program");
    if (it == tensors.end() || it->second.dtype != DType::UInt8 || it->second.sizes.size() != 1)
      r.fail("says its program is embedded, and has no uint8 tensor 'program'");
    c.embeddedProgram = it->second;
  }

  const int64_t inputs = r.integer(meta, "inputs", top);
  if (inputs < 0 || static_cast<uint64_t>(inputs) > tensors.size()) r.fail("inputs: more than the file holds");
  for (int64_t i = 0; i < inputs; ++i) {
    const auto it = tensors.find("input/" + std::to_string(i));
    if (it == tensors.end()) r.fail("no tensor 'input/" + std::to_string(i) + "'");
    c.inputs.push_back(it->second);
  }
  for (const auto& [name, t] : tensors)
    if (name.rfind("pinned/", 0) == 0) c.pinned[name.substr(7)] = t;

  const Json& breakpoints = r.array(meta, "breakpoints", top);
  for (const Json& b : breakpoints) {
    if (!b.is_string()) r.fail("breakpoints holds something that is not a node's name");
    c.breakpoints.push_back(b.get<std::string>());
  }
  const Json& bookmarks = r.at(meta, "bookmarks", top);
  if (!bookmarks.is_object()) r.fail("bookmarks is not an object");
  for (const auto& [slot, node] : bookmarks.items()) {
    if (slot.size() != 1 || slot[0] < '1' || slot[0] > '9') r.fail("bookmark slot '" + slot + "' is not 1 to 9");
    if (!node.is_string()) r.fail("bookmark " + slot + " names no node");
    c.bookmarks[slot[0] - '0'] = node.get<std::string>();
  }
  const Json& notes = r.at(meta, "notes", top);
  if (!notes.is_object()) r.fail("notes is not an object");
  for (const auto& [node, text] : notes.items()) {
    if (!text.is_string()) r.fail("the note on '" + node + "' is not text");
    c.notes[node] = text.get<std::string>();
  }
  const Json& patches = r.at(meta, "patches", top);
  if (!patches.is_object()) r.fail("patches is not an object");
  for (const auto& [node, list] : patches.items()) {
    if (!list.is_array()) r.fail("the changes to '" + node + "' are not a list");
    for (std::size_t i = 0; i < list.size(); ++i) {
      const std::string w = "patches['" + node + "'][" + std::to_string(i) + "]";
      ArgumentPatch p;
      p.argument = r.text(list[i], "argument", w);
      p.kind = r.named(list[i], "kind", w, patchKindName, "kind of change");
      p.value = r.number(list[i], "value", w);
      p.dtype = r.dtype(list[i], "dtype", w);
      p.origin = r.text(list[i], "origin", w);
      if (p.kind == ArgumentPatch::Kind::FromValue) {  // a value of the capture's program, by id
        const int64_t source = r.integer(list[i], "source", w);
        if (source < 0 || source > std::numeric_limits<ValueId>::max()) r.fail(w + ".source is out of range");
        p.source = static_cast<ValueId>(source);
      }
      if (p.kind == ArgumentPatch::Kind::Replace) {
        const auto it = tensors.find(patchTensorName(node, p.argument));
        if (it == tensors.end()) r.fail(w + " replaces a tensor the file does not hold");
        p.tensor = it->second;
      }
      c.patches[node].push_back(std::move(p));
    }
  }
  c.next = r.text(meta, "next", top);
  const Json& records = r.array(meta, "records", top);
  for (std::size_t i = 0; i < records.size(); ++i) {
    const std::string w = "records[" + std::to_string(i) + "]";
    c.records.emplace_back(r.text(records[i], "node", w), nodeRecordFromJson(r, records[i], w));
  }
  c.diagnosis = diagnosisFromJson(r, r.at(meta, "diagnosis", top), "diagnosis");
  if (meta.contains("comparison")) c.comparison = comparisonFromJson(r, meta.at("comparison"), "comparison");
  if (meta.contains("python")) {  // optional: captures of runs without a Python have none
    const Json& python = meta.at("python");
    c.python.python = r.text(python, "interpreter", "python");
    for (const char* key : {"imports", "executor_files"})
      for (const Json& item : r.array(python, key, "python")) {
        if (!item.is_string()) r.fail(std::string("python.") + key + " holds something that is not a string");
        (key[0] == 'i' ? c.python.imports : c.python.executorFiles).push_back(item.get<std::string>());
      }
  }
  return c;
}

}  // namespace torchir
