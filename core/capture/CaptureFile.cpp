#include "capture/CaptureFile.h"

#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>

#include "program/LenientJson.h"
#include "program/LoadError.h"
#include "program/MappedFile.h"
#include "program/Safetensors.h"

namespace torchir {
namespace {

using Json = nlohmann::json;
constexpr const char* kMetadataKey = "torchir.capture";

// ---- names of the enums, both ways

const char* patchKindName(ArgumentPatch::Kind k) {
  switch (k) {
    case ArgumentPatch::Kind::Scalar: return "scalar";
    case ArgumentPatch::Kind::Cast: return "cast";
    case ArgumentPatch::Kind::Fill: return "fill";
    case ArgumentPatch::Kind::Replace: return "replace";
  }
  return "?";
}

template <class Enum>
std::optional<Enum> enumNamed(const std::string& name, int count, std::string_view (*nameOf)(Enum)) {
  for (int i = 0; i < count; ++i)
    if (nameOf(static_cast<Enum>(i)) == name) return static_cast<Enum>(i);
  return std::nullopt;
}

std::string_view patchKindView(ArgumentPatch::Kind k) { return patchKindName(k); }

// ---- writing

Json summaryJson(const ValueSummary& v) {
  return {{"kind", v.kind}, {"dtype", std::string(dtypeName(v.dtype))}, {"sizes", v.sizes},
          {"strides", v.strides}, {"device", v.device}, {"text", v.text}};
}

Json argumentsJson(const std::vector<ArgumentRecord>& arguments) {
  Json out = Json::array();
  for (const ArgumentRecord& a : arguments)
    out.push_back({{"name", a.name}, {"type", a.declaredType}, {"source", std::string(argSourceName(a.source))},
                   {"detail", a.sourceDetail}, {"value", summaryJson(a.value)}});
  return out;
}

Json recordJson(const NodeRecord& r) {
  Json outputs = Json::array();
  for (const ValueSummary& v : r.outputs) outputs.push_back(summaryJson(v));
  return {{"executed", r.executed}, {"schema", r.schema}, {"arguments", argumentsJson(r.arguments)},
          {"outputs", outputs}, {"us", r.microseconds}};
}

/// JSON has no infinities or NaN (nlohmann writes them as null): those are the strings Python's
/// float() reads, "inf", "-inf" and "nan".
Json realJson(double x) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  return x;
}

Json comparisonJson(const Capture::Comparison& c) {
  Json nodes = Json::array();
  for (const auto& [node, n] : c.nodes) {
    const TensorMetrics& m = n.metrics;
    nodes.push_back({{"node", node}, {"output", n.output}, {"max_abs", realJson(m.maxAbs)}, {"max_rel", realJson(m.maxRel)},
                     {"mean_abs", realJson(m.meanAbs)}, {"cosine", realJson(m.cosine)}, {"sqnr_db", realJson(m.sqnrDb)},
                     {"nonfinite_a", m.nonfiniteA}, {"nonfinite_b", m.nonfiniteB}, {"nonfinite_apart", m.nonfiniteApart},
                     {"compared", m.compared}, {"metrics_problem", m.problem}, {"tolerance", realJson(n.tolerance)},
                     {"own_rel", n.ownRel ? realJson(*n.ownRel) : Json(nullptr)}, {"own_problem", n.ownProblem},
                     {"diverges", n.diverges}, {"starts_divergence", n.startsDivergence},
                     {"makes_nonfinite", n.makesNonfinite}, {"problem", n.problem}});
  }
  return {{"reference", c.reference}, {"reference_failure", c.referenceFailure}, {"nodes", nodes},
          {"nonfinite_slice", c.nonfiniteSlice}};
}

Json diagnosisJson(const Diagnosis& d) {
  return {{"class", std::string(diagnosisClassName(d.kind))}, {"node", d.nodeName}, {"op", d.opType},
          {"schema", d.schema}, {"message", d.message}, {"explanation", d.explanation},
          {"arguments", argumentsJson(d.arguments)}, {"stack", d.stackTrace}};
}

// ---- reading: every field asked for by name and type, or the file is refused

class Reader {
 public:
  explicit Reader(std::string path) : m_path(std::move(path)) {}

  [[noreturn]] void fail(const std::string& what) const { throw LoadError(m_path, "capture: " + what); }

