#include "SymbolicKernels.h"

#include <cmath>
#include <functional>
#include <map>

#include "IValueSummary.h"

namespace torchir {
namespace {

using Binary = std::function<c10::IValue(double, double, bool)>;  // (a, b, both ints)

int64_t floorDiv(int64_t a, int64_t b) {
  const int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

const std::map<std::string, Binary>& binaries() {
  static const std::map<std::string, Binary> ops = {
      {"add", [](double a, double b, bool i) { return i ? c10::IValue(int64_t(a) + int64_t(b)) : c10::IValue(a + b); }},
      {"sub", [](double a, double b, bool i) { return i ? c10::IValue(int64_t(a) - int64_t(b)) : c10::IValue(a - b); }},
      {"mul", [](double a, double b, bool i) { return i ? c10::IValue(int64_t(a) * int64_t(b)) : c10::IValue(a * b); }},
      {"floordiv", [](double a, double b, bool i) {
         return i ? c10::IValue(floorDiv(int64_t(a), int64_t(b))) : c10::IValue(std::floor(a / b));
       }},
      {"mod", [](double a, double b, bool i) {
         return i ? c10::IValue(int64_t(a) - floorDiv(int64_t(a), int64_t(b)) * int64_t(b))
                  : c10::IValue(a - std::floor(a / b) * b);
       }},
      {"truediv", [](double a, double b, bool) { return c10::IValue(a / b); }},
      {"pow", [](double a, double b, bool i) {
         return i && b >= 0 ? c10::IValue(int64_t(std::llround(std::pow(a, b)))) : c10::IValue(std::pow(a, b));
       }},
      {"eq", [](double a, double b, bool) { return c10::IValue(a == b); }},
      {"ne", [](double a, double b, bool) { return c10::IValue(a != b); }},
      {"lt", [](double a, double b, bool) { return c10::IValue(a < b); }},
      {"le", [](double a, double b, bool) { return c10::IValue(a <= b); }},
      {"gt", [](double a, double b, bool) { return c10::IValue(a > b); }},
      {"ge", [](double a, double b, bool) { return c10::IValue(a >= b); }},
      {"and_", [](double a, double b, bool) { return c10::IValue(a != 0 && b != 0); }},
      {"or_", [](double a, double b, bool) { return c10::IValue(a != 0 || b != 0); }},
      {"sym_max", [](double a, double b, bool i) { return i ? c10::IValue(int64_t(std::max(a, b))) : c10::IValue(std::max(a, b)); }},
      {"sym_min", [](double a, double b, bool i) { return i ? c10::IValue(int64_t(std::min(a, b))) : c10::IValue(std::min(a, b)); }},
  };
  return ops;
}

const std::map<std::string, std::function<c10::IValue(double, bool)>>& unaries() {
  static const std::map<std::string, std::function<c10::IValue(double, bool)>> ops = {
      {"neg", [](double a, bool i) { return i ? c10::IValue(-int64_t(a)) : c10::IValue(-a); }},
      {"ceil", [](double a, bool) { return c10::IValue(int64_t(std::ceil(a))); }},
      {"floor", [](double a, bool) { return c10::IValue(int64_t(std::floor(a))); }},
      {"trunc", [](double a, bool) { return c10::IValue(int64_t(std::trunc(a))); }},
      {"sqrt", [](double a, bool) { return c10::IValue(std::sqrt(a)); }},
      {"not_", [](double a, bool) { return c10::IValue(a == 0); }},
      {"sym_not", [](double a, bool) { return c10::IValue(a == 0); }},
      {"sym_float", [](double a, bool) { return c10::IValue(a); }},
      {"sym_int", [](double a, bool) { return c10::IValue(int64_t(a)); }},
  };
  return ops;
}

/// "<built-in function mul>" -> "mul"; "torch.sym_max" -> "sym_max".
std::string functionName(const std::string& target) {
  const std::string builtin = "<built-in function ";
  if (target.rfind(builtin, 0) == 0) return target.substr(builtin.size(), target.size() - builtin.size() - 1);
  if (target.rfind("torch.", 0) == 0) return target.substr(6);
  return target;
}

}  // namespace

bool isSymbolicTarget(const std::string& target) {
  if (target == kGetItemTarget) return false;
  const std::string f = functionName(target);
  return f != target || target.rfind("torch.sym_", 0) == 0 ? (binaries().count(f) || unaries().count(f)) : false;
}

void runSymbolic(const Node& n, FrameValues& values, NodeRecord& rec) {
  std::vector<c10::IValue> args;
  for (const auto& a : n.inputs) {
    c10::IValue v;
    if (!a.values.empty()) v = values[static_cast<std::size_t>(a.values.front())];
    else if (const auto* i = a.arg.as<arg::Int>()) v = i->value;
    else if (const auto* f = a.arg.as<arg::Float>()) v = f->value;
    else if (const auto* b = a.arg.as<arg::Bool>()) v = b->value;
    else if (const auto* si = a.arg.as<arg::SymInt>()) v = si->sym.constant;
    else if (const auto* sf = a.arg.as<arg::SymFloat>()) v = sf->sym.constant;
    else if (const auto* sb = a.arg.as<arg::SymBool>()) v = sb->sym.constant;
    if (v.isNone()) throw std::runtime_error("argument " + a.name + " has no value");
    args.push_back(v);
    rec.arguments.push_back({a.name, v.isInt() ? "SymInt" : v.isDouble() ? "SymFloat" : "SymBool",
                             a.values.empty() ? ArgSource::Attribute : ArgSource::Input, "", summarize(v)});
  }
  auto number = [](const c10::IValue& v) { return v.isInt() ? double(v.toInt()) : v.isBool() ? double(v.toBool()) : v.toDouble(); };
  const std::string f = functionName(n.target);
  c10::IValue out;
  if (args.size() == 2 && binaries().count(f)) out = binaries().at(f)(number(args[0]), number(args[1]), args[0].isInt() && args[1].isInt());
  else if (args.size() == 1 && unaries().count(f)) out = unaries().at(f)(number(args[0]), args[0].isInt());
  else throw std::runtime_error(n.target + " called with " + std::to_string(args.size()) + " arguments");
  if (!n.outputs.empty()) values[static_cast<std::size_t>(n.outputs.front())] = out;
}

}  // namespace torchir
