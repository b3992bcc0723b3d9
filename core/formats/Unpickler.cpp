#include "Unpickler.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <unordered_map>

#include "program/LoadError.h"

namespace torchir {

namespace {

using Kind = PickleValue::Kind;

// Real files nest a few levels ((args, kwargs) of lists of tensors); a hostile one could nest
// millions and overflow the stack when the tree is walked or freed.
constexpr int kMaxDepth = 64;
// Each value costs a few hundred bytes: a cap keeps a small hostile pickle from taking gigabytes.
// A state dict needs about 15 values per tensor.
constexpr std::size_t kMaxValues = 4'000'000;
// Memo references let a short pickle describe a tree of 2^64 values ((x, x), then ((x, x), (x, x)), ...):
// whoever walks it would never finish.
constexpr std::size_t kMaxTreeSize = 4'000'000;

const char* kindName(Kind k) {
  switch (k) {
    case Kind::None:
      return "None";
    case Kind::Bool:
      return "bool";
    case Kind::Int:
      return "int";
    case Kind::Float:
      return "float";
    case Kind::Str:
      return "str";
    case Kind::Tuple:
      return "tuple";
    case Kind::List:
      return "list";
    case Kind::Dict:
      return "dict";
    case Kind::Global:
      return "global";
    case Kind::Storage:
      return "storage";
    case Kind::Tensor:
      return "tensor";
    case Kind::Subclass:
      return "tensor subclass";
    case Kind::Object:
      return "object";
  }
  return "?";
}

// torch.save names typed storages by class; the bytes are the same for all of them.
DType storageClassDType(const std::string& name) {
  static const std::map<std::string, DType> table = {
      {"FloatStorage", DType::Float32},
      {"DoubleStorage", DType::Float64},
      {"HalfStorage", DType::Float16},
      {"BFloat16Storage", DType::BFloat16},
      {"LongStorage", DType::Int64},
      {"IntStorage", DType::Int32},
      {"ShortStorage", DType::Int16},
      {"CharStorage", DType::Int8},
      {"ByteStorage", DType::UInt8},
      {"BoolStorage", DType::Bool},
      {"ComplexFloatStorage", DType::Complex64},
      {"ComplexDoubleStorage", DType::Complex128},
  };
  auto it = table.find(name);
  return it == table.end() ? DType::Unknown : it->second;
}

bool isRebuildFunction(const std::string& name) {
  return name == "_rebuild_tensor" || name == "_rebuild_tensor_v2" || name == "_rebuild_tensor_v3" ||
         name == "_rebuild_parameter" || name == "_rebuild_parameter_with_state" ||
         name == "_rebuild_meta_tensor_no_storage";
}

class Machine {
 public:
  Machine(const std::byte* data, std::size_t size, const std::string& file, const std::string& name,
          const PersistentLoad& persistentLoad)
      : m_p(reinterpret_cast<const unsigned char*>(data)),
        m_size(size),
        m_file(file),
        m_name(name),
        m_persistentLoad(persistentLoad) {}

