#pragma once
// Which tensors of this process are the mapped pages of a file (a .pt2's or a safetensors file's
// weights, bridged without a copy), so that the Python worker can map the same pages from the
// file instead of getting a copy. Only inside libtorchir_aten.
#include <cstddef>
#include <optional>

#include "program/TensorData.h"

namespace torchir {

/// Notes that `storage`'s bytes are bridged to ATen as they are, until forgetFilePages; nothing
/// for a storage that is no file's pages.
void noteFilePages(const Storage& storage);
void forgetFilePages(const Storage& storage);

struct FilePlace {
  int fd;  // a new descriptor of the file: the caller closes it
  std::size_t offset;
};
/// Where bytes [p, p + length) lie in a file, when they lie in bytes noted above.
std::optional<FilePlace> filePlace(const void* p, std::size_t length);

}  // namespace torchir
