#include "PythonOps.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <torch/library.h>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <thread>

#include "ExecutorRegistry.h"
#include "FilePages.h"
#include "program/DType.h"
#include "program/OneLine.h"
#include "program/PythonModuleHints.h"

namespace torchir {
namespace {

// ------------------------------------------------------------------ the host, process-wide

struct Host {
  std::mutex mutex;
  PythonHostOptions options;
  std::shared_ptr<PythonWorker> worker;                 // null until needed
  std::vector<std::string> executors;                   // registered from the worker's report
  std::map<std::string, std::string> unserved;          // "ns::op.overload" -> why not
  std::map<std::string, std::unique_ptr<torch::Library>> libraries;  // by namespace, for the process
  std::set<std::string> operators;                      // "ns::op.overload", registered here
};

Host& host() {
  static Host* h = new Host;  // lives with the process: the dispatcher keeps our kernels to the end
  return *h;
}

std::shared_ptr<PythonWorker> worker() {
  Host& h = host();
  std::lock_guard<std::mutex> lock(h.mutex);
  if (!h.options.named()) return nullptr;
  if (!h.worker) h.worker = std::make_shared<PythonWorker>(h.options, at::get_num_threads());
  return h.worker;
}

/// The cancel probe of each thread inside a run (PythonCallCancelScope). A map under a mutex, not
/// a thread_local: LeakSanitizer's exit-time tracer crashes on this library's dynamic TLS.
struct CancelProbes {
  std::mutex mutex;
  std::map<std::thread::id, const std::function<bool()>*> byThread;
};

CancelProbes& cancelProbes() {
  static CancelProbes* probes = new CancelProbes;  // used until the process ends
  return *probes;
}

bool callCancelled() {
  const std::function<bool()>* probe = nullptr;
  {
    CancelProbes& c = cancelProbes();
    std::lock_guard<std::mutex> lock(c.mutex);
    auto it = c.byThread.find(std::this_thread::get_id());
    if (it != c.byThread.end()) probe = it->second;
  }
  return probe && *probe && (*probe)();
}

// ------------------------------------------------------------------ tensors through shared memory

/// What this process's calls passed (pythonCallTraffic), from any thread.
std::atomic<std::size_t> copiedBytes{0}, fileBytes{0};

/// The tensors of one call, as the worker sees them: small ones in the arena, weights as their
/// file's pages, the rest in shared buffers lent to the call until it returns.
class CallTensors {
 public:
  explicit CallTensors(const HostMemory& memory) : m_memory(memory) {}

  /// The value that names `t` in a message, its bytes copied where the worker sees them.
  /// `written`: the schema lets the op write it, so the worker's writes are copied back after (writeBack).
  nlohmann::json add(const at::Tensor& t, bool written) {
    if (t.is_sparse() || t.is_quantized() || t.is_mkldnn() || t.layout() != at::kStrided)
      throw PythonCallError("a " + std::string(c10::toString(t.layout())) +
                            " tensor cannot go to Python: torchir passes dense tensors");
    const auto dtype = static_cast<DType>(t.scalar_type());
    if (dtypeName(dtype) == "unknown" || dtypeName(dtype).empty())
      throw PythonCallError(std::string("a tensor of dtype ") + c10::toString(t.scalar_type()) + " cannot go to Python");
    const auto bytes = static_cast<std::size_t>(t.numel()) * t.element_size();
    // the worker sees a contiguous copy: the strides of the caller's tensor stay here
    nlohmann::json v = {{"t", "tensor"}, {"fd", -1}, {"bytes", bytes}, {"dtype", std::string(dtypeName(dtype))},
                        {"shape", t.sizes().vec()}, {"strides", c10::contiguous_strides(t.sizes())}, {"offset", 0}};
    if (bytes == 0) return v;
    v.erase("fd");
    const std::size_t at = alignUp(m_arenaNext);
    const HostArena& arena = m_memory.arena;
    if (bytes <= PythonWorker::kArenaTensorBytes && at + bytes <= arena.size) {
      m_arenaNext = at + bytes;
      v["arena"] = at;
      copyIn(t, arena.data + at, written);
      return v;
    }
    // a weight the op only reads, in a file mapped here: the worker maps the file's own pages
    if (!written && t.is_contiguous() && m_fds.size() < kMaxFds)
      if (const auto place = filePlace(t.data_ptr(), bytes)) {
        UniqueFd file(place->fd);
        if (place->offset % t.element_size() == 0) {
          v["fd"] = m_fds.size();
          v["file_offset"] = place->offset;
          m_fds.push_back(file.get());
          m_files.push_back(std::move(file));
          fileBytes += bytes;
          return v;
        }
      }
    SharedBuffers::Lent lent;
    try {
      lent = m_memory.buffers.borrow(bytes);
    } catch (const std::runtime_error& e) {
      throw PythonCallError(e.what());
    }
    v["pool"] = lent.id;
    if (lent.fdToSend >= 0) {
      if (m_fds.size() >= kMaxFds)
        throw PythonCallError("a call passes more than " + std::to_string(kMaxFds) +
                              " tensors over 64 KiB to Python: more than one message carries");
      v["fd"] = m_fds.size();
      m_fds.push_back(lent.fdToSend);
    }
    copiedBytes += bytes;
    copyIn(t, lent.data, written);
    return v;
  }

