#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "program/DType.h"

namespace torchir {

class MappedFile;

/// An ExecuTorch program (`.pte`) as its plans describe it: what runs, in which order, on which
/// kernels and backends, with how much planned memory. Read from a memory map after the FlatBuffers
/// verifier has accepted it; segments (delegate blobs, weights) are located and bounds-checked,
/// never read.
struct PteProgram {
  /// One instruction of a chain. An instruction's index in its chain is its only key: ETDump
  /// events and the ETRecord's debug handle map name it (the .pte holds no debug handles).
  struct Instruction {
    enum class Kind { Kernel, Delegate, Move, JumpFalse, Free, Unknown };
    Kind kind = Kind::Unknown;
    int32_t target = -1;         // operator index (Kernel), delegate index (Delegate), else -1
    std::vector<int32_t> args;   // value indices (Kernel, Delegate); from/to (Move); ...
  };
  struct Chain {
    std::vector<int32_t> inputs, outputs;
    std::vector<Instruction> instructions;
  };
  struct Operator {
    std::string name, overload;  // "aten::cumsum", "out"
    std::string text() const { return overload.empty() ? name : name + "." + overload; }
  };
  struct Delegate {
    std::string backend;            // "XnnpackBackend"
    bool inSegment = false;         // its blob is a segment (else inline in the flatbuffer)
    uint32_t dataIndex = 0;
    std::optional<uint64_t> bytes;  // the blob's size, when its reference is valid
    std::vector<std::string> compileSpecKeys;
  };
  /// A value the plan declares (EValue). Tensors give dtype and sizes.
  struct Value {
    enum class Kind { None, Int, Bool, Double, Tensor, String, IntList, DoubleList, BoolList, TensorList,
                      OptionalTensorList, Unknown };
    Kind kind = Kind::None;
    DType dtype = DType::Unknown;  // tensors; Unknown also for types this build does not know
    std::vector<int64_t> sizes;
    bool constant = false;         // a tensor whose bytes are in the program (data_buffer_idx > 0)
    std::string kindName() const;
  };
  struct Plan {
    std::string name;  // the method, "forward"
    std::vector<Value> values;
    std::vector<int32_t> inputs, outputs;
    std::vector<Chain> chains;
    std::vector<Operator> operators;
    std::vector<Delegate> delegates;
    std::vector<int64_t> plannedBuffers;  // non_const_buffer_sizes: entry 0 is reserved by the format
    /// The name an instruction shows: its operator ("aten::linear.out"), its delegate's backend
    /// ("XnnpackBackend"), or its kind ("move").
    std::string instructionText(const Instruction& i) const;
  };
  struct Segment {
    uint64_t offset = 0, size = 0;  // after segmentBase
  };

  std::string path;
  uint64_t fileSize = 0;
  uint32_t version = 0;
  uint64_t flatbufferSize = 0;     // the extended header's program size, else the file's
  uint64_t segmentBase = 0;        // where segment offsets start (0: no segments)
  bool extendedHeader = false;
  std::vector<Plan> plans;
  std::vector<Segment> segments;
  std::size_t constantBuffers = 0;     // inline constants (old programs)
  uint64_t inlineConstantBytes = 0;
  std::optional<uint32_t> constantSegment;  // the segment holding the weights
  std::size_t constantSegmentEntries = 0;
  std::size_t mutableDataSegments = 0;
  std::vector<std::pair<std::string, uint32_t>> namedData;  // key -> segment

  /// Bytes the program's constants (weights) occupy: their segment's size, else inline constants.
  uint64_t constantBytes() const;
  const Plan* plan(const std::string& name) const;
};

/// Maps and reads a `.pte`. Throws LoadError with one line naming the file and the problem (not a
/// .pte, truncated, failed verification, a segment past the end of the file, ...).
PteProgram readPte(const std::string& path);
/// The same on bytes already in memory (`name` names them in errors); they must outlive the call.
PteProgram readPteBytes(const std::byte* data, std::size_t size, const std::string& name);

/// looksLikePte (formats/EtRecordLayout.h) on the file's first bytes; false when it cannot be read.
bool isPteFile(const std::string& path);
/// The ExecuTorch program of a program opened from `opened` and read from the ETRecord `etrecord`:
/// `opened` itself when it is a .pte, else STEM.pte beside the ETRecord; empty when neither is.
std::string pteFor(const std::string& opened, const std::string& etrecord);

}  // namespace torchir
