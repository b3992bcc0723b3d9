// ExecuTorch's Edge dialect writes a copy, a clone or an empty tensor with its dim order instead of
// a memory format (dim_order_ops::_to_dim_order_copy, _clone_dim_order, _empty_dim_order), ops
// that only ExecuTorch's Python defines (executorch/exir/passes/dim_order_ops_registry.py). They
// are registered here with its schemas and run as its Python does: the ATen op with the dim order
// read as a memory format.
#include <ATen/ATen.h>
#include <torch/library.h>

#include <optional>
#include <string>

namespace torchir {
namespace {

using at::Tensor;

/// executorch.exir.dim_order_utils.get_memory_format: none keeps the format, 0..n-1 is contiguous,
/// 0,2,3,1 of a 4-d tensor is channels last; any other order is refused, as there.
at::MemoryFormat memoryFormat(at::OptionalIntArrayRef dimOrder) {
  if (!dimOrder) return at::MemoryFormat::Preserve;
  const auto order = *dimOrder;
  bool contiguous = true;
  for (std::size_t i = 0; i < order.size(); ++i) contiguous = contiguous && order[i] == static_cast<int64_t>(i);
  if (contiguous) return at::MemoryFormat::Contiguous;
  if (order.size() == 4 && order[0] == 0 && order[1] == 2 && order[2] == 3 && order[3] == 1) return at::MemoryFormat::ChannelsLast;
  std::string text;
  for (std::size_t i = 0; i < order.size(); ++i) text += (i ? ", " : "") + std::to_string(order[i]);
  TORCH_CHECK(false, "Failed to map a given dim_order: [", text, "] to a torch.memory_format");
}

Tensor toDimOrderCopy(const Tensor& self, std::optional<at::ScalarType> dtype, std::optional<at::Layout> layout,
                      std::optional<at::Device> device, std::optional<bool> pinMemory, bool nonBlocking,
                      at::OptionalIntArrayRef dimOrder) {
  return at::_to_copy(self, dtype, layout, device, pinMemory, nonBlocking, memoryFormat(dimOrder));
}

Tensor emptyDimOrder(at::IntArrayRef size, std::optional<at::ScalarType> dtype, std::optional<at::Layout> layout,
                     std::optional<at::Device> device, std::optional<bool> pinMemory, at::OptionalIntArrayRef dimOrder) {
  return at::empty(size, dtype, layout, device, pinMemory, memoryFormat(dimOrder));
}

Tensor cloneDimOrder(const Tensor& self, bool /*nonBlocking*/, at::OptionalIntArrayRef dimOrder) {
  return at::clone(self, memoryFormat(dimOrder));
}

}  // namespace

TORCH_LIBRARY_FRAGMENT(dim_order_ops, m) {
  m.def(
      "_to_dim_order_copy(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, "
      "bool? pin_memory=None, bool non_blocking=False, int[]? dim_order=None) -> Tensor");
  m.def(
      "_empty_dim_order(int[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, "
      "bool? pin_memory=None, int[]? dim_order=None) -> Tensor");
  m.def("_clone_dim_order(Tensor self, *, bool non_blocking=False, int[]? dim_order=None) -> Tensor");
}

TORCH_LIBRARY_IMPL(dim_order_ops, CompositeExplicitAutograd, m) {
  m.impl("_to_dim_order_copy", TORCH_FN(toDimOrderCopy));
  m.impl("_empty_dim_order", TORCH_FN(emptyDimOrder));
  m.impl("_clone_dim_order", TORCH_FN(cloneDimOrder));
}

}  // namespace torchir
