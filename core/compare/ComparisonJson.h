#pragma once
// The one written form of a node's comparison and of the numbers in it, for every file that holds
// them: captures, `torchir compare --json` and `--csv`, the studio's saved comparison.
#include <nlohmann/json.hpp>
#include <string>

#include "compare/PairedRun.h"
#include "formats/JsonFields.h"

namespace torchir {

/// A number where JSON has none for infinities and NaN: those are the strings Python's float()
/// reads, "inf", "-inf" and "nan" (never null, which reads as "missing").
nlohmann::json realJson(double x);
/// The same for text (a CSV cell): finite numbers to 9 significant digits, else "inf", "-inf", "nan".
std::string realText(double x);

/// A node's metrics and verdicts, without its names (the writer adds those it has).
nlohmann::json nodeComparisonJson(const NodeComparison& c);
/// Read back, every field checked; `a` and `b` stay kNone.
NodeComparison nodeComparisonFromJson(const JsonFields& f, const nlohmann::json& o, const std::string& where);

}  // namespace torchir
