// `data/weights/model_weights_config.json` (and the constants config, read the same way) inside a
// .pt2 whose program is empty and whose records are one 64-byte and one empty storage.
#include "FuzzInput.h"
#include "StoredZip.h"
#include "formats/Pt2Reader.h"

namespace {
const char* kEmptyProgram =
    R"({"schema_version": {"major": 8, "minor": 13}, "graph_module": {"graph": {"inputs": [], "outputs": [],)"
    R"( "nodes": [], "tensor_values": {}}, "signature": {"input_specs": [], "output_specs": []}}})";
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  const std::string config(reinterpret_cast<const char*>(data), size);
  const std::string zip = torchir::fuzz::storedZip({{"m/models/model.json", kEmptyProgram},
                                                    {"m/data/weights/model_weights_config.json", config},
                                                    {"m/data/weights/weight_0", std::string(64, '\x01')},
                                                    {"m/data/weights/weight_1", ""}});
  torchir::fuzz::MemoryFile file(reinterpret_cast<const uint8_t*>(zip.data()), zip.size());
  torchir::fuzz::expectLoadErrorOrSuccess([&] {
    for (const auto& [name, t] : torchir::readPt2(file.path()).weights)
      if (t.hasData()) t.contiguousBytes();
  });
  return 0;
}
