#include "PteProgram.h"

#include <cstring>
#include <filesystem>
#include <fstream>

#include "CopyBudget.h"
#include "EtScalarType.h"
#include "formats/EtRecordLayout.h"
#include "formats/MappedFile.h"
#include "program/LoadError.h"
#include "program/TensorData.h"
#include "program_generated.h"

namespace torchir {
namespace {

namespace fb = executorch_flatbuffer;

constexpr std::size_t kHeaderAt = 8;          // the extended header follows the root offset and identifier
constexpr std::size_t kHeaderMinimum = 24;    // magic, length, program size, segment base

uint32_t le32(const std::byte* p) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | std::to_integer<uint32_t>(p[i]);
  return v;
}
uint64_t le64(const std::byte* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | std::to_integer<uint64_t>(p[i]);
  return v;
}

PteProgram::Value readValue(const fb::EValue* e, CopyBudget& budget) {
  budget.charge(sizeof(PteProgram::Value));
  PteProgram::Value v;
  using K = PteProgram::Value::Kind;
  if (!e) return v;
  switch (e->val_type()) {
    case fb::KernelTypes::NONE:
    case fb::KernelTypes::Null: v.kind = K::None; break;
    case fb::KernelTypes::Int: v.kind = K::Int; break;
    case fb::KernelTypes::Bool: v.kind = K::Bool; break;
    case fb::KernelTypes::Double: v.kind = K::Double; break;
    case fb::KernelTypes::String: v.kind = K::String; break;
    case fb::KernelTypes::IntList: v.kind = K::IntList; break;
    case fb::KernelTypes::DoubleList: v.kind = K::DoubleList; break;
    case fb::KernelTypes::BoolList: v.kind = K::BoolList; break;
    case fb::KernelTypes::TensorList: v.kind = K::TensorList; break;
    case fb::KernelTypes::OptionalTensorList: v.kind = K::OptionalTensorList; break;
    case fb::KernelTypes::Tensor: {
      v.kind = K::Tensor;
      if (const auto* t = e->val_as_Tensor()) {
        v.dtype = dtypeFromExecuTorch(static_cast<int>(t->scalar_type()));
        if (t->sizes() && t->sizes()->size() > TensorData::kMaxRank)
          throw LoadError("", "a tensor of rank " + std::to_string(t->sizes()->size()));
        const auto sizes = budget.vector(t->sizes());
        v.sizes.assign(sizes.begin(), sizes.end());
        v.constant = t->data_buffer_idx() > 0;
      }
      break;
    }
    default: v.kind = K::Unknown;  // a union member added after this reader
  }
  return v;
}

PteProgram::Instruction readInstruction(const fb::Instruction* in, CopyBudget& budget) {
  budget.charge(sizeof(PteProgram::Instruction));
  using K = PteProgram::Instruction::Kind;
  PteProgram::Instruction i;
  if (!in) return i;
  switch (in->instr_args_type()) {
    case fb::InstructionArguments::KernelCall:
      if (const auto* k = in->instr_args_as_KernelCall()) i = {K::Kernel, k->op_index(), budget.vector(k->args())};
      break;
    case fb::InstructionArguments::DelegateCall:
      if (const auto* d = in->instr_args_as_DelegateCall()) i = {K::Delegate, d->delegate_index(), budget.vector(d->args())};
      break;
    case fb::InstructionArguments::MoveCall:
      if (const auto* m = in->instr_args_as_MoveCall()) i = {K::Move, -1, {m->move_from(), m->move_to()}};
      break;
    case fb::InstructionArguments::JumpFalseCall:
      if (const auto* j = in->instr_args_as_JumpFalseCall())
        i = {K::JumpFalse, -1, {j->cond_value_index(), j->destination_instruction()}};
      break;
    case fb::InstructionArguments::FreeCall:
      if (const auto* f = in->instr_args_as_FreeCall()) i = {K::Free, -1, {f->value_index()}};
      break;
    default: break;
  }
  return i;
}

PteProgram::Plan readPlan(const fb::ExecutionPlan* p, CopyBudget& budget) {
  PteProgram::Plan plan;
  plan.name = budget.string(p->name());
  if (p->values())
    for (const auto* v : *p->values()) plan.values.push_back(readValue(v, budget));
  plan.inputs = budget.vector(p->inputs());
  plan.outputs = budget.vector(p->outputs());
  if (p->chains())
    for (const auto* c : *p->chains()) {
      PteProgram::Chain chain;
      if (!c) continue;
      chain.inputs = budget.vector(c->inputs());
      chain.outputs = budget.vector(c->outputs());
      if (c->instructions())
        for (const auto* in : *c->instructions()) chain.instructions.push_back(readInstruction(in, budget));
      plan.chains.push_back(std::move(chain));
    }
  if (p->operators())
    for (const auto* o : *p->operators())
      if (o) plan.operators.push_back({budget.string(o->name()), budget.string(o->overload())});
  if (p->delegates())
    for (const auto* d : *p->delegates()) {
      PteProgram::Delegate delegate;
      if (!d) continue;
      delegate.backend = budget.string(d->id());
      if (const auto* ref = d->processed()) {
        delegate.inSegment = ref->location() == fb::DataLocation::SEGMENT;
        delegate.dataIndex = ref->index();
      }
      if (d->compile_specs())
        for (const auto* spec : *d->compile_specs())
          if (spec) delegate.compileSpecKeys.push_back(budget.string(spec->key()));
      plan.delegates.push_back(std::move(delegate));
    }
  plan.plannedBuffers = budget.vector(p->non_const_buffer_sizes());
  return plan;
}

std::string sizeText(uint64_t n) { return std::to_string(n); }

}  // namespace

