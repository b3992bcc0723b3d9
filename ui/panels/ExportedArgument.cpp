#include "panels/ExportedArgument.h"

#include <QStringList>

#include "program/PythonRepr.h"

namespace torchir::ui {

namespace {

using nlohmann::json;

QString scalarText(const json& v) {
  if (v.is_boolean()) return v.get<bool>() ? QStringLiteral("True") : QStringLiteral("False");
  if (v.is_number_float()) return QString::fromStdString(torchir::pythonFloatRepr(v.get<double>()));
  if (v.is_string()) return QString::fromStdString(torchir::pythonStringRepr(v.get<std::string>()));
  if (v.is_null()) return QStringLiteral("None");
  return QString::fromStdString(v.dump());
}

QString listText(const json& list) {
  QStringList items;
  for (const json& v : list) items << scalarText(v);
  return QLatin1Char('[') + items.join(QStringLiteral(", ")) + QLatin1Char(']');
}

// The kind's name without "as_": "as_ints" -> "int[]", as the schema would spell it.
QString typeOfKind(const std::string& kind) {
  static const std::pair<const char*, const char*> kTypes[] = {
      {"as_tensor", "Tensor"},       {"as_tensors", "Tensor[]"},     {"as_optional_tensors", "Tensor?[]"},
      {"as_optional_tensor", "Tensor?"}, {"as_int", "int"},          {"as_ints", "int[]"},
      {"as_float", "float"},         {"as_floats", "float[]"},       {"as_bool", "bool"},
      {"as_bools", "bool[]"},        {"as_string", "str"},           {"as_strings", "str[]"},
      {"as_sym_int", "SymInt"},      {"as_sym_ints", "SymInt[]"},    {"as_sym_float", "SymFloat"},
      {"as_sym_bool", "SymBool"},    {"as_scalar_type", "ScalarType"}, {"as_memory_format", "MemoryFormat"},
      {"as_layout", "Layout"},       {"as_device", "Device"},        {"as_none", "None"},
      {"as_graph", "graph"},         {"as_custom_obj", "object"},    {"as_complex", "complex"}};
  for (const auto& [k, t] : kTypes)
    if (kind == k) return QLatin1String(t);
  return QString::fromStdString(kind.rfind("as_", 0) == 0 ? kind.substr(3) : kind);
}

}  // namespace

ExportedArgumentText exportedArgumentText(const torchir::Program& program, const torchir::NodeArgument& argument) {
  ExportedArgumentText out;
  const json& a = argument.arg;
  if (!a.is_object() || a.empty()) {
    out.value = QString::fromStdString(a.dump());
    return out;
  }
  const std::string kind = a.begin().key();
  const json& body = a.begin().value();
  out.type = typeOfKind(kind);
  // Values the argument names (tensors, symbols) are shown by name, in order.
  if (!argument.values.empty()) {
    QStringList names;
    for (torchir::ValueId v : argument.values) names << QString::fromStdString(program.value(v).name);
    const bool list = kind == "as_tensors" || kind == "as_optional_tensors" || kind == "as_sym_ints";
    out.value = list ? QLatin1Char('[') + names.join(QStringLiteral(", ")) + QLatin1Char(']')
                     : names.join(QStringLiteral(", "));
    return out;
  }
  if (kind == "as_scalar_type" && body.is_number_integer()) {
    out.value = QString::fromStdString(
        torchir::dtypePythonName(torchir::dtypeFromSerialized(body.get<int>()).value_or(torchir::DType::Unknown)));
  } else if (body.is_array()) {
    out.value = listText(body);
  } else if (kind == "as_none") {
    out.value = QStringLiteral("None");
  } else if (body.is_object() && body.size() == 1) {
    out.value = scalarText(body.begin().value());  // as_sym_int: {"as_int": 3}
  } else {
    out.value = scalarText(body);
  }
  return out;
}

}  // namespace torchir::ui