  PickleRef run() {
    while (true) {
      m_opPos = m_pos;
      const unsigned char op = byte();
      switch (op) {
        case 0x80:
          byte();
          break;  // PROTO: every protocol we know uses the same opcodes
        case 0x95:
          bytes(8);
          break;  // FRAME: only a read-ahead hint
        case '.':
          return stop();  // STOP
        case '(':
          m_marks.push_back(m_stack.size());
          break;  // MARK
        case '0':
          pop();
          break;  // POP
        case '1':
          popMark();
          break;  // POP_MARK
        case '2':
          push(top());
          break;  // DUP
        case 'N':
          push(make(Kind::None));
          break;
        case 0x88:
          push(boolean(true));
          break;  // NEWTRUE
        case 0x89:
          push(boolean(false));
          break;  // NEWFALSE
        case 'J':
          push(integer(static_cast<int32_t>(le(4))));
          break;  // BININT
        case 'K':
          push(integer(le(1)));
          break;  // BININT1
        case 'M':
          push(integer(le(2)));
          break;  // BININT2
        case 0x8a:
          push(long1());
          break;  // LONG1
        case 'G':
          push(binfloat());
          break;  // BINFLOAT
        case 'X':
          push(str(le(4)));
          break;  // BINUNICODE
        case 0x8c:
          push(str(le(1)));
          break;  // SHORT_BINUNICODE
        case 0x8d:
          push(str(le(8)));
          break;  // BINUNICODE8
        case '}':
          push(make(Kind::Dict));
          break;  // EMPTY_DICT
        case ']':
          push(make(Kind::List));
          break;  // EMPTY_LIST
        case ')':
          push(make(Kind::Tuple));
          break;  // EMPTY_TUPLE
        case 't':
          push(container(Kind::Tuple, popMark()));
          break;  // TUPLE
        case 'l':
          push(container(Kind::List, popMark()));
          break;  // LIST
        case 0x85:
          push(container(Kind::Tuple, popN(1)));
          break;  // TUPLE1
        case 0x86:
          push(container(Kind::Tuple, popN(2)));
          break;  // TUPLE2
        case 0x87:
          push(container(Kind::Tuple, popN(3)));
          break;  // TUPLE3
        case 'd': {
          auto d = make(Kind::Dict);
          setItems(*d, popMark());
          push(d);
          break;
        }  // DICT
        case 'a': {
          auto v = popN(1);
          append(*top(), v);
          break;
        }  // APPEND
        case 'e': {
          auto v = popMark();
          append(*top(), v);
          break;
        }  // APPENDS
        case 's': {
          auto kv = popN(2);
          setItems(*top(), kv);
          break;
        }  // SETITEM
        case 'u': {
          auto kv = popMark();
          setItems(*top(), kv);
          break;
        }  // SETITEMS
        case 'q':
          m_memo[le(1)] = top();
          break;  // BINPUT
        case 'r':
          m_memo[le(4)] = top();
          break;  // LONG_BINPUT
        case 0x94: {
          auto i = m_memo.size();
          m_memo[i] = top();
          break;
        }  // MEMOIZE
        case 'h':
          push(memo(le(1)));
          break;  // BINGET
        case 'j':
          push(memo(le(4)));
          break;  // LONG_BINGET
        case 'c': {
          auto module = line();
          push(global(module, line()));
          break;
        }             // GLOBAL
        case 0x93: {  // STACK_GLOBAL
          auto nm = popN(2);
          if (nm[0]->kind != Kind::Str || nm[1]->kind != Kind::Str) fail("STACK_GLOBAL of non-strings");
          push(global(nm[0]->s, nm[1]->s));
          break;
        }
        case 'R': {
          auto args = pop();
          push(reduce(pop(), args));
          break;
        }  // REDUCE
        case 'b':
          build();
          break;  // BUILD
        case 0x81: {  // NEWOBJ: cls.__new__(cls, *args), read as an Object
          auto args = pop();
          push(object(pop(), args));
          break;
        }
        case 'Q':
          push(persistent(pop()));
          break;  // BINPERSID
        default: {
          char hex[8];
          std::snprintf(hex, sizeof hex, "0x%02x", op);
          fail(std::string("unsupported pickle opcode ") + hex);
        }
      }
    }
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw LoadError(m_file, m_name + ": " + what + " (at byte " + std::to_string(m_opPos) + ")");
  }

  PickleRef make(Kind k) {
    if (++m_values > kMaxValues) fail("more than " + std::to_string(kMaxValues) + " values");
    auto v = std::make_shared<PickleValue>();
    v->kind = k;
    return v;
  }

