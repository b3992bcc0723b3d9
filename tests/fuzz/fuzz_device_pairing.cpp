// A device's run (an ETDump, its tensors against a debug buffer of fixed size) paired with a small
// Edge program through a debug handle map that names a handle twice, shares one between two
// instructions and counts two outputs for a delegate call: the pairing's indexing, latencies and
// output matching on every ETDump the fuzzer makes.
#include <vector>

#include "FuzzInput.h"
#include "executorch/DeviceRun.h"

namespace {

/// Four call nodes of debug handles 1, 2, 2, 3, each making a float32 [4, 8] (the third an int8 one).
torchir::Program smallEdgeProgram() {
  torchir::Program p;
  const int handles[] = {1, 2, 2, 3};
  for (int i = 0; i < 4; ++i) {
    torchir::Value v;
    v.id = static_cast<torchir::ValueId>(p.values.size());
    v.name = "v" + std::to_string(i);
    v.dtype = i == 2 ? torchir::DType::Int8 : torchir::DType::Float32;
    v.shape = {torchir::Dim{4, {}}, torchir::Dim{8, {}}};
    v.producer = static_cast<torchir::NodeId>(p.nodes.size());
    torchir::Node n;
    n.id = v.producer;
    n.opcode = torchir::Opcode::CallFunction;
    n.name = n.target = "op" + std::to_string(i);
    n.outputs = {v.id};
    torchir::NodeOrigin origin;
    origin.deviceHandle = handles[i];
    n.origin = std::make_shared<const torchir::NodeOrigin>(origin);
    p.values.push_back(v);
    p.nodes.push_back(n);
  }
  return p;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  static const torchir::Program program = smallEdgeProgram();
  static const torchir::EtRecord record = [] {
    torchir::EtRecord r;
    r.path = "fuzz.etrecord";
    r.method = "forward";
    r.debugHandles = {{0, {1}}, {1, {2, 3}}, {2, {2}}, {3, {1, 2, 3}}};
    r.outputCounts = {{1, 2}};
    r.delegates = {{1, "XnnpackBackend"}};
    return r;
  }();
  static const auto buffer = torchir::fuzz::fixedDebugBuffer();
  torchir::fuzz::expectLoadErrorOrSuccess([&] {
    const torchir::EtDump dump = torchir::readEtDumpBytes(reinterpret_cast<const std::byte*>(data), size, "fuzz.etdp", buffer);
    const torchir::DeviceRun run = torchir::pairDeviceRun(program, record, dump);
    for (const auto& in : run.instructions)
      for (std::size_t o = 0; o < in.outputs.size(); ++o)
        if (in.outputNodes.at(o) != torchir::kNone) (void)run.of(in.outputNodes[o]);
  });
  return 0;
}
