#include "TorchSaveReader.h"

#include <cctype>
#include <cstdio>
#include <map>

#include "program/LoadError.h"
#include "MappedFile.h"
#include "program/OneLine.h"
#include "Pt2Archive.h"
#include "Unpickler.h"

namespace torchir {

namespace {

using Kind = PickleValue::Kind;
constexpr const char* kSampleInputs = "data/sample_inputs/model.pt";

// A storage key becomes a record name: keep it to what torch writes (digits), so a key cannot
// name some other record ("../data.pkl").
bool plainKey(const std::string& key) {
  if (key.empty() || key.size() > 64) return false;
  for (char c : key)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  return true;
}

// torch.save's persistent ids: ('storage', storage class, key, location, numel). The location
// (cpu, cuda:0, ...) does not matter: the bytes are in the file either way.
PersistentLoad storageLoader(const Pt2Archive& archive, std::map<std::string, PickleRef>& loaded) {
  return [&archive, &loaded](const PickleValue& pid) -> PickleRef {
    const auto& f = archive.path();
    if (pid.kind != Kind::Tuple || pid.items.size() != 5 || pid.items[0]->kind != Kind::Str ||
        pid.items[0]->s != "storage")
      throw LoadError(f, "data.pkl: persistent id is not a torch.save storage");
    const auto& cls = *pid.items[1];
    const auto& key = *pid.items[2];
    const auto& numel = *pid.items[4];
    if (cls.kind != Kind::Global || (cls.s.find("Storage") == std::string::npos))
      throw LoadError(f, "data.pkl: storage of an unknown class");
    if (key.kind != Kind::Str || !plainKey(key.s)) throw LoadError(f, "data.pkl: bad storage key");
    if (numel.kind != Kind::Int || numel.i < 0) throw LoadError(f, "data.pkl: bad storage size");
    // Untyped storages (dtype Unknown, as torch.save writes float8 and uint16) count bytes.
    const auto item = cls.dtype == DType::Unknown ? 1 : dtypeItemSize(cls.dtype);
    std::uint64_t needed = 0;
    if (__builtin_mul_overflow(static_cast<std::uint64_t>(numel.i), item ? item : 1, &needed))
      throw LoadError(f, "data.pkl: bad storage size");
    // Shared storages keep one Storage: tied weights stay tied.
    auto& slot = loaded[key.s];
    if (!slot) {
      slot = std::make_shared<PickleValue>();
      slot->kind = Kind::Storage;
      slot->storage = archive.storage("data/" + key.s, needed);  // inflated no further than declared
    }
    if (static_cast<uint64_t>(numel.i) > slot->storage->nbytes / (item ? item : 1))
      throw LoadError(f, "storage data/" + key.s + " is shorter than its " + std::to_string(numel.i) + " elements");
    auto typed = std::make_shared<PickleValue>(*slot);
    typed->dtype = cls.dtype;
    return typed;
  };
}

std::string keyText(const PickleValue& k) {
  switch (k.kind) {
    case Kind::Str:
      return k.s;
    case Kind::Int:
      return std::to_string(k.i);
    case Kind::Bool:
      return k.i ? "True" : "False";
    default:
      return "None";
  }
}

constexpr std::size_t kMaxFieldText = 200;

// A non-tensor value of a subclass's state as Python would print it, cut at kMaxFieldText: a
// config field (`[1, 16]`, `torch.int4`, `PerRow(dim=-1)`, `MappingType('SYMMETRIC')`). The
// unpickler bounds the depth, so recursion is safe.
void appendRepr(const PickleValue& v, std::string& out) {
  if (out.size() > kMaxFieldText) return;
  auto shortName = [](const std::string& name) { return name.substr(name.rfind('.') + 1); };
  auto join = [&](const char* open, const char* close) {
    out += open;
    for (std::size_t i = 0; i < v.items.size() && out.size() <= kMaxFieldText; ++i) {
      if (i) out += ", ";
      appendRepr(*v.items[i], out);
    }
    if (v.kind == Kind::Tuple && v.items.size() == 1) out += ",";
    out += close;
  };
  switch (v.kind) {
    case Kind::None:
      out += "None";
      break;
    case Kind::Bool:
      out += v.i ? "True" : "False";
      break;
    case Kind::Int:
      out += std::to_string(v.i);
      break;
    case Kind::Float: {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.17g", v.f);
      out += buf;
      break;
    }
    case Kind::Str:
      out += "'" + v.s.substr(0, kMaxFieldText) + "'";
      break;
    case Kind::Tuple:
      join("(", ")");
      break;
    case Kind::List:
      join("[", "]");
      break;
    case Kind::Dict:
      out += "{";
      for (std::size_t i = 0; i < v.entries.size() && out.size() <= kMaxFieldText; ++i) {
        if (i) out += ", ";
        appendRepr(*v.entries[i].first, out);
        out += ": ";
        appendRepr(*v.entries[i].second, out);
      }
      out += "}";
      break;
    case Kind::Global:
      out += v.s;  // torch.int4, a class
      break;
    case Kind::Object:
      out += shortName(v.s) + "(";
      for (std::size_t i = 0; i < v.items.size(); ++i) {
        if (i) out += ", ";
        appendRepr(*v.items[i], out);
      }
      for (std::size_t i = 0; i < v.entries.size() && out.size() <= kMaxFieldText; ++i) {
        if (i || !v.items.empty()) out += ", ";
        if (v.entries[i].first->kind == Kind::Str) out += v.entries[i].first->s + "=";
        appendRepr(*v.entries[i].second, out);
      }
      out += ")";
      break;
    case Kind::Tensor:
    case Kind::Subclass:
      out += "tensor " + sizesText(v.tensor.sizes);
      break;
    case Kind::Storage:
      out += "storage";
      break;
  }
}

// A Subclass value as a tensor: its outer view, its inner tensors (subclasses themselves, for a
// nested one) and the rest of its state as text.
TensorData subclassTensor(const PickleValue& v) {
  auto sub = std::make_shared<TensorSubclass>();
  sub->className = oneLine(v.s, 200);  // a stranger's text: shown, so one line, no escapes
  for (const auto& [key, value] : v.entries) {
    if (value->kind == Kind::Tensor) sub->inner.emplace_back(key->s, value->tensor);  // looked up by the graph's attr
    else if (value->kind == Kind::Subclass) sub->inner.emplace_back(key->s, subclassTensor(*value));
    else {
      std::string text;
      appendRepr(*value, text);
      sub->fields.emplace_back(oneLine(key->s, kMaxFieldText), oneLine(text, kMaxFieldText));
    }
  }
  TensorData t = v.tensor;
  t.subclass = std::move(sub);
  return t;
}

// Depth-first, in pickle order; the unpickler bounds the depth, so recursion is safe.
void flatten(const PickleValue& v, const std::string& prefix, std::vector<std::pair<std::string, TensorData>>& out) {
  auto join = [&](const std::string& k) { return prefix.empty() ? k : prefix + "." + k; };
  switch (v.kind) {
    case Kind::Tensor:
      out.emplace_back(prefix, v.tensor);
      break;
    case Kind::Subclass:
      out.emplace_back(prefix, subclassTensor(v));
      break;
    case Kind::Tuple:
    case Kind::List:
      for (std::size_t i = 0; i < v.items.size(); ++i) flatten(*v.items[i], join(std::to_string(i)), out);
      break;
    case Kind::Dict:
      for (const auto& [k, item] : v.entries) flatten(*item, join(keyText(*k)), out);
      break;
    default:
      break;  // numbers, strings, None: not tensors
  }
}

}  // namespace

std::vector<std::pair<std::string, TensorData>> readTorchSave(const Pt2Archive& archive) {
  if (archive.has("byteorder") && archive.text("byteorder") != "little")
    throw LoadError(archive.path(), "big-endian torch.save file (its tensors cannot be read in place)");
  if (!archive.has("data.pkl")) throw LoadError(archive.path(), "not a torch.save file (no data.pkl)");
  const std::string pickle = archive.text("data.pkl");
  std::map<std::string, PickleRef> loaded;
  const auto root = unpickle(reinterpret_cast<const std::byte*>(pickle.data()), pickle.size(), archive.path(),
                             "data.pkl", storageLoader(archive, loaded));
  std::vector<std::pair<std::string, TensorData>> out;
  flatten(*root, "", out);
  return out;
}

TensorMap readTorchSaveStateDict(const std::string& path) {
  {
    auto file = MappedFile::open(path);
    // Before torch 1.6 torch.save wrote bare pickles, which carry their storages inline.
    if (file->size() >= 2 && file->data()[0] == std::byte{0x80})
      throw LoadError(path, "legacy torch.save format (before torch 1.6) is not read; re-save it with a recent torch");
  }
  Pt2Archive archive(path);
  TensorMap tensors;
  for (auto& [key, t] : readTorchSave(archive)) {
    if (key.empty()) throw LoadError(path, "not a state dict: the file holds a single tensor");
    if (!tensors.emplace(key, std::move(t)).second) throw LoadError(path, "tensor key '" + key + "' appears twice");
  }
  return tensors;
}

std::vector<TensorData> readTorchSaveTensors(const Pt2Archive& archive, const std::string& record) {
  Pt2Archive nested(archive.storage(record));  // storages keep the outer file's map alive
  std::vector<TensorData> out;
  for (auto& entry : readTorchSave(nested)) out.push_back(std::move(entry.second));
  return out;
}

TensorData readPickledTensor(const Pt2Archive& archive, const std::string& record) {
  Pt2Archive nested(archive.storage(record));
  auto tensors = readTorchSave(nested);
  if (tensors.size() != 1 || !tensors[0].first.empty())
    throw LoadError(archive.path(), record + " does not hold one pickled tensor");
  return std::move(tensors[0].second);
}

std::vector<TensorData> readSampleInputs(const Pt2Archive& pt2) {
  if (!pt2.has(kSampleInputs)) return {};
  return readTorchSaveTensors(pt2, kSampleInputs);
}

}  // namespace torchir
