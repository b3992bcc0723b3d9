#include "TensorBridge.h"

#include <ATen/ATen.h>

#include <cstring>

namespace torchir {

at::Tensor toAten(const TensorData& t) {
  const auto options = at::TensorOptions().dtype(static_cast<at::ScalarType>(t.dtype)).device(at::kCPU);
  if (t.numel() == 0) return at::empty(t.sizes, options);
  auto keep = new std::shared_ptr<const Storage>(t.storage);
  void* data = const_cast<std::byte*>(t.storage->data);
  // The whole storage, then the view the archive recorded (strides and offset apply to it).
  const auto elements = static_cast<int64_t>(t.storage->nbytes / dtypeItemSize(t.dtype));
  return at::from_blob(
             data, {elements}, [keep](void*) { delete keep; }, options)
      .as_strided(t.sizes, t.strides, t.storageOffset);
}

TensorData fromAten(const at::Tensor& tensor) {
  const at::Tensor c = tensor.detach().to(at::kCPU).contiguous();
  TensorData t;
  t.dtype = static_cast<DType>(c.scalar_type());
  t.sizes = c.sizes().vec();
  t.strides = TensorData::contiguousStrides(t.sizes);
  const std::size_t n = c.numel() * c.element_size();
  auto bytes = std::make_shared<std::vector<std::byte>>(n);
  if (n) std::memcpy(bytes->data(), c.data_ptr(), n);
  t.storage = std::make_shared<Storage>(Storage{bytes->data(), bytes->size(), bytes, "computed"});
  return t;
}

}  // namespace torchir
