// Finds libtorchir_aten.so through the executable's RUNPATH (set by CMake) and creates the backend.
#include <dlfcn.h>

#include <cstdlib>
#include <fstream>
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

/// "2.14.1" of "2.14.1+cu130": builds of one version for other CUDA versions share the C++ ABI.
std::string baseVersion(const std::string& version) { return version.substr(0, version.find('+')); }

/// The version of the torch package whose lib/ folder `dir` is, from its torch/version.py.
std::string torchVersionAt(const std::string& dir) {
  // torch writes a dozen short lines; a file that is not that is read no further than this
  constexpr int kMaxLines = 64;
  constexpr std::size_t kMaxLine = 4096;
  std::ifstream file(dir + "/../version.py");
  const std::string key = "__version__ = '";
  std::string line;
  for (int i = 0; i < kMaxLines && std::getline(file, line) && line.size() <= kMaxLine; ++i)
    if (line.rfind(key, 0) == 0) return line.substr(key.size(), line.find('\'', key.size()) - key.size());
  return {};
}

/// TORCHIR_LIBTORCH=DIR: use the libtorch in DIR (a Python environment's torch/lib, such as a CUDA
/// build of the same torch version) instead of the one found through the RUNPATH. Its libraries
/// are loaded first and globally: libtorchir_aten.so's NEEDED entries then resolve to them (the
/// dynamic loader matches loaded libraries by soname), and libtorch_cuda.so, when DIR has it,
/// registers the CUDA kernels with the dispatcher. Returns why DIR cannot serve, or "".
std::string preloadLibtorch(const std::string& dir) {
  const std::string version = torchVersionAt(dir);
  if (version.empty()) return "TORCHIR_LIBTORCH=" + dir + " is not the lib folder of a torch package (no ../version.py)";
  if (baseVersion(version) != baseVersion(TORCHIR_TORCH_VERSION))
    return "TORCHIR_LIBTORCH=" + dir + " holds torch " + version + "; this build needs torch " +
           baseVersion(TORCHIR_TORCH_VERSION);
  for (const char* name : {"libc10.so", "libtorch_cpu.so", "libc10_cuda.so", "libtorch_cuda.so"}) {
    const std::string path = dir + "/" + name;
    const bool optional = std::string(name).find("cuda") != std::string::npos;
    if (optional && !std::ifstream(path)) continue;
    if (!dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL)) return "cannot load " + path + ": " + dlerror();
  }
  return {};
}

}  // namespace

const AtenBackend& atenBackend() {
  static std::once_flag once;
  static AtenBackend* backend = nullptr;
  static std::string error;
  std::call_once(once, [] {
    if (const char* dir = std::getenv("TORCHIR_LIBTORCH"); dir && *dir) {
      error = preloadLibtorch(dir);
      if (!error.empty()) return;
    }
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
