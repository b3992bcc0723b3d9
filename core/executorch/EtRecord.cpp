#include "EtRecord.h"

#include <algorithm>
#include <cstring>
#include <nlohmann/json.hpp>

#include "formats/EtRecordLayout.h"
#include "formats/Pt2Archive.h"
#include "program/LoadError.h"

namespace torchir {
namespace {

constexpr std::size_t kMaxHandlesPerInstruction = 1 << 20;

/// An integer key of a map record ("12"), or nullopt.
std::optional<int> intKey(const std::string& key) {
  if (key.empty() || key.size() > 9 || !std::all_of(key.begin(), key.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return std::nullopt;
  return std::stoi(key);
}

std::optional<int> smallInt(const nlohmann::json& v) {
  if (!v.is_number_integer()) return std::nullopt;
  const auto i = v.get<int64_t>();
  if (i < INT32_MIN || i > INT32_MAX) return std::nullopt;
  return static_cast<int>(i);
}

/// `{"forward": {"0": ...}}`: the method's entries, each given to `use(instruction, value)`.
/// A missing record or method is no entries; one that is not such a map is an error.
template <typename Use>
void readMethodMap(const Pt2Archive& archive, const std::string& record, const std::string& method, Use use) {
  if (!archive.has(record)) return;
  const auto root = nlohmann::json::parse(archive.text(record), nullptr, false);
  auto bad = [&](const std::string& what) { throw LoadError(archive.path(), record + " " + what); };
  if (root.is_discarded() || !root.is_object()) bad("is not a JSON object");
  const auto it = root.find(method);
  if (it == root.end()) return;
  if (!it->is_object()) bad("has no map for method '" + method + "'");
  for (const auto& [key, value] : it->items()) {
    const auto instruction = intKey(key);
    if (!instruction) bad("names instruction '" + key + "', not a number");
    use(*instruction, value, bad);
  }
}

}  // namespace

std::map<int, std::vector<NodeId>> nodesByDeviceHandle(const Program& program) {
  std::map<int, std::vector<NodeId>> out;
  for (std::size_t i = 0; i < program.nodes.size(); ++i) {
    const Node& n = program.nodes[i];
    if (n.opcode == Opcode::CallFunction && n.origin && n.origin->deviceHandle && *n.origin->deviceHandle <= INT32_MAX)
      out[static_cast<int>(*n.origin->deviceHandle)].push_back(static_cast<NodeId>(i));
  }
  return out;
}

EtRecord readEtRecord(const std::string& path, const std::string& wanted, bool withProgram) {
  const Pt2Archive archive(path);
  if (!isEtRecord(archive)) throw LoadError(path, "not an ETRecord (no ETRECORD_V0 record)");
  EtRecord out;
  out.path = path;
  out.methods = etRecordMethods(archive);
  out.method = etRecordMethod(archive, wanted);
  out.hasAtenProgram = archive.has("exported_program");
  if (withProgram) {
    auto edge = std::make_shared<Program>();
    edge->source.path = path;
    readEtRecordProgram(archive, out.method, *edge);
    const auto slash = path.find_last_of('/');
    const std::string file = path.substr(slash == std::string::npos ? 0 : slash + 1);
    edge->source.modelName = file.substr(0, file.find('.'));
    out.edge = std::move(edge);
  }

  readMethodMap(archive, "debug_handle_map", out.method, [&](int instruction, const nlohmann::json& v, auto bad) {
    std::vector<int> handles;
    if (const auto one = smallInt(v)) handles.push_back(*one);
    else if (v.is_array() && v.size() <= kMaxHandlesPerInstruction)
      for (const auto& h : v) {
        const auto i = smallInt(h);
        if (!i) bad("has a debug handle that is not an integer");
        handles.push_back(*i);
      }
    else bad("has an entry that is neither a handle nor a list of them");
    std::sort(handles.begin(), handles.end());
    handles.erase(std::unique(handles.begin(), handles.end()), handles.end());
    out.debugHandles[instruction] = std::move(handles);
  });
  readMethodMap(archive, "delegate_map", out.method, [&](int instruction, const nlohmann::json& v, auto) {
    if (v.is_object())
      if (const auto name = v.find("name"); name != v.end() && name->is_string()) out.delegates[instruction] = name->get<std::string>();
  });
  readMethodMap(archive, "instruction_id_to_num_outs_map", out.method, [&](int instruction, const nlohmann::json& v, auto bad) {
    const auto n = smallInt(v);
    if (!n || *n < 0) bad("has an output count that is not a non-negative integer");
    out.outputCounts[instruction] = *n;
  });
  return out;
}

}  // namespace torchir
