#include "panels/ExportedArgument.h"

#include <QStringList>

#include "program/PythonRepr.h"

namespace torchir::ui {

namespace {

QString text(const std::string& s) { return QString::fromStdString(s); }
QString boolText(bool b) { return b ? QStringLiteral("True") : QStringLiteral("False"); }
QString intText(int64_t i) { return QString::number(i); }
QString floatText(double d) { return text(torchir::pythonFloatRepr(d)); }
QString stringText(const std::string& s) { return text(torchir::pythonStringRepr(s)); }

template <class T, class F>
QString listText(const std::vector<T>& items, F f) {
  QStringList out;
  for (const auto& x : items) out << f(x);
  return QLatin1Char('[') + out.join(QStringLiteral(", ")) + QLatin1Char(']');
}

/// The value of an argument that names no value of the graph, as Python would print it.
QString constantText(const torchir::Argument& a) {
  using namespace torchir;
  if (a.is<arg::None>()) return QStringLiteral("None");
  if (const auto* i = a.as<arg::Int>()) return intText(i->value);
  if (const auto* f = a.as<arg::Float>()) return floatText(f->value);
  if (const auto* b = a.as<arg::Bool>()) return boolText(b->value);
  if (const auto* s = a.as<arg::String>()) return stringText(s->value);
  if (const auto* l = a.as<arg::Ints>()) return listText(l->values, intText);
  if (const auto* l = a.as<arg::Floats>()) return listText(l->values, floatText);
  if (const auto* l = a.as<arg::Bools>()) return listText(l->values, boolText);
  if (const auto* l = a.as<arg::Strings>()) return listText(l->values, stringText);
  if (const auto* l = a.as<arg::IntLists>())
    return listText(l->values, [](const std::vector<int64_t>& x) { return listText(x, intText); });
  if (const auto* s = a.as<arg::SymInt>()) return intText(s->sym.constant);
  if (const auto* s = a.as<arg::SymFloat>()) return floatText(s->sym.constant);
  if (const auto* s = a.as<arg::SymBool>()) return boolText(s->sym.constant);
  if (const auto* l = a.as<arg::SymInts>())
    return listText(l->values, [](const Symbolic<int64_t>& x) { return intText(x.constant); });
  if (const auto* l = a.as<arg::SymFloats>())
    return listText(l->values, [](const Symbolic<double>& x) { return floatText(x.constant); });
  if (const auto* t = a.as<arg::ScalarType>())
    return text(dtypePythonName(dtypeFromSerialized(t->code).value_or(DType::Unknown)));
  if (const auto* d = a.as<arg::Device>()) return text(d->type + (d->index ? ":" + std::to_string(*d->index) : ""));
  if (const auto* c = a.as<arg::Complex>()) return QStringLiteral("(%1+%2j)").arg(floatText(c->real), floatText(c->imag));
  if (const auto* o = a.as<arg::Operator>()) return text(o->name);
  if (const auto* at = a.as<arg::Attribute>()) return text(pythonLiteral(at->value));
  if (const auto* u = a.as<arg::Unknown>()) return text(u->text);
  if (const auto* l = a.as<arg::Layout>()) return QLatin1String(layoutPythonName(l->code));
  if (const auto* m = a.as<arg::MemoryFormat>()) return QLatin1String(memoryFormatPythonName(m->code));
  return {};
}

}  // namespace

ExportedArgumentText exportedArgumentText(const torchir::Program& program, const torchir::NodeArgument& argument) {
  using namespace torchir;
  ExportedArgumentText out;
  const Argument& a = argument.arg;
  out.type = QLatin1String(argumentTypeName(a).data(), static_cast<int>(argumentTypeName(a).size()));
  // Values the argument names (tensors, symbols) are shown by name, in order.
  if (!argument.values.empty()) {
    QStringList names;
    for (ValueId v : argument.values) names << text(program.value(v).name);
    const bool list = a.is<arg::Tensors>() || a.is<arg::OptionalTensors>() || a.is<arg::SymInts>();
    out.value = list ? QLatin1Char('[') + names.join(QStringLiteral(", ")) + QLatin1Char(']')
                     : names.join(QStringLiteral(", "));
    return out;
  }
  out.value = constantText(a);
  return out;
}

}  // namespace torchir::ui
