#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "program/TensorData.h"

namespace torchir {

/// What ExecuTorch's runtime logged while running a method (an ETDump, and the debug buffer file
/// its tensors point into), read after the FlatBuffers verifier has accepted it.
struct EtDump {
  /// A timed span: an instruction (chain, instruction id), a delegate's own op inside a delegate
  /// call (its delegate debug id), or the method's setup ("Method::init").
  struct Profile {
    std::string name;
    int32_t chain = -1;
    int32_t instruction = -1;
    int32_t delegateId = -1;   // the delegate's int id, -1 for none
    std::string delegateName;  // the delegate's string id ("Fully Connected (NC, F32) GEMM #1")
    uint64_t start = 0, end = 0;  // ns
    uint64_t nanoseconds() const { return end >= start ? end - start : 0; }
  };
  /// A value logged by an instruction: a kernel's output, each argument of a delegate call, or
  /// (output set, chain all ones) one of the method's outputs.
  struct Debug {
    uint64_t chain = 0;
    int32_t instruction = -1;
    int32_t delegateId = -1;
    std::string delegateName;
    std::string name;
    bool output = false;
    /// The tensor or tensors (a tensor list) logged, each with the debug buffer's bytes when they
    /// are there; numbers logged are kept as 0-d float64 tensors.
    std::vector<TensorData> tensors;
    /// Why a tensor has no data ("no debug buffer", "bytes past its end"), "" when all have.
    std::string problem;
  };
  struct Run {
    std::string name;
    int32_t bundledInput = -1;
    std::vector<std::string> allocators;
    std::vector<Profile> profiles;
    std::vector<Debug> debugs;   // in the order they were logged
    std::size_t allocations = 0;
  };

  std::string path, debugBufferPath;
  uint32_t version = 0;
  std::vector<Run> runs;
};

/// The debug buffer beside an ETDump: STEM.debug.bin, else debug_buffer.bin or debug_output.bin
/// in its folder; empty when none is there.
std::string debugBufferBeside(const std::string& etdump);

/// Maps and reads an ETDump (size-prefixed, identifier ED00) and, when `debugBufferPath` is not
/// empty, the debug buffer its tensors point into (kept mapped by the tensors). Throws LoadError
/// with one line naming the file and the problem.
EtDump readEtDump(const std::string& path, const std::string& debugBufferPath = "");
/// The same on bytes in memory, with `debugBuffer` (may be null) as the tensors' storage.
EtDump readEtDumpBytes(const std::byte* data, std::size_t size, const std::string& name,
                       std::shared_ptr<const Storage> debugBuffer);

}  // namespace torchir