  const std::vector<int>& fds() const { return m_fds; }

  /// Where the worker may put small outputs: the arena past the inputs.
  std::size_t arenaFree() const { return alignUp(m_arenaNext); }

  /// The buffers the worker may put large outputs in, as the request names them.
  nlohmann::json spares() {
    nlohmann::json out = nlohmann::json::array();
    for (const SharedBuffers::Lent& s : m_memory.buffers.spares(kMaxFds - m_fds.size())) {
      nlohmann::json v = {{"pool", s.id}, {"bytes", s.size}};
      if (s.fdToSend >= 0) {
        v["fd"] = m_fds.size();
        m_fds.push_back(s.fdToSend);
      }
      out.push_back(std::move(v));
    }
    return out;
  }

  static std::size_t alignUp(std::size_t n) { return (n + 63) & ~std::size_t{63}; }

  /// The op wrote these arguments in the worker's view of them: the caller's tensors take the writes.
  void writeBack() {
    for (auto& [original, shared] : m_writeBack) original.copy_(shared);
  }

 private:
  static constexpr std::size_t kMaxFds = kMaxHostMessageFds - 1;

  void copyIn(const at::Tensor& t, unsigned char* to, bool written) {
    at::Tensor shared = at::from_blob(to, t.sizes(), t.options().device(at::kCPU));
    shared.copy_(t);
    if (written) m_writeBack.emplace_back(t, shared);
  }

