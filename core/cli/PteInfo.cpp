// `torchir info model.pte`: the plan of an ExecuTorch program, read from its map without its weights.
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>

#include "Cli.h"
#include "executorch/PteProgram.h"
#include "program/EscapedText.h"
#include "program/OneLine.h"

namespace torchir::cli {
namespace {

using Json = nlohmann::ordered_json;
using Kind = PteProgram::Instruction::Kind;

const char* kindName(Kind k) {
  switch (k) {
    case Kind::Kernel: return "kernel";
    case Kind::Delegate: return "delegate";
    case Kind::Move: return "move";
    case Kind::JumpFalse: return "jump";
    case Kind::Free: return "free";
    case Kind::Unknown: break;
  }
  return "unknown";
}

std::string bytesText(uint64_t n) {
  const char* units[] = {"B", "KB", "MB", "GB", "TB"};
  double v = static_cast<double>(n);
  int u = 0;
  while (v >= 1024 && u < 4) v /= 1024, ++u;
  char buf[32];
  std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.1f %s", v, units[u]);
  return buf;
}

/// How often each operator and backend is called, in first-call order.
std::vector<std::pair<std::string, int>> callCounts(const PteProgram::Plan& plan, Kind kind) {
  std::vector<std::pair<std::string, int>> out;
  std::map<std::string, std::size_t> at;
  for (const auto& chain : plan.chains)
    for (const auto& i : chain.instructions) {
      if (i.kind != kind) continue;
      const std::string name = plan.instructionText(i);
      auto [it, fresh] = at.emplace(name, out.size());
      if (fresh) out.emplace_back(name, 0);
      ++out[it->second].second;
    }
  return out;
}

uint64_t plannedBytes(const PteProgram::Plan& plan) {
  uint64_t total = 0;
  for (std::size_t i = 1; i < plan.plannedBuffers.size(); ++i)
    if (plan.plannedBuffers[i] > 0) total += static_cast<uint64_t>(plan.plannedBuffers[i]);
  return total;
}

std::string valueText(const PteProgram::Plan& plan, int32_t index) {
  if (index < 0 || static_cast<std::size_t>(index) >= plan.values.size()) return "#" + std::to_string(index) + "?";
  const auto& v = plan.values[index];
  if (v.kind != PteProgram::Value::Kind::Tensor) return v.kindName();
  return std::string(dtypeName(v.dtype)) + sizesText(v.sizes);
}

Json planJson(const PteProgram::Plan& plan) {
  Json j;
  j["name"] = plan.name;
  j["values"] = plan.values.size();
  j["inputs"] = Json::array();
  for (int32_t i : plan.inputs) j["inputs"].push_back(valueText(plan, i));
  j["outputs"] = Json::array();
  for (int32_t i : plan.outputs) j["outputs"].push_back(valueText(plan, i));
  j["planned_bytes"] = plannedBytes(plan);
  j["planned_buffers"] = plan.plannedBuffers;
  auto counts = [](const std::vector<std::pair<std::string, int>>& c) {
    Json o = Json::object();
    for (const auto& [k, n] : c) o[k] = n;
    return o;
  };
  j["operators"] = counts(callCounts(plan, Kind::Kernel));
  j["delegate_calls"] = counts(callCounts(plan, Kind::Delegate));
  j["delegates"] = Json::array();
  for (const auto& d : plan.delegates)
    j["delegates"].push_back({{"backend", d.backend}, {"in_segment", d.inSegment}, {"index", d.dataIndex},
                              {"bytes", d.bytes ? Json(*d.bytes) : Json()}, {"compile_specs", d.compileSpecKeys}});
  j["chains"] = Json::array();
  for (const auto& chain : plan.chains) {
    Json instructions = Json::array();
    for (const auto& i : chain.instructions)
      instructions.push_back({{"kind", kindName(i.kind)}, {"target", plan.instructionText(i)}, {"args", i.args}});
    j["chains"].push_back({{"instructions", std::move(instructions)}});
  }
  return j;
}

}  // namespace

int pteInfoCommand(const Args& args) {
  const PteProgram p = readPte(args.positional.front());
  if (args.flag("--json")) {
    Json j;
    j["format"] = "executorch";
    j["identifier"] = "ET12";
    j["version"] = p.version;
    j["file_bytes"] = p.fileSize;
    j["flatbuffer_bytes"] = p.flatbufferSize;
    j["segment_base"] = p.segmentBase;
    j["segments"] = Json::array();
    for (const auto& s : p.segments) j["segments"].push_back({{"offset", s.offset}, {"bytes", s.size}});
    j["constant_bytes"] = p.constantBytes();
    j["constant_segment"] = p.constantSegment ? Json(*p.constantSegment) : Json();
    j["constant_tensors"] = p.constantSegment ? p.constantSegmentEntries : p.constantBuffers;
    j["named_data"] = Json::array();
    for (const auto& [key, segment] : p.namedData) j["named_data"].push_back({{"key", key}, {"segment", segment}});
    j["methods"] = Json::array();
    for (const auto& plan : p.plans) j["methods"].push_back(planJson(plan));
    std::cout << jsonText(j, 2) << "\n";
    return kOk;
  }
  std::cout << "File: " << p.path << "\n"
            << "Format: ExecuTorch program (ET12), version " << p.version << ", " << bytesText(p.fileSize) << "\n"
            << "Flatbuffer: " << bytesText(p.flatbufferSize)
            << (p.extendedHeader ? ", segments from byte " + std::to_string(p.segmentBase) : std::string(", no extended header"))
            << "\n";
  std::cout << "Segments: " << p.segments.size();
  for (std::size_t i = 0; i < p.segments.size(); ++i)
    std::cout << (i ? ", " : " (") << bytesText(p.segments[i].size) << (i + 1 == p.segments.size() ? ")" : "");
  std::cout << "\nConstants: " << (p.constantSegment ? p.constantSegmentEntries : p.constantBuffers) << " tensors, "
            << bytesText(p.constantBytes())
            << (p.constantSegment ? " in segment " + std::to_string(*p.constantSegment) : std::string(" inline")) << "\n";
  if (!p.namedData.empty()) std::cout << "Named data: " << p.namedData.size() << " entries\n";
  for (const auto& plan : p.plans) {
    std::size_t instructions = 0;
    for (const auto& c : plan.chains) instructions += c.instructions.size();
    std::cout << "\nMethod " << oneLine(plan.name) << ": " << plan.values.size() << " values, " << plan.chains.size()
              << (plan.chains.size() == 1 ? " chain, " : " chains, ") << instructions << " instructions\n";
    std::cout << "  Inputs:";
    for (int32_t i : plan.inputs) std::cout << " " << valueText(plan, i);
    std::cout << "\n  Outputs:";
    for (int32_t i : plan.outputs) std::cout << " " << valueText(plan, i);
    std::cout << "\n  Planned memory: " << bytesText(plannedBytes(plan)) << " in " << (plan.plannedBuffers.size() > 1 ? plan.plannedBuffers.size() - 1 : 0)
              << " arena(s)\n";
    std::cout << "  Operators:\n";
    for (const auto& [name, n] : callCounts(plan, Kind::Kernel)) std::cout << "    " << oneLine(name) << ": " << n << "\n";
    std::cout << "  Delegates:\n";
    std::map<std::string, std::pair<int, uint64_t>> backends;
    for (const auto& d : plan.delegates) {
      auto& [n, bytes] = backends[d.backend];
      ++n, bytes += d.bytes.value_or(0);
    }
    for (const auto& [backend, c] : backends)
      std::cout << "    " << oneLine(backend) << ": " << c.first << " (" << bytesText(c.second) << ")\n";
    for (std::size_t c = 0; c < plan.chains.size(); ++c) {
      std::cout << "  Chain " << c << ":\n";
      const auto& chain = plan.chains[c];
      for (std::size_t i = 0; i < chain.instructions.size(); ++i) {
        const auto& in = chain.instructions[i];
        std::cout << "    " << i << "  " << kindName(in.kind) << "  " << oneLine(plan.instructionText(in));
        if (in.kind == Kind::Kernel || in.kind == Kind::Delegate) {
          std::cout << " ->";
          // a kernel's out argument is its last; a delegate's outputs are its last arguments too
          if (!in.args.empty()) std::cout << " " << valueText(plan, in.args.back());
        }
        std::cout << "\n";
      }
    }
  }
  return kOk;
}

}  // namespace torchir::cli
