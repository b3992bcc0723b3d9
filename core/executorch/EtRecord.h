#pragma once
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "program/Program.h"

namespace torchir {

/// An ExecuTorch ETRecord (a zip written by `ETRecord.save`): the Edge program of one method as
/// torch.export serialized it, before delegation, with its weights; the maps from the .pte's
/// instructions to that program's nodes (their `debug_handle`); and the inputs it was run on.
struct EtRecord {
  std::string path;
  std::string method;
  std::vector<std::string> methods;  // every method the record holds an Edge program of
  /// Its targets shown as ATen's ("aten.linear.default"); its sample inputs are the record's
  /// representative inputs, where it has them.
  std::shared_ptr<const Program> edge;
  bool hasAtenProgram = false;       // the program as exported, before the Edge dialect
  /// instruction id (chain 0) -> the debug handles of the Edge nodes it runs (sorted, each once)
  std::map<int, std::vector<int>> debugHandles;
  /// instruction id -> the backend of the delegate it calls ("XnnpackBackend")
  std::map<int, std::string> delegates;
  /// instruction id -> how many of the values a delegate call logs are its outputs (the last ones)
  std::map<int, int> outputCounts;

};

/// The call nodes of `program` by their ExecuTorch debug handle (NodeOrigin::deviceHandle), in
/// program order.
std::map<int, std::vector<NodeId>> nodesByDeviceHandle(const Program& program);

/// Reads the ETRecord at `path`, for `method` ("" picks "forward", else the first). Without
/// `withProgram`, only its maps (edge stays null): for a program already read.
/// Throws LoadError with one line naming the file and the problem.
EtRecord readEtRecord(const std::string& path, const std::string& method = "", bool withProgram = true);

}  // namespace torchir