  // ---- reading the byte stream
  const unsigned char* bytes(std::size_t n) {
    if (n > m_size - m_pos) fail("truncated pickle");
    const unsigned char* p = m_p + m_pos;
    m_pos += n;
    return p;
  }
  unsigned char byte() { return *bytes(1); }
  uint64_t le(std::size_t n) {
    const unsigned char* p = bytes(n);
    uint64_t v = 0;
    for (std::size_t k = n; k-- > 0;) v = (v << 8) | p[k];
    return v;
  }
  std::string line() {
    const auto* start = m_p + m_pos;
    const auto* end =
        static_cast<const unsigned char*>(std::memchr(start, '\n', std::min<std::size_t>(m_size - m_pos, 256)));
    if (!end) fail("truncated or overlong GLOBAL name");
    m_pos += static_cast<std::size_t>(end - start) + 1;
    return std::string(reinterpret_cast<const char*>(start), static_cast<std::size_t>(end - start));
  }

  // ---- scalars
  PickleRef boolean(bool b) {
    auto v = make(Kind::Bool);
    v->i = b;
    return v;
  }
  PickleRef integer(int64_t i) {
    auto v = make(Kind::Int);
    v->i = i;
    return v;
  }
  PickleRef str(uint64_t n) {
    if (n > m_size - m_pos) fail("truncated pickle");
    auto v = make(Kind::Str);
    v->s.assign(reinterpret_cast<const char*>(bytes(n)), n);
    return v;
  }
  PickleRef long1() {
    const std::size_t n = byte();
    if (n > 8) fail("integer wider than 64 bits");
    uint64_t u = le(n);
    if (n > 0 && n < 8 && (u >> (8 * n - 1)) & 1) u |= ~uint64_t(0) << (8 * n);  // sign-extend
    return integer(static_cast<int64_t>(u));
  }
  PickleRef binfloat() {
    const unsigned char* p = bytes(8);
    uint64_t u = 0;
    for (int k = 0; k < 8; ++k) u = (u << 8) | p[k];  // big-endian, unlike everything else
    auto v = make(Kind::Float);
    std::memcpy(&v->f, &u, 8);
    return v;
  }

  // ---- the stack and the memo
  void push(PickleRef v) { m_stack.push_back(std::move(v)); }
  const PickleRef& top() const {
    if (m_stack.size() <= (m_marks.empty() ? 0 : m_marks.back())) fail("stack underflow");
    return m_stack.back();
  }
  PickleRef pop() {
    auto v = top();
    m_stack.pop_back();
    return v;
  }
  std::vector<PickleRef> popN(std::size_t n) {
    const std::size_t floor = m_marks.empty() ? 0 : m_marks.back();
    if (m_stack.size() < floor + n) fail("stack underflow");
    std::vector<PickleRef> out(m_stack.end() - static_cast<std::ptrdiff_t>(n), m_stack.end());
    m_stack.resize(m_stack.size() - n);
    return out;
  }
  std::vector<PickleRef> popMark() {
    if (m_marks.empty()) fail("no MARK");
    const std::size_t at = m_marks.back();
    m_marks.pop_back();
    std::vector<PickleRef> out(m_stack.begin() + static_cast<std::ptrdiff_t>(at), m_stack.end());
    m_stack.resize(at);
    return out;
  }
  PickleRef memo(uint64_t i) const {
    auto it = m_memo.find(i);
    if (it == m_memo.end()) fail("memo entry " + std::to_string(i) + " is missing");
    return it->second;
  }
  PickleRef stop() {
    if (m_stack.empty()) fail("STOP with an empty stack");
    const PickleRef& root = m_stack.back();
    if (!root->foreign.empty()) fail("refused global " + root->foreign + " (only tensors and plain containers are read)");
    return root;
  }

