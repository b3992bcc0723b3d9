// The restricted unpickler over a raw pickle (torch.save's data.pkl): every persistent id gets
// one 64-byte storage, so tensor views on it are checked against real bytes.
#include <array>

#include "FuzzInput.h"
#include "formats/Unpickler.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  static std::array<std::byte, 64> bytes{};
  auto storage = std::make_shared<torchir::Storage>(torchir::Storage{bytes.data(), bytes.size(), nullptr, "fuzz/data/0"});
  torchir::fuzz::expectLoadErrorOrSuccess([&] {
    torchir::unpickle(reinterpret_cast<const std::byte*>(data), size, "fuzz.pt", "data.pkl",
                      [&](const torchir::PickleValue&) {
                        auto s = std::make_shared<torchir::PickleValue>();
                        s->kind = torchir::PickleValue::Kind::Storage;
                        s->dtype = torchir::DType::Float32;
                        s->storage = storage;
                        return s;
                      });
  });
  return 0;
}
