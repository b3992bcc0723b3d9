#pragma once
// Where an ExecuTorch ETRecord (a zip written by ETRecord.save) keeps its Edge programs, so that
// every reader of programs opens one as it opens a .pt2; the rest of the record (debug handle
// maps, representative inputs) is read by core/executorch.
#include <cstddef>
#include <string>
#include <vector>

#include "program/Program.h"

namespace torchir {

class Pt2Archive;

/// True when the bytes start as an ExecuTorch program (.pte) does: "ET" and two digits at byte 4.
bool looksLikePte(const std::byte* head, std::size_t size);

/// True when the archive is an ETRecord (it holds the ETRECORD_V0 marker).
bool isEtRecord(const Pt2Archive& archive);
/// The methods it holds an Edge program of ("forward"), in record order.
std::vector<std::string> etRecordMethods(const Pt2Archive& archive);
/// `method` itself, or for "" "forward" when there is one, else the first. Throws LoadError when
/// the record holds no Edge program or not that method's.
std::string etRecordMethod(const Pt2Archive& archive, const std::string& method);
/// Reads the Edge program of `method` (a name etRecordMethod gave) into `program`: its graph,
/// weights and inputs (the representative inputs the device ran on, else the export's example
/// inputs), with source format "etrecord".
void readEtRecordProgram(const Pt2Archive& archive, const std::string& method, Program& program);

}  // namespace torchir
