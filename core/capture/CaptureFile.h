#pragma once
// A capture: a run as it was (its records, marks, notes, changes to calls and pinned tensors) in
// one file that opens without running. The format is docs/captures.md: a .safetensors file whose
// tensors are the inputs ("input/<i>"), the pinned tensors ("pinned/<value>"), the tensors of
// changes ("patch/<node>/<argument>") and, when asked, the program file itself ("program", uint8),
// with everything else as JSON in its __metadata__ "torchir.capture".
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <memory>

#include "compare/ComparisonRecord.h"
#include "exec/ExecTypes.h"
#include "exec/Patch.h"
#include "program/TensorData.h"
#include "pyhost/PythonHostOptions.h"

namespace torchir {

struct Capture {
  static constexpr int kVersion = 1;
  /// Which program: by path and content (size and CRC-32), its bytes embedded when asked.
  struct ProgramRef {
    std::string path;
    uint64_t size = 0;
    uint32_t crc32 = 0;
    bool operator==(const ProgramRef&) const = default;
  } program;
  TensorData embeddedProgram;  // uint8 bytes of the program file; no data when not embedded
  std::vector<TensorData> inputs;
  // Nodes are named, not numbered: names are what a program's loads agree on.
  std::vector<std::string> breakpoints;
  std::map<int, std::string> bookmarks;       // slot 1..9 -> node
  std::map<std::string, std::string> notes;   // node -> text
  std::map<std::string, std::vector<ArgumentPatch>> patches;  // node -> its call's changes
  std::string next;                           // the node that runs next; "" when the run finished
  std::vector<std::pair<std::string, NodeRecord>> records;   // node -> what its run recorded
  Diagnosis diagnosis;                        // of the stop; kind None when there is none
  std::map<std::string, TensorData> pinned;   // value -> the tensor the user pinned
  /// The comparison the run was last part of, as the table showed it (its metrics, not the
  /// reference's tensors). NodeComparison's ids are not kept: `a` and `b` are kNone.
  struct Comparison {
    std::string reference;  // "float64", "other.pt2"
    std::string referenceFailure;
    std::vector<std::pair<std::string, NodeComparison>> nodes;  // node -> its comparison, in run order
    std::vector<std::string> nonfiniteSlice;  // the first NaN/Inf's node and those it depends on
  };
  std::optional<Comparison> comparison;
  /// The Python the run used for ops defined in Python, and what it imported (python empty: none).
  /// A record only: reopening a capture never starts the Python it names.
  PythonHostOptions python;

  /// The same capture: every field, tensors by dtype, shape and bytes, numbers as the file holds
  /// them (a NaN equals a NaN), records and diagnoses as their one JSON form has them.
  bool operator==(const Capture& other) const;
};

/// A comparison by node names, as a capture holds it; and back, against the program the capture
/// ran (which is then the record's reference program too: the reference's own is not kept). Names
/// the program lacks are passed by. The one pair of converters between the two forms.
Capture::Comparison namedComparison(const ComparisonRecord& record, const Program& program);
ComparisonRecord comparisonFromNames(const Capture::Comparison& named, std::shared_ptr<const Program> program);

/// `path`'s size and CRC-32, as a capture names its program. Throws LoadError.
Capture::ProgramRef programReference(const std::string& path);

/// Throws LoadError naming the file when it cannot be written.
void writeCapture(const std::string& path, const Capture& capture);

/// The program a capture ran, as a file to load: its embedded bytes written once into
/// `extractFolder` (named by their CRC-32), else its path (a relative one from the capture's
/// folder). Throws LoadError naming the capture when the file is missing or is not the one the
/// capture ran (its size or CRC-32 differ).
std::string capturedProgramPath(const Capture& capture, const std::string& capturePath, const std::string& extractFolder);

/// A capture from anyone: every field checked (types, counts, the version) and nothing run.
/// Throws LoadError naming the file and the first problem, in one line.
Capture readCapture(const std::string& path);

}  // namespace torchir
