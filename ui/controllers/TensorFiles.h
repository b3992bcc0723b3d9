#pragma once
// Tensors that replace a call's argument, named as "F.safetensors[:name]", read off the GUI thread.
#include <QString>
#include <map>
#include <set>
#include <string>

#include "formats/Safetensors.h"

namespace torchir::ui {

/// "F.safetensors" or "F.safetensors:name". Without a name, the file's only tensor, else the one
/// named after the argument it replaces.
struct TensorFileSpec {
  std::string file;
  std::string name;  // empty: not given
};
/// A colon followed by a path separator belongs to the path (C:/…), not to a name.
TensorFileSpec parseTensorFileSpec(const QString& text);

/// A file's tensors, or why they could not be read (one line).
struct TensorFileRead {
  torchir::TensorMap tensors;
  QString problem;  // empty: read
};
using TensorFileReads = std::map<std::string, TensorFileRead>;

/// Reads each file; blocks, so it runs on a worker thread (QtConcurrent::run). Never throws.
TensorFileReads readTensorFiles(const std::set<std::string>& files);

/// The tensor `spec` names in `tensors`, for the argument `argument`, with the name it has in
/// the file in `name`; throws std::invalid_argument naming the argument when there is none.
torchir::TensorData tensorFor(const torchir::TensorMap& tensors, const TensorFileSpec& spec,
                              const std::string& argument, std::string* name);

}  // namespace torchir::ui