  HostMemory m_memory;
  std::size_t m_arenaNext = 0;
  std::vector<int> m_fds;          // sent with the request, borrowed
  std::vector<UniqueFd> m_files;   // the weights' files among them, owned
  std::vector<std::pair<at::Tensor, at::Tensor>> m_writeBack;
};

int64_t checkedInt(const nlohmann::json& v, const char* what) {
  if (!v.is_number_integer()) throw PythonCallError(std::string("the Python worker's ") + what + " is not an integer");
  return v.get<int64_t>();
}

std::vector<int64_t> checkedInts(const nlohmann::json& v, const char* what) {
  if (!v.is_array() || v.size() > 64) throw PythonCallError(std::string("the Python worker's ") + what + " is not a list of at most 64 integers");
  std::vector<int64_t> out;
  for (const auto& e : v) {
    const int64_t i = checkedInt(e, what);
    if (i < 0) throw PythonCallError(std::string("the Python worker's ") + what + " holds a negative number");
    out.push_back(i);
  }
  return out;
}

/// A tensor the worker returned, after its shape, strides and offset are checked to fit its bytes:
/// a small one copied out of the arena, a large one over the shared buffer it is in (no copy).
at::Tensor receiveTensor(const nlohmann::json& v, std::vector<UniqueFd>& fds, const HostMemory& memory,
                         const c10::Device& device) {
  const HostArena& arena = memory.arena;
  SharedBuffers& buffers = memory.buffers;
  const auto dtype = dtypeFromName(v.value("dtype", std::string()));
  if (!dtype || *dtype == DType::Unknown) throw PythonCallError("the Python worker returned a tensor of an unknown dtype");
  const auto scalar = static_cast<at::ScalarType>(*dtype);
  const std::vector<int64_t> shape = checkedInts(v.value("shape", nlohmann::json()), "shape");
  const std::vector<int64_t> strides = checkedInts(v.value("strides", nlohmann::json()), "strides");
  const int64_t offset = checkedInt(v.value("offset", nlohmann::json(0)), "offset");
  const int64_t bytes = checkedInt(v.value("bytes", nlohmann::json(0)), "bytes");
  const int64_t index = checkedInt(v.value("fd", nlohmann::json(-1)), "fd");
  if (strides.size() != shape.size() || offset < 0 || bytes < 0)
    throw PythonCallError("the Python worker returned a tensor whose strides do not fit its shape");
  // the last element's byte end, in 128 bits: the numbers are the worker's
  const auto item = static_cast<__int128>(c10::elementSize(scalar));
  __int128 extent = offset, numel = 1;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    numel *= shape[i];
    if (shape[i] > 0) extent += static_cast<__int128>(shape[i] - 1) * strides[i];
    if (numel > (__int128{1} << 50) || extent > (__int128{1} << 50))
      throw PythonCallError("the Python worker returned a tensor too large to hold");
  }
  if (numel == 0) return at::empty(shape, at::TensorOptions().dtype(scalar).device(device));
  // a bool's byte other than 0 or 1 is undefined behaviour in the kernels that read it: made 0 or 1
  const auto settled = [&](const at::Tensor& t) { return scalar == at::kBool ? t.view(at::kByte).ne(0).to(device) : t.to(device); };
  if (v.contains("arena")) {  // a small output in the arena: copied out, the arena serves the next call
    const int64_t at = checkedInt(v.at("arena"), "arena offset");
    if (at < 0 || (extent + 1) * item > bytes || static_cast<__int128>(at) + bytes > static_cast<__int128>(arena.size) ||
        at % static_cast<int64_t>(item) != 0)
      throw PythonCallError("the Python worker returned a tensor outside the shared arena");
    at::Tensor view = at::for_blob(arena.data + at, shape)
                          .strides(strides)
                          .storage_offset(offset)
                          .options(at::TensorOptions().dtype(scalar))
                          .make_tensor();
    return scalar == at::kBool ? settled(view) : device.is_cpu() ? view.clone() : view.to(device);
  }
  if ((extent + 1) * item > bytes) throw PythonCallError("the Python worker returned a tensor past its bytes");
  // a large result stays where the worker put it, as the tensor's storage, for as long as it lives
  std::shared_ptr<const SharedMemory> storage;
  try {
    if (v.contains("pool")) {
      const int64_t id = checkedInt(v.at("pool"), "buffer");
      if (id < 0 || id > UINT32_MAX) throw PythonCallError("the Python worker returned a tensor in no buffer");
      storage = buffers.lease(static_cast<std::uint32_t>(id), static_cast<std::size_t>(bytes));
    } else {
      if (index < 0 || static_cast<std::size_t>(index) >= fds.size())
        throw PythonCallError("the Python worker returned a tensor whose bytes it did not send");
      storage = buffers.adopt(std::move(fds[static_cast<std::size_t>(index)]), static_cast<std::size_t>(bytes));
    }
  } catch (const std::runtime_error& e) {
    if (dynamic_cast<const PythonCallError*>(&e)) throw;
    throw PythonCallError(e.what());
  }
  at::Tensor t = at::for_blob(storage->data, shape)
                     .strides(strides)
                     .storage_offset(offset)
                     .deleter([storage](void*) mutable { storage.reset(); })
                     .options(at::TensorOptions().dtype(scalar))
                     .make_tensor();
  return settled(t);
}

// ------------------------------------------------------------------ values

std::string scalarTypeName(int64_t code) {
  const std::string_view name = dtypeName(static_cast<DType>(code));
  if (name.empty() || name == "unknown") throw PythonCallError("a dtype argument of code " + std::to_string(code) + " cannot go to Python");
  return std::string(name);
}

nlohmann::json number(double d) {
  if (std::isnan(d)) return {{"t", "float"}, {"v", "nan"}};
  if (std::isinf(d)) return {{"t", "float"}, {"v", d > 0 ? "inf" : "-inf"}};
  return {{"t", "float"}, {"v", d}};
}

/// An argument of declared `type` as a message value.
nlohmann::json encode(const c10::IValue& v, const c10::TypePtr& declared, bool written, CallTensors& tensors) {
  c10::TypePtr type = declared;
  if (auto opt = type->cast<c10::OptionalType>()) type = opt->getElementType();
  if (v.isNone()) return {{"t", "none"}};
  if (v.isTensor()) {
    const at::Tensor& t = v.toTensor();
    if (!t.defined()) return {{"t", "none"}};
    return tensors.add(t, written);
  }
  if (v.isBool()) return {{"t", "bool"}, {"v", v.toBool()}};
  if (v.isInt()) {
    const int64_t i = v.toInt();
    switch (type->kind()) {
      case c10::TypeKind::ScalarTypeType: return {{"t", "dtype"}, {"v", scalarTypeName(i)}};
      case c10::TypeKind::LayoutType:
        if (i < 0 || i > 1) throw PythonCallError("a layout of code " + std::to_string(i) + " cannot go to Python");
        return {{"t", "layout"}, {"v", i == 0 ? "strided" : "sparse_coo"}};
      case c10::TypeKind::MemoryFormatType: {
        static const char* names[] = {"contiguous_format", "preserve_format", "channels_last", "channels_last_3d"};
        if (i < 0 || i > 3) throw PythonCallError("a memory format of code " + std::to_string(i) + " cannot go to Python");
        return {{"t", "memory_format"}, {"v", names[i]}};
      }
      default: return {{"t", "int"}, {"v", i}};
    }
  }
  if (v.isSymInt()) return {{"t", "int"}, {"v", v.toSymInt().guard_int(__FILE__, __LINE__)}};
  if (v.isDouble()) return number(v.toDouble());
  if (v.isString()) return {{"t", "str"}, {"v", v.toStringRef()}};
  if (v.isDevice()) return {{"t", "device"}, {"v", v.toDevice().str()}};
  if (v.isList()) {
    c10::TypePtr element = c10::AnyType::get();
    if (auto list = type->cast<c10::ListType>()) element = list->getElementType();
    nlohmann::json items = nlohmann::json::array();
    for (const c10::IValue& e : v.toListRef()) items.push_back(encode(e, element, written, tensors));
    return {{"t", "list"}, {"v", std::move(items)}};
  }
  if (v.isTuple()) {
    nlohmann::json items = nlohmann::json::array();
    for (const c10::IValue& e : v.toTupleRef().elements()) items.push_back(encode(e, c10::AnyType::get(), written, tensors));
    return {{"t", "list"}, {"v", std::move(items)}};
  }
  throw PythonCallError("an argument of type " + type->str() + " cannot go to Python");
}

/// A value the worker returned, as the schema's return type says (at most 16 lists deep).
c10::IValue decode(const nlohmann::json& v, const c10::TypePtr& declared, std::vector<UniqueFd>& fds,
                   const HostMemory& memory, const c10::Device& device, int depth = 0) {
  if (depth > 16 || !v.is_object()) throw PythonCallError("the Python worker returned a value torchir cannot read");
  c10::TypePtr type = declared;
  const bool optional = type->kind() == c10::TypeKind::OptionalType;
  if (optional) type = type->castRaw<c10::OptionalType>()->getElementType();
  const std::string tag = v.value("t", std::string());
  auto wrong = [&] {
    return PythonCallError("the Python op returned " + (tag.empty() ? std::string("a value") : "a " + tag) +
                           " where its schema declares " + declared->str());
  };
  if (tag == "none") {
    if (!optional && type->kind() != c10::TypeKind::NoneType) throw wrong();
    return c10::IValue();
  }
  const auto& value = v.contains("v") ? v.at("v") : nlohmann::json();
  switch (type->kind()) {
    case c10::TypeKind::TensorType:
      if (tag != "tensor") throw wrong();
      return receiveTensor(v, fds, memory, device);
    case c10::TypeKind::IntType:
    case c10::TypeKind::SymIntType:
      if (tag != "int" || !value.is_number_integer()) throw wrong();
      return value.get<int64_t>();
    case c10::TypeKind::FloatType:
    case c10::TypeKind::SymFloatType:
      if (tag == "int" && value.is_number_integer()) return static_cast<double>(value.get<int64_t>());
      if (tag != "float") throw wrong();
      if (value.is_number()) return value.get<double>();
      if (value == "inf") return INFINITY;
      if (value == "-inf") return -INFINITY;
      if (value == "nan") return NAN;
      throw wrong();
    case c10::TypeKind::BoolType:
    case c10::TypeKind::SymBoolType:
      if (tag != "bool" || !value.is_boolean()) throw wrong();
      return value.get<bool>();
    case c10::TypeKind::NumberType:
      if (tag == "int" && value.is_number_integer()) return value.get<int64_t>();
      if (tag == "bool" && value.is_boolean()) return value.get<bool>();
      if (tag == "float" && value.is_number()) return value.get<double>();
      throw wrong();
    case c10::TypeKind::ListType: {
      if (tag != "list" || !value.is_array() || value.size() > (std::size_t{1} << 20)) throw wrong();
      const c10::TypePtr element = type->castRaw<c10::ListType>()->getElementType();
      if (element->kind() == c10::TypeKind::TensorType) {
        c10::List<at::Tensor> list;
        for (const auto& e : value) list.push_back(decode(e, element, fds, memory, device, depth + 1).toTensor());
        return list;
      }
      c10::impl::GenericList list(element);
      for (const auto& e : value) list.push_back(decode(e, element, fds, memory, device, depth + 1));
      return list;
    }
    default: throw PythonCallError("torchir cannot take a " + declared->str() + " back from Python");
  }
}

// ------------------------------------------------------------------ the boxed kernel

/// Where the op's results go: the device of its first tensor, in a list (Tensor[]) too.
c10::Device firstTensorDevice(c10::ArrayRef<c10::IValue> args) {
  for (const auto& a : args) {
    if (a.isTensor() && a.toTensor().defined()) return a.toTensor().device();
    if (a.isTensorList())
      for (const at::Tensor& t : a.toTensorVector())
        if (t.defined()) return t.device();
  }
  return c10::Device(c10::kCPU);
}

/// The argument that return `ret` is by the schema (`(Tensor(a!) x) -> Tensor(a!)`), or -1.
int aliasedArgument(const c10::FunctionSchema& schema, std::size_t ret) {
  const c10::AliasInfo* info = schema.returns()[ret].alias_info();
  if (!info || !info->isWrite()) return -1;
  for (std::size_t j = 0; j < schema.arguments().size(); ++j) {
    const c10::AliasInfo* a = schema.arguments()[j].alias_info();
    if (a && a->isWrite() && a->beforeSets() == info->beforeSets()) return static_cast<int>(j);
  }
  return -1;
}

/// Every op registered here runs this: its arguments to the worker, its results back on the stack.
void callInPython(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  const c10::FunctionSchema& schema = op.schema();
  const std::size_t n = schema.arguments().size();
  const auto args = torch::jit::last(*stack, n);
  const c10::Device device = firstTensorDevice(args);
  auto w = worker();
  if (!w) throw PythonCallError("no Python is named to run " + toString(schema.operator_name()) + " (--python PATH)");
  std::optional<CallTensors> tensors;  // the weights' files it sends live until the reply is read
  std::vector<c10::IValue> results;
  w->exchange(
      [&](const HostMemory& memory, std::vector<int>& fds) {
        tensors.emplace(memory);
        nlohmann::json positional = nlohmann::json::array(), keywords = nlohmann::json::object();
        for (std::size_t i = 0; i < n; ++i) {
          const c10::Argument& a = schema.arguments()[i];
          const bool written = a.alias_info() && a.alias_info()->isWrite();
          nlohmann::json value = encode(args[i], a.real_type(), written, *tensors);
          if (a.kwarg_only()) keywords[a.name()] = std::move(value);
          else positional.push_back(std::move(value));
        }
        nlohmann::json spares = tensors->spares();
        fds = tensors->fds();
        return nlohmann::json{{"type", "call"},
                              {"op", schema.name()},
                              {"overload", schema.overload_name().empty() ? "default" : schema.overload_name()},
                              {"args", std::move(positional)},
                              {"kwargs", std::move(keywords)},
                              {"arena_free", tensors->arenaFree()},
                              {"spares", std::move(spares)},
                              {"threads", at::get_num_threads()}};
      },
      [&](HostMessage& reply, const HostMemory& memory) {
        tensors->writeBack();
        const auto outputs = reply.body.find("outputs");
        const auto& returns = schema.returns();
        if (outputs == reply.body.end() || !outputs->is_array() || outputs->size() != returns.size())
          throw PythonCallError("the Python op returned " +
                                std::to_string(outputs != reply.body.end() && outputs->is_array() ? outputs->size() : 0) +
                                " values; its schema declares " + std::to_string(returns.size()));
        try {
          for (std::size_t i = 0; i < returns.size(); ++i) {
            // a return the schema says is a written argument is that argument, holding the writes
            if (const int j = aliasedArgument(schema, i); j >= 0 && args[static_cast<std::size_t>(j)].isTensor()) {
              results.push_back(args[static_cast<std::size_t>(j)]);
              continue;
            }
            results.push_back(decode((*outputs)[i], returns[i].type(), reply.fds, memory, device));
          }
        } catch (const nlohmann::json::exception& e) {
          throw PythonCallError(std::string("the Python worker's reply does not read: ") + e.what());
        }
      },
      callCancelled);
  torch::jit::drop(*stack, n);
  for (auto& r : results) stack->push_back(std::move(r));
}

/// A pytorch-ir executor in the worker, called as pytorch-ir calls it: (inputs, attrs).
Executor pythonExecutor(const std::string& name) {
  return [name](const std::vector<at::Tensor>& inputs, const nlohmann::json& attrs) {
    auto w = worker();
    if (!w) throw PythonCallError("no Python is named to run the executor " + name);
    const c10::Device device = inputs.empty() ? c10::Device(c10::kCPU) : inputs.front().device();
    std::optional<CallTensors> tensors;
    std::vector<at::Tensor> results;
    w->exchange(
        [&](const HostMemory& memory, std::vector<int>& fds) {
          tensors.emplace(memory);
          nlohmann::json encoded = nlohmann::json::array();
          // as pytorch-ir's executors get them; what one writes into its inputs stays in the worker
          // (an input may be a weight mapped read-only from the program file)
          for (const at::Tensor& t : inputs) encoded.push_back(tensors->add(t, /*written=*/false));
          nlohmann::json spares = tensors->spares();
          fds = tensors->fds();
          return nlohmann::json{{"type", "execute"}, {"name", name}, {"inputs", std::move(encoded)}, {"attrs", attrs},
                                {"arena_free", tensors->arenaFree()}, {"spares", std::move(spares)},
                                {"threads", at::get_num_threads()}};
        },
        [&](HostMessage& reply, const HostMemory& memory) {
          const auto outputs = reply.body.find("outputs");
          if (outputs == reply.body.end() || !outputs->is_array())
            throw PythonCallError("the executor " + name + " returned no list");
          try {
            for (const auto& o : *outputs)
              results.push_back(decode(o, c10::TensorType::get(), reply.fds, memory, device).toTensor());
          } catch (const nlohmann::json::exception& e) {
            throw PythonCallError(std::string("the Python worker's reply does not read: ") + e.what());
          }
        },
        callCancelled);
    return results;
  };
}

std::string key(const std::string& name, const std::string& overload) {
  return overload.empty() ? name : name + "." + overload;
}

}  // namespace

