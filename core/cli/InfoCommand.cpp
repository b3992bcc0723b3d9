#include <iostream>
#include <nlohmann/json.hpp>

#include "Cli.h"
#include "executorch/PteProgram.h"
#include "program/EscapedText.h"
#include "formats/ProgramLoader.h"
#include "program/ProgramSummary.h"

namespace torchir::cli {
namespace {

nlohmann::ordered_json shapeJson(const std::vector<Dim>& shape) {
  auto out = nlohmann::ordered_json::array();
  for (const auto& d : shape) {
    if (d.isSymbolic()) out.push_back(d.expr);
    else out.push_back(d.hint);
  }
  return out;
}

std::string shapeText(const std::vector<Dim>& shape) {
  std::string s = "[";
  for (std::size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") + (shape[i].isSymbolic() ? shape[i].expr : std::to_string(shape[i].hint));
  return s + "]";
}

}  // namespace

int infoCommand(const Args& args) {
  if (isPteFile(args.positional.front())) return pteInfoCommand(args);
  LoadOptions options{args.option("--weights"), args.option("--constants")};
  const Program& p = loadForCommand(args.positional.front(), options);
  const ProgramSummary s = summarize(p);
  if (args.flag("--json")) {
    nlohmann::ordered_json j;
    j["model_name"] = s.modelName;
    j["num_nodes"] = s.numNodes;
    j["num_inputs"] = s.numInputs;
    j["num_outputs"] = s.numOutputs;
    j["num_weights"] = s.numWeights;
    j["total_parameters"] = s.totalParameters;
    j["input_shapes"] = nlohmann::ordered_json::object();
    for (const auto& [name, shape] : s.inputShapes) j["input_shapes"][name] = shapeJson(shape);
    j["output_shapes"] = nlohmann::ordered_json::object();
    for (const auto& [name, shape] : s.outputShapes) j["output_shapes"][name] = shapeJson(shape);
    j["op_distribution"] = nlohmann::ordered_json::object();
    for (const auto& [op, n] : s.opDistribution) j["op_distribution"][op] = n;
    j["format"] = p.source.format;
    j["layout"] = p.source.layout;
    j["torch_version"] = p.source.torchVersion;
    j["schema_version"] = p.source.schemaVersion;
    j["missing_data"] = s.missingData;
    auto counts = [](const std::vector<std::pair<std::string, int>>& c) {
      auto o = nlohmann::ordered_json::object();
      for (const auto& [k, n] : c) o[k] = n;
      return o;
    };
    j["quantization"] = {{"nodes", counts(s.quantNodes)}, {"dtypes", counts(s.quantDtypes)},
                         {"subclass_weights", counts(s.subclassWeights)}};
    std::cout << jsonText(j, 2) << "\n";  // names that are not UTF-8 as U+FFFD, never an exception
    return kOk;
  }
  std::cout << "File: " << p.source.path << "\n"
            << "Format: " << p.source.format << " (" << p.source.layout << ")\n"
            << "Written by torch " << (p.source.torchVersion.empty() ? "?" : p.source.torchVersion)
            << (p.source.schemaVersion.empty() ? "" : ", schema " + p.source.schemaVersion) << "\n"
            << "Model: " << s.modelName << "\n"
            << "Nodes: " << s.numNodes << "\nInputs: " << s.numInputs << "\nOutputs: " << s.numOutputs
            << "\nWeights: " << s.numWeights << "\nTotal parameters: " << s.totalParameters << "\n";
  std::cout << "\nInput shapes:\n";
  for (const auto& [name, shape] : s.inputShapes) std::cout << "  " << name << ": " << shapeText(shape) << "\n";
  std::cout << "\nOutput shapes:\n";
  for (const auto& [name, shape] : s.outputShapes) std::cout << "  " << name << ": " << shapeText(shape) << "\n";
  std::cout << "\nOp distribution:\n";
  for (const auto& [op, n] : s.opDistribution) std::cout << "  " << op << ": " << n << "\n";
  if (!s.quantNodes.empty() || !s.subclassWeights.empty()) {
    auto line = [](const std::vector<std::pair<std::string, int>>& c) {
      std::string out;
      for (const auto& [k, n] : c) out += (out.empty() ? "" : ", ") + k + " " + std::to_string(n);
      return out.empty() ? std::string("none") : out;
    };
    std::cout << "\nQuantization:\n  nodes: " << line(s.quantNodes) << "\n  quantized dtypes: " << line(s.quantDtypes)
              << "\n  tensor-subclass weights: " << line(s.subclassWeights) << "\n";
  }
  if (!s.missingData.empty()) {
    std::cout << "\nNo data for " << s.missingData.size() << " weight(s) (supply them with --weights):\n";
    for (const auto& k : s.missingData) std::cout << "  " << k << "\n";
  }
  return kOk;
}

}  // namespace torchir::cli
