// Finds libtorchir_aten.so through the executable's RUNPATH (set by CMake) and creates the backend.
#include <dlfcn.h>

#include <mutex>
#include <stdexcept>

#include "AtenBackend.h"

namespace torchir {

const AtenBackend& atenBackend() {
  static std::once_flag once;
  static AtenBackend* backend = nullptr;
  static std::string error;
  std::call_once(once, [] {
    void* lib = dlopen("libtorchir_aten.so", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      error = std::string("cannot load the ATen backend: ") + dlerror();
      return;
    }
    using Factory = AtenBackend* (*)();
    auto create = reinterpret_cast<Factory>(dlsym(lib, "torchir_create_aten_backend"));
    if (!create) {
      error = "libtorchir_aten.so has no torchir_create_aten_backend";
      return;
    }
    backend = create();  // lives as long as the process, like libtorch itself
  });
  if (!backend) throw std::runtime_error(error);
  return *backend;
}

}  // namespace torchir