void setPythonHost(const PythonHostOptions& options) {
  Host& h = host();
  std::lock_guard<std::mutex> lock(h.mutex);
  if (options == h.options) return;
  h.options = options;
  h.worker.reset();  // the old worker stops when its last call returns
  h.unserved.clear();
  for (const std::string& name : h.executors) unregisterExecutor(name);
  h.executors.clear();
}

PythonHostOptions pythonHost() {
  Host& h = host();
  std::lock_guard<std::mutex> lock(h.mutex);
  return h.options;
}

PythonHostReport preparePythonHost() {
  auto w = worker();
  if (!w) return {};
  // a Python named alone (TORCHIR_PYTHON set for every run, say) starts when an op asks for it
  if (w->options().imports.empty() && w->options().executorFiles.empty()) {
    if (auto last = w->lastReport()) return *last;
    return {};
  }
  PythonHostReport report;
  try {
    report = w->report(callCancelled);
  } catch (const PythonCallCancelled&) {
    report.error = "the Python worker's start was stopped";
    return report;
  }
  Host& h = host();
  std::lock_guard<std::mutex> lock(h.mutex);
  if (h.worker == w && h.executors != report.executors) {
    for (const std::string& name : h.executors) unregisterExecutor(name);
    for (const std::string& name : report.executors) registerExecutor(name, pythonExecutor(name), "Python executor");
    h.executors = report.executors;
  }
  return report;
}

