#include "capture/ExecJson.h"

namespace torchir {

using Json = nlohmann::json;

Json valueSummaryJson(const ValueSummary& v) {
  return {{"kind", v.kind}, {"dtype", std::string(dtypeName(v.dtype))}, {"sizes", v.sizes},
          {"strides", v.strides}, {"device", v.device}, {"text", v.text}};
}

Json argumentsJson(const std::vector<ArgumentRecord>& arguments) {
  Json out = Json::array();
  for (const ArgumentRecord& a : arguments)
    out.push_back({{"name", a.name}, {"type", a.declaredType}, {"source", std::string(argSourceName(a.source))},
                   {"detail", a.sourceDetail}, {"value", valueSummaryJson(a.value)}});
  return out;
}

Json nodeRecordJson(const NodeRecord& r) {
  Json outputs = Json::array();
  for (const ValueSummary& v : r.outputs) outputs.push_back(valueSummaryJson(v));
  return {{"executed", r.executed}, {"does_work", r.doesWork}, {"schema", r.schema},
          {"arguments", argumentsJson(r.arguments)}, {"outputs", outputs}, {"us", r.microseconds}, {"cached", r.cached}};
}

Json diagnosisJson(const Diagnosis& d) {
  Json j = {{"class", std::string(diagnosisClassName(d.kind))}, {"node", d.nodeName}, {"op", d.opType},
            {"schema", d.schema}, {"message", d.message}, {"explanation", d.explanation},
            {"arguments", argumentsJson(d.arguments)}, {"stack", d.stackTrace}, {"traceback", d.traceback}};
  // a suggestion for the run at hand: written for tools that read --json, not read back from a capture
  if (!d.pythonImports.empty()) j["python_imports"] = d.pythonImports;
  return j;
}

ValueSummary valueSummaryFromJson(const JsonFields& f, const Json& o, const std::string& where) {
  ValueSummary v;
  v.kind = f.text(o, "kind", where);
  v.dtype = f.dtype(o, "dtype", where);
  v.sizes = f.ints(o, "sizes", where);
  v.strides = f.ints(o, "strides", where);
  v.device = f.text(o, "device", where);
  v.text = f.text(o, "text", where);
  return v;
}

std::vector<ArgumentRecord> argumentsFromJson(const JsonFields& f, const Json& o, const std::string& where) {
  std::vector<ArgumentRecord> out;
  const Json& list = f.array(o, "arguments", where);
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string w = where + ".arguments[" + std::to_string(i) + "]";
    ArgumentRecord a;
    a.name = f.text(list[i], "name", w);
    a.declaredType = f.text(list[i], "type", w);
    a.source = f.named(list[i], "source", w, argSourceName, "source");
    a.sourceDetail = f.text(list[i], "detail", w);
    a.value = valueSummaryFromJson(f, f.at(list[i], "value", w), w + ".value");
    out.push_back(std::move(a));
  }
  return out;
}

NodeRecord nodeRecordFromJson(const JsonFields& f, const Json& o, const std::string& where) {
  NodeRecord r;
  r.executed = f.flag(o, "executed", where);
  r.schema = f.text(o, "schema", where);
  // Older captures have no "does_work": an op's record was the one with a schema then.
  r.doesWork = o.is_object() && o.contains("does_work") ? f.flag(o, "does_work", where) : !r.schema.empty();
  r.arguments = argumentsFromJson(f, o, where);
  const Json& outputs = f.array(o, "outputs", where);
  for (std::size_t i = 0; i < outputs.size(); ++i)
    r.outputs.push_back(valueSummaryFromJson(f, outputs[i], where + ".outputs[" + std::to_string(i) + "]"));
  r.microseconds = f.number(o, "us", where);
  r.cached = o.contains("cached") && f.flag(o, "cached", where);  // older captures: computed
  return r;
}

Diagnosis diagnosisFromJson(const JsonFields& f, const Json& o, const std::string& where) {
  Diagnosis d;
  d.kind = f.named(o, "class", where, diagnosisClassName, "class of diagnosis");
  d.nodeName = f.text(o, "node", where);
  d.opType = f.text(o, "op", where);
  d.schema = f.text(o, "schema", where);
  d.message = f.text(o, "message", where);
  d.explanation = f.text(o, "explanation", where);
  d.arguments = argumentsFromJson(f, o, where);
  d.stackTrace = f.text(o, "stack", where);
  // older captures have no traceback
  if (o.is_object() && o.contains("traceback")) d.traceback = f.text(o, "traceback", where);
  return d;
}

}  // namespace torchir
