#pragma once
// A device comparison as every view of a comparison keeps it (compare/ComparisonRecord): the
// studio's table, graph and tensor dock, the HTML report.
#include <memory>
#include <string>

#include "compare/ComparisonRecord.h"
#include "compare/ComparisonReport.h"
#include "device/DeviceComparison.h"

namespace torchir {

class Debugger;

/// One NodeComparison per compared row, on the Edge node it is paired with: the device is the
/// run under test (a), the engine's float32 run of the Edge program the reference (b); a row's
/// own error is the device against its Edge nodes run on the device's own inputs, and the row
/// whose kernel is wrong starts the divergence. `reference` names it ("device run x.etdp").
std::shared_ptr<ComparisonRecord> deviceComparisonRecord(const DeviceComparison& c, std::shared_ptr<const Program> edge,
                                                         std::string reference);

/// Shows `c` as `debugger`'s comparison (Debugger::adoptComparison): the record, and per node the
/// device's value; returns the record.
std::shared_ptr<const ComparisonRecord> adoptDeviceComparison(Debugger& debugger, const DeviceComparison& c,
                                                              std::string reference);

/// The instructions' p50 latencies, slowest first, as a chart of the HTML report.
ReportChart deviceLatencyChart(const DeviceComparison& c, const Program& edge);

}  // namespace torchir
