#pragma once
// The one JSON form of what a run records (a value's summary, a call's arguments, a node's record)
// and of a diagnosis: captures, `torchir run --json` and reports write it with these, and captures
// read it back with them.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "exec/ExecTypes.h"
#include "formats/JsonFields.h"

namespace torchir {

nlohmann::json valueSummaryJson(const ValueSummary& v);
nlohmann::json argumentsJson(const std::vector<ArgumentRecord>& arguments);
nlohmann::json nodeRecordJson(const NodeRecord& r);
nlohmann::json diagnosisJson(const Diagnosis& d);

/// Read back, every field checked (JsonFields::fail names the file and where).
ValueSummary valueSummaryFromJson(const JsonFields& f, const nlohmann::json& o, const std::string& where);
/// The "arguments" list of `o`.
std::vector<ArgumentRecord> argumentsFromJson(const JsonFields& f, const nlohmann::json& o, const std::string& where);
NodeRecord nodeRecordFromJson(const JsonFields& f, const nlohmann::json& o, const std::string& where);
Diagnosis diagnosisFromJson(const JsonFields& f, const nlohmann::json& o, const std::string& where);

}  // namespace torchir
