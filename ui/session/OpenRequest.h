#pragma once
#include <QString>

namespace torchir::ui {

/// What the user asked to open: the program and the files that complete it. Empty paths mean
/// "none given": the program's own weights and sample inputs are used.
struct OpenRequest {
  QString path;
  QString weightsPath;    // .safetensors or a torch.save state dict, for IR JSON and meta exports
  QString constantsPath;  // .safetensors of lifted constants
  QString inputsPath;     // .safetensors of the user inputs (by name or input_<i>)
  /// Weights whose data has another dtype than the export (float16 for a float32 program) are
  /// cast to the export's when the run starts.
  bool castWeights = false;
  /// A capture (docs/captures.md) to show as it was: `path` is then the program it ran, found by
  /// the loader.
  QString capturePath = {};
};

}  // namespace torchir::ui
