#include "TensorBridge.h"

#include <ATen/ATen.h>
#include <c10/core/alignment.h>

#include <cstring>
#include <stdexcept>

#include "FilePages.h"

namespace torchir {

at::Tensor toAten(const TensorData& t) {
  if (const std::string problem = t.layoutProblem(); !problem.empty())
    throw std::invalid_argument("tensor from " + (t.storage ? t.storage->origin : std::string("nowhere")) + " " + problem);
  const auto options = at::TensorOptions().dtype(static_cast<at::ScalarType>(t.dtype)).device(at::kCPU);
  if (t.numel() == 0) return at::empty(t.sizes, options);
  if (!t.hasData()) throw std::invalid_argument("tensor from " + t.storage->origin + " has no data");
  const auto item = static_cast<int64_t>(dtypeItemSize(t.dtype));
  const auto elements = static_cast<int64_t>(t.storage->nbytes) / item;
  if (!bridgesWithoutCopy(t)) {
    // A storage at an address c10's allocator would never give (a safetensors tensor mapped at
    // byte 10,840 of its file): vectorized and oneDNN kernels take other paths on it and round
    // differently than eager, whose loaders copy into aligned tensors. Copy it, as eager does.
    at::Tensor aligned = at::empty({elements}, options);
    std::memcpy(aligned.data_ptr(), t.storage->data, static_cast<std::size_t>(elements * item));
    return aligned.as_strided(t.sizes, t.strides, t.storageOffset);
  }
  auto keep = new std::shared_ptr<const Storage>(t.storage);
  void* data = const_cast<std::byte*>(t.storage->data);
  noteFilePages(*t.storage);  // a Python op given it maps the file's pages
  // The whole storage, then the view the archive recorded (strides and offset apply to it).
  return at::from_blob(
             data, {elements},
             [keep](void*) {
               forgetFilePages(**keep);
               delete keep;
             },
             options)
      .as_strided(t.sizes, t.strides, t.storageOffset);
}

bool bridgesWithoutCopy(const TensorData& t) {
  return t.numel() == 0 || !t.storage || reinterpret_cast<std::uintptr_t>(t.storage->data) % c10::gAlignment == 0;
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

TensorData viewOfAten(const at::Tensor& tensor) {
  if (!tensor.defined() || !tensor.device().is_cpu() || !tensor.is_contiguous() || tensor.is_conj() || tensor.is_neg())
    return fromAten(tensor);
  auto kept = std::make_shared<at::Tensor>(tensor.detach());
  TensorData t;
  t.dtype = static_cast<DType>(kept->scalar_type());
  t.sizes = kept->sizes().vec();
  t.strides = TensorData::contiguousStrides(t.sizes);
  const std::size_t n = static_cast<std::size_t>(kept->numel()) * kept->element_size();
  const auto* data = n ? static_cast<const std::byte*>(kept->const_data_ptr()) : nullptr;
  t.storage = std::make_shared<Storage>(Storage{data, n, kept, "computed"});
  return t;
}

}  // namespace torchir