std::string PteProgram::Value::kindName() const {
  static const char* names[] = {"none", "int", "bool", "double", "tensor", "string", "int list", "double list",
                                "bool list", "tensor list", "optional tensor list", "unknown"};
  return names[static_cast<int>(kind)];
}

std::string PteProgram::Plan::instructionText(const Instruction& i) const {
  using K = Instruction::Kind;
  switch (i.kind) {
    case K::Kernel:
      return i.target >= 0 && static_cast<std::size_t>(i.target) < operators.size()
                 ? operators[i.target].text()
                 : "kernel #" + std::to_string(i.target) + " (no such operator)";
    case K::Delegate:
      return i.target >= 0 && static_cast<std::size_t>(i.target) < delegates.size()
                 ? delegates[i.target].backend
                 : "delegate #" + std::to_string(i.target) + " (no such delegate)";
    case K::Move: return "move";
    case K::JumpFalse: return "jump if false";
    case K::Free: return "free";
    case K::Unknown: break;
  }
  return "unknown instruction";
}

uint64_t PteProgram::constantBytes() const {
  if (constantSegment && *constantSegment < segments.size()) return segments[*constantSegment].size;
  return inlineConstantBytes;
}

const PteProgram::Plan* PteProgram::plan(const std::string& name) const {
  for (const auto& p : plans)
    if (p.name == name) return &p;
  return nullptr;
}

bool isPteFile(const std::string& path) {
  // only a regular file is looked into: a FIFO would block the read until a writer came
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return false;
  std::ifstream in(path, std::ios::binary);
  std::byte head[8];
  return in.read(reinterpret_cast<char*>(head), sizeof head) && looksLikePte(head, sizeof head);
}

std::string pteFor(const std::string& opened, const std::string& etrecord) {
  if (isPteFile(opened)) return opened;
  std::filesystem::path beside(etrecord);
  beside.replace_extension(".pte");
  return isPteFile(beside.string()) ? beside.string() : std::string();
}