std::optional<c10::OperatorHandle> pythonOperator(const std::string& name, const std::string& overload) {
  auto w = worker();
  if (!w) return std::nullopt;
  Host& h = host();
  const std::string k = key(name, overload);
  {
    std::lock_guard<std::mutex> lock(h.mutex);
    if (h.unserved.count(k)) return std::nullopt;
  }
  std::string problem;
  try {
    const PythonHostReport report = w->report(callCancelled);
    if (!report.error.empty()) throw PythonCallError(report.error);
    HostMessage reply = w->call({{"type", "schema"}, {"op", name}, {"overload", overload.empty() ? "default" : overload}},
                                {}, callCancelled);
    const std::string schema = reply.body.value("schema", std::string());
    const c10::FunctionSchema parsed = torch::schema(schema.c_str(), c10::AliasAnalysisKind::FROM_SCHEMA);
    if (parsed.name() != name || parsed.overload_name() != overload)
      throw PythonCallError("it answered with the schema of " + toString(parsed.operator_name()));
    std::lock_guard<std::mutex> lock(h.mutex);
    if (auto found = c10::Dispatcher::singleton().findSchema({name, overload})) return found;  // another thread's
    const std::string ns = name.substr(0, name.find("::"));
    auto& lib = h.libraries[ns];
    if (!lib) lib = std::make_unique<torch::Library>(torch::Library::FRAGMENT, ns, std::nullopt, __FILE__, __LINE__);
    lib->def(schema.c_str());
    lib->impl(k.substr(name.find("::") + 2).c_str(),
              torch::dispatch(c10::DispatchKey::CompositeExplicitAutograd,
                              torch::CppFunction::makeFromBoxedFunction<&callInPython>()));
    h.operators.insert(k);
    return c10::Dispatcher::singleton().findSchema({name, overload});
  } catch (const PythonCallError& e) {
    // a worker that died or hung says nothing about the op: the next node asks a new one
    if (e.workerEnded()) return std::nullopt;
    problem = e.what();
  } catch (const PythonCallCancelled&) {
    return std::nullopt;
  } catch (const std::exception& e) {
    problem = oneLine(e.what());
  }
  std::lock_guard<std::mutex> lock(h.mutex);
  h.unserved[k] = problem;
  return std::nullopt;
}