  // ---- containers
  void adopt(PickleValue& parent, const PickleRef& child) {
    if (parent.frozen) fail("a container changed after it was put in another (recursive data is not read)");
    child->frozen = true;
    if (parent.frozen) fail("a container put into itself");
    parent.depth = std::max(parent.depth, child->depth + 1);
    if (parent.depth > kMaxDepth) fail("data nested deeper than " + std::to_string(kMaxDepth));
    parent.treeSize += child->treeSize;  // the child is frozen, so its size is final
    if (parent.foreign.empty() && parent.kind != Kind::Subclass) parent.foreign = child->foreign;
    if (parent.treeSize > kMaxTreeSize) fail("data expands to more than " + std::to_string(kMaxTreeSize) + " values");
  }
  PickleRef container(Kind k, std::vector<PickleRef> items) {
    auto v = make(k);
    for (auto& item : items) adopt(*v, item);
    v->items = std::move(items);
    return v;
  }
  void append(PickleValue& list, const std::vector<PickleRef>& items) {
    if (list.kind != Kind::List) fail(std::string("APPEND to a ") + kindName(list.kind));
    for (auto& item : items) adopt(list, item);
    list.items.insert(list.items.end(), items.begin(), items.end());
  }
  void setItems(PickleValue& dict, const std::vector<PickleRef>& kv) {
    if (dict.kind != Kind::Dict) fail(std::string("SETITEM on a ") + kindName(dict.kind));
    if (kv.size() % 2) fail("SETITEMS with an odd number of items");
    for (std::size_t k = 0; k < kv.size(); k += 2) {
      const auto& key = kv[k];
      if (key->kind != Kind::Str && key->kind != Kind::Int && key->kind != Kind::Bool && key->kind != Kind::None)
        fail(std::string("dict key of type ") + kindName(key->kind));
      adopt(dict, key);
      adopt(dict, kv[k + 1]);
      if (key->kind == Kind::Str) {
        auto [it, added] = dict.strIndex.emplace(key->s, dict.entries.size());
        if (!added) {  // Python keeps the first position and the last value
          dict.entries[it->second].second = kv[k + 1];
          continue;
        }
      }
      dict.entries.emplace_back(key, kv[k + 1]);
    }
  }

  // ---- the whitelist
  // A global is only a name: a subclass's class is kept as data; only the names marked callable
  // may be called (reduce), and none of them is looked up, let alone run.
  PickleRef global(const std::string& module, const std::string& name) {
    auto v = make(Kind::Global);
    v->s = module + "." + name;
    v->callable = v->s == "collections.OrderedDict" || (module == "torch._utils" && isRebuildFunction(name)) ||
                  v->s == "torch._utils._rebuild_wrapper_subclass" || v->s == "torch._tensor._rebuild_from_type_v2" ||
                  v->s == "torch.device" || v->s == "torch.serialization._get_layout";
    if (v->callable) return v;
    if ((module == "torch" || module == "torch.storage") && name == "UntypedStorage") return v;
    if (module == "torch") {
      v->dtype = storageClassDType(name);
      if (v->dtype == DType::Unknown && name.find("Storage") == std::string::npos) {
        if (auto dt = dtypeFromName("torch." + name)) v->dtype = *dt;
      }
    }
    return v;
  }

  PickleRef reduce(const PickleRef& callable, const PickleRef& args) {
    if (callable->kind != Kind::Global) fail(std::string("call of a ") + kindName(callable->kind));
    if (args->kind != Kind::Tuple) fail("call of " + callable->s + " with non-tuple arguments");
    if (!callable->callable) return object(callable, args);
    const auto& a = args->items;
    const std::string& f = callable->s;
    if (f == "torch.device" || f == "torch.serialization._get_layout") {  // kept as the name they were given
      expectArgs(f, a, 1, 2);
      if (a[0]->kind != Kind::Str) fail(f + " of a " + kindName(a[0]->kind));
      return a[0];
    }
    if (f == "torch._utils._rebuild_wrapper_subclass") return wrapperSubclass(a, nullptr);
    if (f == "torch._tensor._rebuild_from_type_v2") {
      // (func, new_type, args, state): torch calls func(*args), makes it a new_type, sets the state
      expectArgs(f, a, 4, 4);
      if (a[2]->kind != Kind::Tuple) fail(f + " with non-tuple arguments");
      if (a[0]->kind == Kind::Global && a[0]->s == "torch._utils._rebuild_wrapper_subclass")
        return wrapperSubclass(a[2]->items, a[3].get());
      auto plain = reduce(a[0], a[2]);  // a plain tensor of a Python subclass (a Buffer): its data
      if (plain->kind != Kind::Tensor) fail(f + " of a " + kindName(plain->kind));
      return plain;
    }
    if (f == "collections.OrderedDict") {
      if (!a.empty()) fail("OrderedDict with arguments");
      return make(Kind::Dict);
    }
    if (f == "torch._utils._rebuild_tensor_v2" || f == "torch._utils._rebuild_tensor") {
      expectArgs(f, a, f.back() == '2' ? 6 : 4, 7);
      return tensor(*a[0], offset(*a[1]), *a[2], *a[3], DType::Unknown);
    }
    if (f == "torch._utils._rebuild_tensor_v3") {
      expectArgs(f, a, 7, 8);
      return tensor(*a[0], offset(*a[1]), *a[2], *a[3], dtypeArg(*a[6]));
    }
    if (f == "torch._utils._rebuild_parameter" || f == "torch._utils._rebuild_parameter_with_state") {
      expectArgs(f, a, f.back() == 'r' ? 3 : 4, 4);
      if (a[0]->kind != Kind::Tensor) fail(f + " of a " + kindName(a[0]->kind));
      return a[0];  // a Parameter is its data; requires_grad, hooks and state do not matter here
    }
    if (f == "torch._utils._rebuild_meta_tensor_no_storage") {
      expectArgs(f, a, 4, 4);
      return tensor(PickleValue{}, 0, *a[1], *a[2], dtypeArg(*a[0]));
    }
    fail("refused call of " + f);
  }