PteProgram readPteBytes(const std::byte* data, std::size_t size, const std::string& name) {
  auto fail = [&](const std::string& problem) { throw LoadError(name, problem); };
  if (size < 8 || !looksLikePte(data, size)) fail("not an ExecuTorch program (no ET file identifier at byte 4)");
  if (std::memcmp(data + 4, "ET12", 4) != 0)
    fail("is an ExecuTorch program of format " + std::string(reinterpret_cast<const char*>(data) + 4, 4) +
         "; this reader knows ET12");
  PteProgram out;
  out.path = name;
  out.fileSize = size;
  out.flatbufferSize = size;
  // The extended header (eh00): the flatbuffer's size and where segments start.
  if (size >= kHeaderAt + kHeaderMinimum && std::memcmp(data + kHeaderAt, "eh00", 4) == 0) {
    const uint32_t length = le32(data + kHeaderAt + 4);
    if (length < kHeaderMinimum || length > size - kHeaderAt) fail("extended header's length " + sizeText(length) + " is invalid");
    out.extendedHeader = true;
    out.flatbufferSize = le64(data + kHeaderAt + 8);
    out.segmentBase = le64(data + kHeaderAt + 16);
    if (out.flatbufferSize > size)
      fail("extended header says the program is " + sizeText(out.flatbufferSize) + " bytes but the file has " + sizeText(size) +
           " (truncated?)");
    if (out.segmentBase > size) fail("segment base offset " + sizeText(out.segmentBase) + " is past the end of the file");
  }
  if (out.flatbufferSize >= FLATBUFFERS_MAX_BUFFER_SIZE) fail("program flatbuffer is larger than 2 GB");
  flatbuffers::Verifier::Options options;
  options.max_depth = 64;
  options.max_tables = 4'000'000;
  flatbuffers::Verifier verifier(reinterpret_cast<const uint8_t*>(data), out.flatbufferSize, options);
  if (!fb::VerifyProgramBuffer(verifier)) fail("the program's flatbuffer fails verification (truncated or corrupt)");
  const fb::Program* program = fb::GetProgram(data);
  out.version = program->version();
  CopyBudget budget(out.flatbufferSize, name);
  try {
    if (program->execution_plan())
      for (const auto* p : *program->execution_plan())
        if (p) out.plans.push_back(readPlan(p, budget));
  } catch (const LoadError& e) {
    if (e.file().empty()) fail(e.problem());  // a plan's own problem, named by this file
    throw;
  }
  if (out.plans.empty()) fail("holds no method (no execution plan)");
  if (program->segments())
    for (const auto* s : *program->segments()) {
      if (!s) continue;
      const PteProgram::Segment seg{s->offset(), s->size()};
      // every segment must lie within the file: a reader of its bytes relies on it
      if (out.segmentBase == 0 || seg.offset > size - out.segmentBase || seg.size > size - out.segmentBase - seg.offset)
        fail("segment " + std::to_string(out.segments.size()) + " (" + sizeText(seg.size) + " bytes at " +
             sizeText(seg.offset) + ") lies past the end of the file");
      out.segments.push_back(seg);
    }
  if (program->constant_buffer()) {
    out.constantBuffers = program->constant_buffer()->size();
    for (const auto* b : *program->constant_buffer())
      if (b && b->storage()) out.inlineConstantBytes += b->storage()->size();
  }
  if (const auto* cs = program->constant_segment(); cs && cs->offsets() && cs->offsets()->size() > 0) {
    if (cs->segment_index() >= out.segments.size())
      fail("constant segment " + std::to_string(cs->segment_index()) + " does not exist");
    out.constantSegment = cs->segment_index();
    out.constantSegmentEntries = cs->offsets()->size();
  }
  if (program->mutable_data_segments()) out.mutableDataSegments = program->mutable_data_segments()->size();
  if (program->named_data())
    for (const auto* d : *program->named_data())
      if (d) out.namedData.emplace_back(budget.string(d->key()), d->segment_index());
  const auto* inlineData = program->backend_delegate_data();
  for (auto& plan : out.plans)
    for (auto& d : plan.delegates) {
      if (d.inSegment && d.dataIndex < out.segments.size()) d.bytes = out.segments[d.dataIndex].size;
      else if (!d.inSegment && inlineData && d.dataIndex < inlineData->size() && inlineData->Get(d.dataIndex)->data())
        d.bytes = inlineData->Get(d.dataIndex)->data()->size();
    }
  return out;
}

PteProgram readPte(const std::string& path) {
  const auto file = MappedFile::open(path);
  file->advise(MappedFile::Access::Scattered);  // the plan is read; weights and delegate blobs are not
  return readPteBytes(file->data(), file->size(), path);
}

}  // namespace torchir