PythonOpSources pythonModulesDefining(const std::string& name, const std::vector<std::string>& modules,
                                      const std::vector<std::string>& packages) {
  auto w = worker();
  if (!w || (modules.empty() && packages.empty())) return {};
  const std::vector<std::string>& imported = w->options().imports;
  PythonOpSources sources;
  try {
    if (!w->report(callCancelled).error.empty()) return {};
    const HostMessage reply = w->call({{"type", "locate"}, {"op", name}, {"modules", modules}, {"packages", packages}},
                                      {}, callCancelled);
    const auto found = reply.body.find("modules");
    if (found == reply.body.end() || !found->is_array()) return {};
    for (const auto& m : *found) {
      if (!m.is_object()) continue;
      const std::string module = m.value("module", std::string());
      const auto defines = m.find("defines");
      // imported already and the op still missing: importing it is no answer
      if (!isPythonModuleName(module) || defines == m.end() || !defines->is_number_integer() ||
          std::find(imported.begin(), imported.end(), module) != imported.end())
        continue;
      auto& to = defines->get<int64_t>() >= 2 ? sources.defining : sources.naming;
      if (defines->get<int64_t>() >= 1 && to.size() < kMaxModuleHints) to.push_back(module);
    }
  } catch (const PythonCallError&) {
    return {};
  } catch (const PythonCallCancelled&) {
    return {};
  } catch (const nlohmann::json::exception&) {
    return {};
  }
  return sources;
}

