#pragma once
// An op's schema as a program's writers need it: what pytorch-ir's analyzer reads off each
// argument. The engine's backend answers it (AtenBackend::schemaSpecs); the model only names it.
#include <string>

namespace torchir {

/// What pytorch-ir's analyzer reads off an op's schema, per argument.
struct SchemaArgSpec {
  std::string name;
  bool isTensorList = false;  // the type mentions Tensor[] or Tensor?[]
  bool isTensor = false;      // the type mentions Tensor at all
};

}  // namespace torchir
