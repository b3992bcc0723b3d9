// The libtorch side of AtenBackend: compiled into libtorchir_aten.so only.
#include <ATen/Context.h>
#include <ATen/Parallel.h>
#include <ATen/core/dispatch/Dispatcher.h>

#include <caffe2/serialize/inline_container.h>
#include <torch/csrc/jit/serialization/export.h>
#include <torch/csrc/jit/serialization/pickler.h>

#include <dlfcn.h>

#include "exec/AtenBackend.h"
#include "ExecutorRegistry.h"
#include "OperatorLookup.h"
#include "PythonOps.h"
#include "AtenSession.h"
#include "SmallBlockAllocator.h"
#include "TensorBridge.h"

namespace torchir {
namespace {

class DispatcherBackend final : public AtenBackend {
 public:
  DispatcherBackend() {
    // oneDNN stays on, as in eager PyTorch, which picks it for some convolutions (resnet18's
    // first): the same kernels give the same bits. It allocates through the CPU allocator's
    // raw_allocate/raw_deleter, which the small-block allocator serves too (installed already
    // when this library was loaded; the call makes the dependency explicit).
    installSmallBlockAllocator();
  }

  std::vector<SchemaArgSpec> schemaSpecs(const std::string& opType) const override {
    auto handle = findOperator(opType);
    if (!handle) return {};
    std::vector<SchemaArgSpec> specs;
    for (const auto& a : handle->schema().arguments()) {
      const std::string type = a.type()->str();
      specs.push_back({a.name(),
                       type.find("Tensor[]") != std::string::npos || type.find("Tensor?[]") != std::string::npos,
                       type.find("Tensor") != std::string::npos});
    }
    return specs;
  }

  void loadExecutors(const std::string& library) const override {
    // RTLD_NOW: a missing symbol is reported here, not in the middle of a run.
    if (!dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL))
      throw std::runtime_error("cannot load executors from " + library + ": " + dlerror());
  }

  std::vector<std::string> registeredExecutors() const override { return torchir::registeredExecutors(); }

  void setPythonHost(const PythonHostOptions& options) const override { torchir::setPythonHost(options); }
  PythonHostOptions pythonHost() const override { return torchir::pythonHost(); }
  PythonHostReport preparePythonHost() const override {
    try {
      return torchir::preparePythonHost();
    } catch (const PythonCallError& e) {
      throw std::runtime_error(e.what());
    }
  }
  int pythonWorkerPid() const override { return torchir::pythonWorkerPid(); }
  PythonCallTraffic pythonCallTraffic() const override { return torchir::pythonCallTraffic(); }

  void setThreads(int threads) const override { at::set_num_threads(threads); }
  int threads() const override { return at::get_num_threads(); }

  std::unique_ptr<Session> createSession(const Program& program, const SessionOptions& options) const override {
    if (const std::string problem = deviceProblem(options.device); !problem.empty()) throw std::runtime_error(problem);
    // the Python's executors join the registry before the session resolves its nodes
    PythonCallCancelScope abandoned(options.abandoned);
    if (const PythonHostReport python = preparePythonHost(); !python.error.empty()) throw std::runtime_error(python.error);
    return createAtenSession(program, options);
  }

  std::string torchSaveArgs(const std::vector<TensorData>& args) const override {
    std::vector<c10::IValue> tensors;
    for (const TensorData& t : args) tensors.emplace_back(toAten(t));
    const c10::IValue saved = c10::ivalue::Tuple::create(
        {c10::ivalue::Tuple::create(std::move(tensors)), c10::impl::GenericDict(c10::StringType::get(), c10::AnyType::get())});
    // pickle_save's steps without its type tags on dicts, which torch.load(weights_only=True) refuses
    std::string pickled;
    torch::jit::Pickler pickler([&](const char* data, size_t n) { pickled.append(data, n); }, nullptr, nullptr, nullptr,
                                nullptr, /*tag_aggregates=*/false);
    pickler.protocol();
    pickler.pushIValue(saved);
    pickler.stop();
    std::string archive;
    caffe2::serialize::PyTorchStreamWriter writer([&](const void* data, size_t n) {
      archive.append(static_cast<const char*>(data), n);
      return n;
    });
    torch::jit::writeArchiveAndTensors("data", pickled.data(), pickled.size(), pickler.tensorData(), writer);
    writer.writeEndOfFile();
    return archive;
  }

  std::string deviceProblem(const std::string& device) const override {
    try {
      const c10::Device d(device);
      if (d.is_cpu()) return {};
      if (d.is_cuda() && !at::hasCUDA())
        return "no CUDA device here";
      if (d.is_cuda() && d.has_index() && d.index() >= static_cast<int>(at::getNumGPUs()))
        return "no " + device + " here";
      if (!d.is_cuda()) return "device " + device + " is not supported (cpu or cuda)";
      return {};
    } catch (const c10::Error&) {
      return "'" + device + "' is not a device (cpu, cuda, cuda:1, ...)";
    }
  }
};

}  // namespace
}  // namespace torchir

extern "C" __attribute__((visibility("default"))) torchir::AtenBackend* torchir_create_aten_backend() {
  return new torchir::DispatcherBackend();
}