std::string pythonOperatorProblem(const std::string& name, const std::string& overload) {
  Host& h = host();
  std::lock_guard<std::mutex> lock(h.mutex);
  auto it = h.unserved.find(key(name, overload));
  return it == h.unserved.end() ? std::string() : it->second;
}

bool isPythonOperator(const c10::OperatorHandle& op) {
  Host& h = host();
  std::lock_guard<std::mutex> lock(h.mutex);
  return h.operators.count(key(op.operator_name().name, op.operator_name().overload_name)) > 0;
}

std::string pythonHostLabel() {
  auto w = worker();
  if (!w) return "Python";
  const auto r = w->lastReport();  // never starts a worker: a failure's message must not wait on one
  if (!r) return "Python (" + w->options().python + ")";
  return "Python " + r->pythonVersion + " (" + (r->executable.empty() ? r->python : r->executable) + ")";
}

PythonCallTraffic pythonCallTraffic() { return {copiedBytes.load(), fileBytes.load(), SharedBuffers::buffersMade()}; }

int pythonWorkerPid() {
  auto w = worker();
  return w ? static_cast<int>(w->pid()) : -1;
}

PythonCallCancelScope::PythonCallCancelScope(std::function<bool()> cancelled) : m_cancelled(std::move(cancelled)) {
  CancelProbes& c = cancelProbes();
  std::lock_guard<std::mutex> lock(c.mutex);
  const std::function<bool()>*& slot = c.byThread[std::this_thread::get_id()];
  m_outer = slot;
  slot = &m_cancelled;
}

PythonCallCancelScope::~PythonCallCancelScope() {
  CancelProbes& c = cancelProbes();
  std::lock_guard<std::mutex> lock(c.mutex);
  if (m_outer) c.byThread[std::this_thread::get_id()] = m_outer;
  else c.byThread.erase(std::this_thread::get_id());
}

}  // namespace torchir