  const Json& at(const Json& o, const char* key, const std::string& where) const {
    if (!o.is_object()) fail(where + " is not an object");
    const auto it = o.find(key);
    if (it == o.end()) fail(where + " has no '" + key + "'");
    return *it;
  }
  std::string text(const Json& o, const char* key, const std::string& where) const {
    const Json& v = at(o, key, where);
    if (!v.is_string()) fail(where + "." + key + " is not text");
    return v.get<std::string>();
  }
  bool flag(const Json& o, const char* key, const std::string& where) const {
    const Json& v = at(o, key, where);
    if (!v.is_boolean()) fail(where + "." + key + " is not true or false");
    return v.get<bool>();
  }
  /// A number, or "inf", "-inf", "nan" (realJson).
  double number(const Json& o, const char* key, const std::string& where) const {
    const Json& v = at(o, key, where);
    if (v.is_number()) return v.get<double>();
    if (v == "inf") return INFINITY;
    if (v == "-inf") return -INFINITY;
    if (v == "nan") return NAN;
    fail(where + "." + key + " is not a number");
  }
  int64_t integer(const Json& o, const char* key, const std::string& where) const {
    const auto v = exactInt64(at(o, key, where));
    if (!v) fail(where + "." + key + " is not a 64-bit integer");
    return *v;
  }
  const Json& array(const Json& o, const char* key, const std::string& where) const {
    const Json& v = at(o, key, where);
    if (!v.is_array()) fail(where + "." + key + " is not a list");
    return v;
  }
  std::vector<int64_t> ints(const Json& o, const char* key, const std::string& where) const {
    const Json& list = array(o, key, where);
    if (list.size() > TensorData::kMaxRank) fail(where + "." + key + " has more than " +
                                                 std::to_string(TensorData::kMaxRank) + " entries");
    std::vector<int64_t> out;
    for (const Json& e : list) {
      const auto v = exactInt64(e);
      if (!v) fail(where + "." + key + " holds something that is not a 64-bit integer");
      out.push_back(*v);
    }
    return out;
  }
  DType dtype(const Json& o, const char* key, const std::string& where) const {
    const std::string name = text(o, key, where);
    if (name == dtypeName(DType::Unknown)) return DType::Unknown;
    const auto d = dtypeFromName(name);
    if (!d) fail(where + "." + key + " names no dtype: '" + name + "'");
    return *d;
  }

  ValueSummary summary(const Json& o, const std::string& where) const {
    ValueSummary v;
    v.kind = text(o, "kind", where);
    v.dtype = dtype(o, "dtype", where);
    v.sizes = ints(o, "sizes", where);
    v.strides = ints(o, "strides", where);
    v.device = text(o, "device", where);
    v.text = text(o, "text", where);
    return v;
  }
  std::vector<ArgumentRecord> arguments(const Json& o, const std::string& where) const {
    std::vector<ArgumentRecord> out;
    const Json& list = array(o, "arguments", where);
    for (std::size_t i = 0; i < list.size(); ++i) {
      const std::string w = where + ".arguments[" + std::to_string(i) + "]";
      ArgumentRecord a;
      a.name = text(list[i], "name", w);
      a.declaredType = text(list[i], "type", w);
      const auto source = enumNamed<ArgSource>(text(list[i], "source", w), 5, argSourceName);
      if (!source) fail(w + ".source names no source");
      a.source = *source;
      a.sourceDetail = text(list[i], "detail", w);
      a.value = summary(at(list[i], "value", w), w + ".value");
      out.push_back(std::move(a));
    }
    return out;
  }
  NodeRecord record(const Json& o, const std::string& where) const {
    NodeRecord r;
    r.executed = flag(o, "executed", where);
    r.schema = text(o, "schema", where);
    r.arguments = arguments(o, where);
    const Json& outputs = array(o, "outputs", where);
    for (std::size_t i = 0; i < outputs.size(); ++i)
      r.outputs.push_back(summary(outputs[i], where + ".outputs[" + std::to_string(i) + "]"));
    r.microseconds = number(o, "us", where);
    return r;
  }
  Capture::Comparison comparison(const Json& o, const std::string& where) const {
    Capture::Comparison c;
    c.reference = text(o, "reference", where);
    c.referenceFailure = text(o, "reference_failure", where);
    const Json& nodes = array(o, "nodes", where);
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      const Json& e = nodes[i];
      const std::string w = where + ".nodes[" + std::to_string(i) + "]";
      NodeComparison n;
      const int64_t output = integer(e, "output", w);
      if (output < 0 || output > std::numeric_limits<int>::max()) fail(w + ".output is out of range");
      n.output = static_cast<int>(output);
      TensorMetrics& m = n.metrics;
      m.maxAbs = number(e, "max_abs", w);
      m.maxRel = number(e, "max_rel", w);
      m.meanAbs = number(e, "mean_abs", w);
      m.cosine = number(e, "cosine", w);
      m.sqnrDb = number(e, "sqnr_db", w);
      m.nonfiniteA = integer(e, "nonfinite_a", w);
      m.nonfiniteB = integer(e, "nonfinite_b", w);
      m.nonfiniteApart = integer(e, "nonfinite_apart", w);
      m.compared = integer(e, "compared", w);
      m.problem = text(e, "metrics_problem", w);
      n.tolerance = number(e, "tolerance", w);
      if (!at(e, "own_rel", w).is_null()) n.ownRel = number(e, "own_rel", w);
      n.ownProblem = text(e, "own_problem", w);
      n.diverges = flag(e, "diverges", w);
      n.startsDivergence = flag(e, "starts_divergence", w);
      n.makesNonfinite = flag(e, "makes_nonfinite", w);
      n.problem = text(e, "problem", w);
      c.nodes.emplace_back(text(e, "node", w), std::move(n));
    }
    for (const Json& name : array(o, "nonfinite_slice", where)) {
      if (!name.is_string()) fail(where + ".nonfinite_slice holds something that is not a node's name");
      c.nonfiniteSlice.push_back(name.get<std::string>());
    }
    return c;
  }
  Diagnosis diagnosis(const Json& o, const std::string& where) const {
    Diagnosis d;
    const auto kind = enumNamed<DiagnosisClass>(text(o, "class", where),
                                                static_cast<int>(DiagnosisClass::Divergence) + 1, diagnosisClassName);
    if (!kind) fail(where + ".class names no class of diagnosis");
    d.kind = *kind;
    d.nodeName = text(o, "node", where);
    d.opType = text(o, "op", where);
    d.schema = text(o, "schema", where);
    d.message = text(o, "message", where);
    d.explanation = text(o, "explanation", where);
    d.arguments = arguments(o, where);
    d.stackTrace = text(o, "stack", where);
    return d;
  }

