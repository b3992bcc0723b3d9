// The Python op host's cost per call: torchir_py::scale (tests/fixtures/pyops) called through the
// dispatcher op torchir registers for it (arguments to the worker through shared memory, results
// back), against the same op called in that Python directly, in the same run. A small tensor (the
// fixed cost), a 64 MB one (the copies), and a 64 MB weight mapped from its file (the worker maps
// the file's pages: no copy on the way in).
//
//   python_op_host PYTHON PYOPS_DIR [THREADS]
//
// PYOPS_DIR holds torchir_pyops.py (the fixture family pyops, or tests/fixtures/pyops).
#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "../core/aten/OperatorLookup.h"
#include "../core/aten/PythonOps.h"
#include "../core/aten/TensorBridge.h"
#include "../core/formats/MappedFile.h"
#include "BenchTiming.h"

using namespace torchir;

namespace {

/// Microseconds per call, the median of `batches` batches of `calls` calls.
double throughTorchir(const c10::OperatorHandle& op, const at::Tensor& x, int batches, int calls) {
  std::vector<double> per;
  torch::jit::Stack stack;
  for (int b = 0; b < batches; ++b)
    per.push_back(bench::seconds([&] {
                    for (int i = 0; i < calls; ++i) {
                      stack = {x, 0.5};
                      op.callBoxed(stack);
                    }
                  }) * 1e6 / calls);
  return bench::median(per);
}

/// The same op and tensor size timed inside PYTHON itself (its own time.perf_counter).
double inPython(const std::string& python, const std::string& dir, int64_t numel, int threads, int batches, int calls) {
  const std::string code =
      "import sys, time, statistics, torch; sys.path.insert(0, sys.argv[1]); import torchir_pyops; "
      "torch.set_num_threads(int(sys.argv[3])); x = torch.randn(int(sys.argv[2])); op = torch.ops.torchir_py.scale.default\n"
      "per = []\n"
      "with torch.no_grad():\n"
      "    op(x, 0.5)\n"
      "    for b in range(int(sys.argv[4])):\n"
      "        t = time.perf_counter()\n"
      "        for i in range(int(sys.argv[5])): op(x, 0.5)\n"
      "        per.append((time.perf_counter() - t) * 1e6 / int(sys.argv[5]))\n"
      "print(statistics.median(per))\n";
  const std::string command = "'" + python + "' -c '" + code + "' '" + dir + "' " + std::to_string(numel) + " " +
                              std::to_string(threads) + " " + std::to_string(batches) + " " + std::to_string(calls);
  FILE* p = popen(command.c_str(), "r");
  double us = -1;
  if (p && std::fscanf(p, "%lf", &us) != 1) us = -1;
  if (p) pclose(p);
  return us;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: python_op_host PYTHON PYOPS_DIR [THREADS]\n");
    return 2;
  }
  const std::string python = argv[1], dir = argv[2];
  const int threads = argc > 3 ? std::atoi(argv[3]) : 1;
  at::set_num_threads(threads);
  setenv("PYTHONPATH", dir.c_str(), 1);
  PythonHostOptions options;
  options.python = python;
  options.imports = {"torchir_pyops"};
  setPythonHost(options);
  const PythonHostReport report = preparePythonHost();
  if (!report.error.empty()) {
    std::fprintf(stderr, "error: %s\n", report.error.c_str());
    return 1;
  }
  const auto op = findOperator("torchir_py.scale.default");
  if (!op) {
    std::fprintf(stderr, "error: %s\n", operatorProblem("torchir_py.scale.default").c_str());
    return 1;
  }
  c10::InferenceMode guard;
  std::printf("Python op host, torchir_py::scale(x, 0.5), %s, %d thread(s); median of batches, per call\n",
              report.executable.c_str(), threads);
  std::printf("%-22s %14s %14s %14s\n", "tensor", "torchir (us)", "Python (us)", "host cost (us)");
  struct Size {
    const char* name;
    int64_t numel;
    int batches, calls;
  };
  // a weight file: its tensor is the file's mapped bytes, as a .pt2's weights are
  const std::string weightFile = std::string(std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp") + "/python_op_host.weight";
  {
    const at::Tensor w = at::randn({16 << 20});
    std::ofstream(weightFile, std::ios::binary).write(static_cast<const char*>(w.data_ptr()), w.nbytes());
  }
  // as a reader makes a weight of a mapped file's bytes, and the engine bridges it to ATen
  const auto mapped = MappedFile::open(weightFile);
  TensorData weight;
  weight.dtype = DType::Float32;
  weight.sizes = {16 << 20};
  weight.strides = {1};
  weight.storage = std::make_shared<Storage>(Storage{mapped->data(), mapped->size(), mapped, weightFile,
                                                     mapped->descriptor(), 0});
  for (const Size& s : {Size{"4 float32 (16 B)", 4, 7, 400}, Size{"16M float32 (64 MB)", 16 << 20, 5, 4},
                        Size{"64 MB weight, mapped", -1, 5, 4}}) {
    const bool isWeight = s.numel < 0;
    const at::Tensor x = isWeight ? toAten(weight) : at::randn({s.numel});
    throughTorchir(*op, x, 1, 2);  // the worker's first calls (imports) are not the cost per call
    const double ours = throughTorchir(*op, x, s.batches, s.calls);
    const double direct = inPython(python, dir, x.numel(), threads, s.batches, s.calls);
    std::printf("%-22s %14.1f %14.1f %14.1f\n", s.name, ours, direct, ours - direct);
  }
  const PythonCallTraffic traffic = pythonCallTraffic();
  std::printf("bytes to Python: %zu copied, %zu named in their file; %zu shared buffers made\n", traffic.copiedBytes,
              traffic.fileBytes, traffic.buffersMade);
  std::remove(weightFile.c_str());
  return 0;
}
