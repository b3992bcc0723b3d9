#pragma once
#include <string>

#include "program/Program.h"

namespace torchir {

/// Reads a `.pt2` written by torch.export.save: the program, its weights and constants
/// (memory-mapped, shared storages kept shared) and the layout it was written in
/// (`program.source.layout`): "pt2-archive" (torch >= 2.9), "pt2-archive (pickled weights, torch 2.8)"
/// or "flat zip (torch 2.6/2.7)"; the older two best-effort.
/// With a cache, the graph of a `models/model.json` is looked up there first (ProgramCache).
/// Throws LoadError with one line naming the file and the problem.
class ProgramCache;
Program readPt2(const std::string& path, ProgramCache* cache = nullptr);

/// The model name of a program whose JSON names none: its file's name up to the first dot.
std::string modelNameOfPath(const std::string& path);

class Pt2Archive;
/// The records of one `torch.export` SerializedArtifact stored in a zip: the program's JSON and
/// the torch.save pickles of its state dict, constants and example inputs (torch 2.6/2.7's flat
/// zip; an ExecuTorch ETRecord's programs).
struct SerializedArtifactRecords {
  std::string program, stateDict, constants, exampleInputs;
};
/// Reads those records into `program` (graph, weights, sample inputs; a missing pickle is none).
/// Throws LoadError naming the archive.
void readSerializedArtifact(const Pt2Archive& archive, const SerializedArtifactRecords& records, Program& program);

}  // namespace torchir