 private:
  std::string m_path;
};

std::string patchTensorName(const std::string& node, const std::string& argument) {
  return "patch/" + node + "/" + argument;
}

}  // namespace

Capture::ProgramRef programReference(const std::string& path) {
  const auto file = MappedFile::open(path);
  uLong crc = crc32(0L, Z_NULL, 0);
  // zlib takes at most a uInt at a time
  for (std::size_t at = 0; at < file->size();) {
    const std::size_t n = std::min<std::size_t>(file->size() - at, std::numeric_limits<uInt>::max());
    crc = crc32(crc, reinterpret_cast<const Bytef*>(file->data() + at), static_cast<uInt>(n));
    at += n;
  }
  return {path, file->size(), static_cast<uint32_t>(crc)};
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
      entries.push_back({{"argument", p.argument}, {"kind", patchKindName(p.kind)}, {"value", realJson(p.value)},
                         {"dtype", std::string(dtypeName(p.dtype))}, {"origin", p.origin}});
      if (p.kind == ArgumentPatch::Kind::Replace) tensors[patchTensorName(node, p.argument)] = p.tensor;
    }
    patches[node] = entries;
  }
  Json records = Json::array();
  for (const auto& [node, r] : c.records) {
    Json entry = recordJson(r);
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
  writeSafetensors(path, tensors, {{kMetadataKey, meta.dump()}});
}

Capture readCapture(const std::string& path) {
  SafetensorsMetadata metadata;
  TensorMap tensors = readSafetensors(path, &metadata);
  const Reader r(path);
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
      const auto kind = enumNamed<ArgumentPatch::Kind>(r.text(list[i], "kind", w), 4, patchKindView);
      if (!kind) r.fail(w + ".kind names no kind of change");
      p.kind = *kind;
      p.value = r.number(list[i], "value", w);
      p.dtype = r.dtype(list[i], "dtype", w);
      p.origin = r.text(list[i], "origin", w);
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
    c.records.emplace_back(r.text(records[i], "node", w), r.record(records[i], w));
  }
  c.diagnosis = r.diagnosis(r.at(meta, "diagnosis", top), "diagnosis");
  if (meta.contains("comparison")) c.comparison = r.comparison(meta.at("comparison"), "comparison");
  return c;
}

}  // namespace torchir
