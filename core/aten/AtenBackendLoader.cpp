// Finds libtorchir_aten.so through the executable's RUNPATH (set by CMake) and creates the backend.
#include <dlfcn.h>

#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "AtenBackend.h"

namespace torchir {
namespace {

constexpr const char* kLibrary = "libtorchir_aten.so";

/// dlopen by name searches the RUNPATH of the object that calls it. When a sanitizer intercepts
/// dlopen, that caller is the sanitizer's runtime, not our executable: then search the
/// executable's own library path (its RUNPATH included) by hand.
void* openFromExecutablePath() {
  void* self = dlopen(nullptr, RTLD_NOW);
  Dl_serinfo size{};
  if (!self || dlinfo(self, RTLD_DI_SERINFOSIZE, &size) != 0) return nullptr;
  std::vector<char> buffer(size.dls_size);
  auto* info = reinterpret_cast<Dl_serinfo*>(buffer.data());
  *info = size;
  if (dlinfo(self, RTLD_DI_SERINFO, info) != 0) return nullptr;
  for (unsigned i = 0; i < info->dls_cnt; ++i)
    if (void* lib = dlopen((std::string(info->dls_serpath[i].dls_name) + "/" + kLibrary).c_str(), RTLD_NOW | RTLD_LOCAL))
      return lib;
  return nullptr;
}

}  // namespace

const AtenBackend& atenBackend() {
  static std::once_flag once;
  static AtenBackend* backend = nullptr;
  static std::string error;
  std::call_once(once, [] {
    void* lib = dlopen(kLibrary, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      error = std::string("cannot load the ATen backend: ") + dlerror();
      lib = openFromExecutablePath();
    }
    if (!lib) return;
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
