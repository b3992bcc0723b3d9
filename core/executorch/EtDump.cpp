#include "EtDump.h"

#include <algorithm>
#include <cstring>
#include <filesystem>

#include "CopyBudget.h"
#include "EtScalarType.h"
#include "etdump_generated.h"
#include "formats/CompanionFiles.h"
#include "formats/MappedFile.h"
#include "program/LoadError.h"

namespace torchir {
namespace {


/// A 0-d float64 tensor holding `v`: a number an instruction logged.
TensorData numberTensor(double v, const std::string& origin) {
  auto bytes = std::make_shared<std::vector<std::byte>>(sizeof(double));
  std::memcpy(bytes->data(), &v, sizeof v);
  auto storage = std::make_shared<Storage>();
  storage->data = bytes->data();
  storage->nbytes = bytes->size();
  storage->owner = bytes;
  storage->origin = origin;
  TensorData t;
  t.dtype = DType::Float64;
  t.storage = std::move(storage);
  return t;
}

/// The tensor's view on the debug buffer, or why it has no data there.
TensorData readTensor(const etdump::Tensor* t, const std::shared_ptr<const Storage>& buffer, std::string& problem,
                      CopyBudget& budget) {
  TensorData out;
  budget.charge(sizeof(TensorData));
  if (!t) return problem = "a tensor entry is empty", out;
  const std::size_t rank = t->sizes() ? t->sizes()->size() : 0;
  if (rank > TensorData::kMaxRank || (t->strides() && t->strides()->size() > TensorData::kMaxRank))
    return problem = "a tensor of rank " + std::to_string(rank) + " (more than " + std::to_string(TensorData::kMaxRank) + ")", out;
  out.dtype = dtypeFromExecuTorch(static_cast<int>(t->scalar_type()));
  out.sizes = budget.vector(t->sizes());
  out.strides = budget.vector(t->strides());
  if (out.dtype == DType::Unknown) {
    // shown by its shape where that is one (sizes of no negative and a product in int64): every
    // view this reader gives is one numel() can count
    int64_t count = 1;
    for (int64_t size : out.sizes)
      if (size < 0 || __builtin_mul_overflow(count, size, &count)) {
        out.sizes.clear();
        break;
      }
    out.strides.clear();
    return problem = "a tensor of a type this build does not read", out;
  }
  // no strides logged: contiguous ones, made once the sizes' product is known to fit in int64
  if (out.strides.size() != out.sizes.size()) {
    int64_t span = 1;  // the product contiguousStrides makes: a size of 0 counts as 1 there
    for (int64_t size : out.sizes)
      if (size < 0 || __builtin_mul_overflow(span, std::max<int64_t>(size, 1), &span))
        return problem = "a tensor's sizes " + sizesText(out.sizes) + " overflow", out.sizes.clear(), out;
    out.strides = TensorData::contiguousStrides(out.sizes);
  }
  if (auto why = out.layoutProblem(); !why.empty()) {
    problem = "a tensor " + why;
    out.sizes.clear(), out.strides.clear();
    return out;
  }
  const int64_t offset = t->offset();
  if (!buffer || !buffer->data) {
    problem = "no debug buffer";
    return out;
  }
  const std::size_t span = out.bytesSpanned();
  if (offset < 0 || static_cast<uint64_t>(offset) > buffer->nbytes || span > buffer->nbytes - static_cast<uint64_t>(offset)) {
    problem = "a tensor's " + std::to_string(span) + " bytes at offset " + std::to_string(offset) +
              " lie past the debug buffer's end (" + std::to_string(buffer->nbytes) + " bytes)";
    return out;
  }
  auto view = std::make_shared<Storage>();
  view->data = buffer->data + offset;
  view->nbytes = span;
  view->owner = buffer;
  view->origin = buffer->origin + "@" + std::to_string(offset);
  out.storage = std::move(view);
  return out;
}

EtDump::Debug readDebug(const etdump::DebugEvent* e, const std::shared_ptr<const Storage>& buffer, CopyBudget& budget) {
  budget.charge(sizeof(EtDump::Debug));
  EtDump::Debug d;
  d.chain = e->chain_index();
  d.instruction = e->instruction_id();
  d.delegateId = e->delegate_debug_id_int();
  d.delegateName = budget.string(e->delegate_debug_id_str());
  d.name = budget.string(e->name());
  const etdump::Value* v = e->debug_entry();
  if (!v) return d.problem = "the event holds no value", d;
  d.output = v->output() && v->output()->bool_val();
  switch (v->val()) {
    case etdump::ValueType::Tensor: d.tensors.push_back(readTensor(v->tensor(), buffer, d.problem, budget)); break;
    case etdump::ValueType::TensorList:
      if (v->tensor_list() && v->tensor_list()->tensors())
        for (const auto* t : *v->tensor_list()->tensors()) d.tensors.push_back(readTensor(t, buffer, d.problem, budget));
      break;
    case etdump::ValueType::Int:
      if (v->int_value()) d.tensors.push_back(numberTensor(static_cast<double>(v->int_value()->int_val()), "etdump"));
      break;
    case etdump::ValueType::Float:
      if (v->float_value()) d.tensors.push_back(numberTensor(v->float_value()->float_val(), "etdump"));
      break;
    case etdump::ValueType::Double:
      if (v->double_value()) d.tensors.push_back(numberTensor(v->double_value()->double_val(), "etdump"));
      break;
    case etdump::ValueType::Bool:
      if (v->bool_value()) d.tensors.push_back(numberTensor(v->bool_value()->bool_val() ? 1 : 0, "etdump"));
      break;
    default: d.problem = "a value of a kind this build does not read"; break;
  }
  return d;
}

}  // namespace

EtDump readEtDumpBytes(const std::byte* data, std::size_t size, const std::string& name,
                       std::shared_ptr<const Storage> debugBuffer) {
  auto fail = [&](const std::string& problem) { throw LoadError(name, problem); };
  if (size < 12 || std::memcmp(data + 8, "ED00", 4) != 0)
    fail("not an ETDump (no ED00 identifier after its size prefix)");
  uint32_t prefix = 0;
  for (int i = 3; i >= 0; --i) prefix = (prefix << 8) | std::to_integer<uint32_t>(data[i]);
  if (prefix >= FLATBUFFERS_MAX_BUFFER_SIZE - 4) fail("is larger than 2 GB");
  if (prefix > size - 4) fail("says it holds " + std::to_string(prefix) + " bytes but the file has " + std::to_string(size - 4) + " after its size (truncated?)");
  flatbuffers::Verifier::Options options;
  options.max_depth = 64;
  options.max_tables = 8'000'000;
  flatbuffers::Verifier verifier(reinterpret_cast<const uint8_t*>(data), prefix + 4, options);
  if (!etdump::VerifySizePrefixedETDumpBuffer(verifier)) fail("the ETDump's flatbuffer fails verification (truncated or corrupt)");
  const etdump::ETDump* dump = etdump::GetSizePrefixedETDump(data);
  EtDump out;
  out.path = name;
  out.version = dump->version();
  if (!dump->run_data() || dump->run_data()->size() == 0) fail("holds no run (no run_data)");
  CopyBudget budget(prefix + 4, name);
  for (const auto* r : *dump->run_data()) {
    EtDump::Run run;
    run.name = budget.string(r->name());
    run.bundledInput = r->bundled_input_index();
    if (r->allocators())
      for (const auto* a : *r->allocators()) run.allocators.push_back(budget.string(a->name()));
    if (r->events())
      for (const auto* e : *r->events()) {
        budget.charge(sizeof(EtDump::Profile));
        if (const auto* p = e->profile_event())
          run.profiles.push_back({budget.string(p->name()), p->chain_index(), p->instruction_id(), p->delegate_debug_id_int(),
                                  budget.string(p->delegate_debug_id_str()), p->start_time(), p->end_time()});
        if (const auto* d = e->debug_event()) run.debugs.push_back(readDebug(d, debugBuffer, budget));
        if (e->allocation_event()) ++run.allocations;
      }
    out.runs.push_back(std::move(run));
  }
  return out;
}

std::string debugBufferBeside(const std::string& etdump) {
  const std::filesystem::path path(etdump);
  return firstRegularFile({(path.parent_path() / path.stem()).string() + ".debug.bin",
                           (path.parent_path() / "debug_buffer.bin").string(), (path.parent_path() / "debug_output.bin").string()});
}

EtDump readEtDump(const std::string& path, const std::string& debugBufferPath) {
  const auto file = MappedFile::open(path);
  std::shared_ptr<const Storage> buffer;
  if (!debugBufferPath.empty()) {
    auto map = MappedFile::open(debugBufferPath);
    auto storage = std::make_shared<Storage>();
    storage->data = map->data();
    storage->nbytes = map->size();
    storage->origin = debugBufferPath;
    storage->owner = std::move(map);
    buffer = std::move(storage);
  }
  EtDump dump = readEtDumpBytes(file->data(), file->size(), path, std::move(buffer));
  dump.debugBufferPath = debugBufferPath;
  return dump;
}

}  // namespace torchir
