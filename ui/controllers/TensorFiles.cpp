#include "controllers/TensorFiles.h"

#include <stdexcept>

#include "session/OneLine.h"

namespace torchir::ui {

TensorFileSpec parseTensorFileSpec(const QString& text) {
  const QString spec = text.trimmed();
  const int colon = spec.lastIndexOf(QLatin1Char(':'));
  const bool named = colon > 0 && !spec.mid(colon + 1).contains(QLatin1Char('/'));
  return {(named ? spec.left(colon) : spec).toStdString(), named ? spec.mid(colon + 1).toStdString() : std::string()};
}

TensorFileReads readTensorFiles(const std::set<std::string>& files) {
  TensorFileReads reads;
  for (const std::string& file : files) {
    TensorFileRead& read = reads[file];
    try {
      read.tensors = torchir::readSafetensors(file);
    } catch (const std::exception& e) {  // LoadError names the file; anything else is said as it is
      read.problem = oneLine(QString::fromUtf8(e.what()));
    }
  }
  return reads;
}

torchir::TensorData tensorFor(const torchir::TensorMap& tensors, const TensorFileSpec& spec,
                              const std::string& argument, std::string* name) {
  *name = !spec.name.empty() ? spec.name : tensors.size() == 1 ? tensors.begin()->first : argument;
  const auto found = tensors.find(*name);
  if (found == tensors.end())
    throw std::invalid_argument("'" + argument + "': " + spec.file + " has no tensor '" + *name + "'");
  return found->second;
}

}  // namespace torchir::ui
