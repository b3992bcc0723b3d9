// A whole ETRecord (zip, marker, the Edge program's JSON and pickles, the debug handle, delegate
// and output count maps, representative inputs).
#include "FuzzInput.h"
#include "executorch/EtRecord.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  torchir::fuzz::MemoryFile file(data, size);
  torchir::fuzz::expectLoadErrorOrSuccess([&] {
    const torchir::EtRecord r = torchir::readEtRecord(file.path());
    const auto nodes = torchir::nodesByDeviceHandle(*r.edge);
    for (const auto& [id, handles] : r.debugHandles)
      for (int h : handles) (void)nodes.count(h);
  });
  return 0;
}
