// The zip container (Pt2Archive) over arbitrary bytes: directory, records, inflation, CRCs.
#include <memory>

#include "FuzzInput.h"
#include "formats/Pt2Archive.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  torchir::fuzz::expectLoadErrorOrSuccess([&] {
    auto bytes = std::make_shared<torchir::Storage>(
        torchir::Storage{reinterpret_cast<const std::byte*>(data), size, nullptr, "fuzz.zip"});
    torchir::Pt2Archive archive(bytes);
    for (const auto& record : archive.records()) {
      torchir::fuzz::expectLoadErrorOrSuccess([&] { archive.text(record); });
      torchir::fuzz::expectLoadErrorOrSuccess([&] { archive.storage(record, 1 << 20); });
    }
  });
  return 0;
}
