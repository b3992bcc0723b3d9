#include "EtRecordLayout.h"

#include <algorithm>
#include <cctype>
#include <cstring>

#include "Pt2Archive.h"
#include "Pt2Reader.h"
#include "TorchSaveReader.h"
#include "program/LoadError.h"

namespace torchir {
namespace {

constexpr const char* kMarker = "ETRECORD_V0";
constexpr const char* kEdgeFolder = "edge_dialect_exported_program/";

bool endsWith(const std::string& s, const char* suffix) {
  const std::size_t n = std::strlen(suffix);
  return s.size() > n && s.compare(s.size() - n, n, suffix) == 0;
}

}  // namespace

bool looksLikePte(const std::byte* head, std::size_t size) {
  if (size < 8) return false;
  auto c = [&](std::size_t i) { return static_cast<unsigned char>(head[i]); };
  return c(4) == 'E' && c(5) == 'T' && std::isdigit(c(6)) && std::isdigit(c(7));
}

bool isEtRecord(const Pt2Archive& archive) { return archive.has(kMarker); }

std::vector<std::string> etRecordMethods(const Pt2Archive& archive) {
  const std::string folder = kEdgeFolder;
  std::vector<std::string> methods;
  for (const auto& r : archive.records()) {
    if (r.rfind(folder, 0) != 0 || r.size() == folder.size() || r.find('/', folder.size()) != std::string::npos) continue;
    const std::string name = r.substr(folder.size());
    // a program's companions: NAME_state_dict, NAME_constants, NAME_example_inputs
    bool companion = false;
    for (const char* suffix : {"_state_dict", "_constants", "_example_inputs"})
      companion = companion || (endsWith(name, suffix) && archive.has(folder + name.substr(0, name.size() - std::strlen(suffix))));
    if (!companion) methods.push_back(name);
  }
  return methods;
}

std::string etRecordMethod(const Pt2Archive& archive, const std::string& method) {
  const auto methods = etRecordMethods(archive);
  if (methods.empty()) throw LoadError(archive.path(), "an ETRecord without an Edge program (edge_dialect_exported_program/...)");
  auto has = [&](const std::string& m) { return std::find(methods.begin(), methods.end(), m) != methods.end(); };
  if (!method.empty()) {
    if (!has(method)) throw LoadError(archive.path(), "the ETRecord has no Edge program of method '" + method + "'");
    return method;
  }
  return has("forward") ? "forward" : methods.front();
}

void readEtRecordProgram(const Pt2Archive& archive, const std::string& method, Program& program) {
  const std::string base = kEdgeFolder + method;
  program.source.format = "etrecord";
  program.source.layout = "ETRecord, Edge program of '" + method + "'";
  readSerializedArtifact(archive, {base, base + "_state_dict", base + "_constants", base + "_example_inputs"}, program);
  // The representative inputs are what the device was run on (ExecuTorch's Inspector runs the
  // program on them too): they stand in for the export's example inputs.
  if (!archive.has("representative_inputs")) return;
  try {
    auto bytes = archive.storage("representative_inputs");
    if (bytes->nbytes == 0) return;
    Pt2Archive nested(std::move(bytes));
    std::vector<TensorData> inputs;
    for (auto& entry : readTorchSave(nested)) inputs.push_back(std::move(entry.second));
    std::size_t wanted = 0;
    for (const auto& spec : program.inputs) wanted += spec.kind == InputKind::UserInput;
    if (inputs.size() > wanted) inputs.resize(wanted);  // a list of input sets: the first
    if (inputs.size() == wanted) program.sampleInputs = std::move(inputs);
  } catch (const LoadError&) {
    // the example inputs stay
  }
}

}  // namespace torchir