  // _rebuild_wrapper_subclass(cls, dtype, size, stride, storage_offset, layout, device, requires_grad)
  // and the state torch would set on it: a dict, or (dict, slots) as _get_obj_state makes it.
  PickleRef wrapperSubclass(const std::vector<PickleRef>& a, const PickleValue* state) {
    const std::string f = "torch._utils._rebuild_wrapper_subclass";
    expectArgs(f, a, 8, 8);
    if (a[0]->kind != Kind::Global) fail(f + " of a " + kindName(a[0]->kind) + " instead of a class");
    auto v = make(Kind::Subclass);
    v->s = a[0]->s;
    v->dtype = dtypeArg(*a[1]);
    v->tensor.dtype = v->dtype;
    v->tensor.sizes = ints(*a[2], "size");
    v->tensor.strides = ints(*a[3], "stride");
    v->tensor.storageOffset = offset(*a[4]);
    if (const std::string problem = v->tensor.layoutProblem(); !problem.empty()) fail(v->s + " " + problem);
    std::vector<const PickleValue*> dicts;
    if (state && state->kind == Kind::Dict) dicts.push_back(state);
    else if (state && state->kind == Kind::Tuple && state->items.size() == 2) {
      for (const auto& part : state->items)
        if (part->kind == Kind::Dict) dicts.push_back(part.get());
        else if (part->kind != Kind::None) fail(v->s + "'s state holds a " + kindName(part->kind));
    } else if (state && state->kind != Kind::None) {
      fail(v->s + "'s state is a " + kindName(state->kind) + ", not a dict");
    }
    for (const PickleValue* d : dicts)
      for (const auto& [key, value] : d->entries) {
        if (key->kind != Kind::Str) fail(v->s + "'s state has a " + std::string(kindName(key->kind)) + " key");
        adopt(*v, key);
        adopt(*v, value);
        v->entries.emplace_back(key, value);
      }
    return v;
  }

  void expectArgs(const std::string& f, const std::vector<PickleRef>& a, std::size_t lo, std::size_t hi) const {
    if (a.size() < lo || a.size() > hi) fail(f + " with " + std::to_string(a.size()) + " arguments");
  }
  int64_t offset(const PickleValue& v) const {
    if (v.kind != Kind::Int || v.i < 0) fail("bad tensor storage offset");
    return v.i;
  }
  DType dtypeArg(const PickleValue& v) const {
    if (v.kind != Kind::Global || v.dtype == DType::Unknown || v.s.find("Storage") != std::string::npos)
      fail("tensor dtype is not a torch dtype");
    return v.dtype;
  }
  std::vector<int64_t> ints(const PickleValue& v, const char* what) const {
    if (v.kind != Kind::Tuple && v.kind != Kind::List) fail(std::string("tensor ") + what + " is not a tuple");
    if (v.items.size() > TensorData::kMaxRank) fail(std::string("tensor ") + what + " has too many dimensions");
    std::vector<int64_t> out;
    for (auto& item : v.items) {
      if (item->kind != Kind::Int || item->i < 0) fail(std::string("bad tensor ") + what);
      out.push_back(item->i);
    }
    return out;
  }

