#pragma once
// TensorData (ours, torch-free) to at::Tensor and back. Only for code inside libtorchir_aten.
#include <ATen/Tensor.h>

#include "program/TensorData.h"

namespace torchir {

/// A tensor viewing the same bytes; the storage stays alive as long as the tensor. Read-only
/// memory (a mapped file) must not be written: callers clone what an op may mutate.
at::Tensor toAten(const TensorData& t);
/// Whether toAten views `t`'s own bytes (false: it copies them to an aligned address).
bool bridgesWithoutCopy(const TensorData& t);
/// An owning copy of a CPU tensor's elements, contiguous.
TensorData fromAten(const at::Tensor& t);
/// The same bytes without a copy where they allow (a CPU tensor in row-major order), kept alive by
/// the TensorData; else fromAten's copy. For reading at once: the run may write the tensor later.
TensorData viewOfAten(const at::Tensor& t);

}  // namespace torchir