  // A strided view on `storage` (None kind: a meta tensor with no data), checked to fit in it.
  PickleRef tensor(const PickleValue& storage, int64_t offset, const PickleValue& sizeV, const PickleValue& strideV,
                   DType dtype) {
    const bool meta = storage.kind == Kind::None;
    if (!meta && storage.kind != Kind::Storage) fail(std::string("tensor built on a ") + kindName(storage.kind));
    if (dtype == DType::Unknown) dtype = storage.dtype;
    if (dtype == DType::Unknown) fail("tensor on an untyped storage without a dtype");
    auto t = make(Kind::Tensor);
    t->dtype = dtype;
    t->tensor.dtype = dtype;
    t->tensor.sizes = ints(sizeV, "size");
    t->tensor.strides = ints(strideV, "stride");
    t->tensor.storageOffset = offset;
    if (!meta) t->tensor.storage = storage.storage;  // shared, so tied weights stay tied
    if (const std::string problem = t->tensor.layoutProblem(); !problem.empty())
      fail("tensor " + problem + (meta ? std::string() : " (" + storage.storage->origin + ")"));
    if (meta)
      t->tensor.storage = std::make_shared<Storage>(Storage{nullptr, t->tensor.bytesSpanned(), nullptr, "meta"});
    return t;
  }

  // An instance of a class we do not rebuild, kept as data: never constructed, and refused at the
  // root unless a subclass's state holds it (stop()).
  PickleRef object(const PickleRef& cls, const PickleRef& args) {
    if (cls->kind != Kind::Global) fail(std::string("instance of a ") + kindName(cls->kind));
    if (args->kind != Kind::Tuple) fail("instance of " + cls->s + " with non-tuple arguments");
    auto v = make(Kind::Object);
    v->s = cls->s;
    for (const auto& a : args->items) adopt(*v, a);
    v->items = args->items;
    v->foreign = cls->s;
    return v;
  }

  void build() {
    auto state = pop();
    PickleValue& target = *top();
    if (target.kind == Kind::Object) {  // __setstate__: the state is kept as the object's data
      if (state->kind != Kind::Dict) fail("state of " + target.s + " is a " + kindName(state->kind) + ", not a dict");
      for (const auto& [key, value] : state->entries) {
        adopt(target, key);
        adopt(target, value);
        target.entries.emplace_back(key, value);
      }
      return;
    }
    // an OrderedDict state dict's `_metadata` (module versions), not tensors
    if (target.kind != Kind::Dict) fail(std::string("BUILD of a ") + kindName(target.kind));
  }

  PickleRef persistent(const PickleRef& pid) {
    if (!m_persistentLoad) fail("persistent id outside a torch.save archive");
    auto v = m_persistentLoad(*pid);
    if (!v || v->kind != Kind::Storage) fail("persistent id is not a storage");
    return v;
  }

  const unsigned char* m_p;
  std::size_t m_size;
  std::size_t m_pos = 0;
  std::size_t m_opPos = 0;
  const std::string& m_file;
  const std::string& m_name;
  const PersistentLoad& m_persistentLoad;
  std::vector<PickleRef> m_stack;
  std::vector<std::size_t> m_marks;
  std::unordered_map<uint64_t, PickleRef> m_memo;
  std::size_t m_values = 0;
};

}  // namespace

PickleRef unpickle(const std::byte* data, std::size_t size, const std::string& file, const std::string& name,
                   const PersistentLoad& persistentLoad) {
  if (!data && size) throw LoadError(file, name + ": no bytes");
  return Machine(data, size, file, name, persistentLoad).run();
}

}  // namespace torchir
