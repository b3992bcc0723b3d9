// What ATen gets from our tensors: a storage at an address c10's allocator would give is viewed in
// place; one that is not (a .safetensors tensor mapped wherever its file puts it) is copied to an
// aligned one, since vectorized and oneDNN kernels round differently on unaligned data. A view
// whose layout cannot be right is refused, not divided by a zero element size.
#include <ATen/ATen.h>
#include <c10/core/alignment.h>

#include <QtTest>
#include <cstring>
#include <vector>

#include "aten/TensorBridge.h"

using namespace torchir;

namespace {

bool aligned(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % c10::gAlignment == 0; }

/// A float32 tensor of `sizes` over `count` floats 0, 1, 2, ... starting `shift` bytes after an
/// aligned address of `buffer`.
TensorData floats(std::vector<std::byte>& buffer, std::size_t shift, std::size_t count, std::vector<int64_t> sizes,
                  std::vector<int64_t> strides, int64_t offset = 0) {
  buffer.assign(count * 4 + 2 * c10::gAlignment, std::byte{0});
  auto* base = buffer.data();
  while (!aligned(base)) ++base;
  base += shift;
  for (std::size_t i = 0; i < count; ++i) {
    const float f = static_cast<float>(i);
    std::memcpy(base + 4 * i, &f, 4);
  }
  TensorData t;
  t.dtype = DType::Float32;
  t.sizes = std::move(sizes);
  t.strides = std::move(strides);
  t.storageOffset = offset;
  t.storage = std::make_shared<Storage>(Storage{base, count * 4, nullptr, "test"});
  return t;
}

}  // namespace

class TensorBridgeTest : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void alignedStorageIsViewedInPlace() {
    std::vector<std::byte> buffer;
    const TensorData t = floats(buffer, 0, 24, {4, 6}, {6, 1});
    const at::Tensor a = toAten(t);
    QCOMPARE(a.data_ptr(), static_cast<const void*>(t.storage->data));
    QCOMPARE(a.sum().item<float>(), 276.0f);
  }

  void misalignedStorageIsCopiedToAnAlignedOne_data() {
    QTest::addColumn<int>("shift");
    for (int shift : {4, 8, 24, 36, 60}) QTest::newRow(qPrintable(QString::number(shift))) << shift;
  }
  void misalignedStorageIsCopiedToAnAlignedOne() {
    QFETCH(int, shift);
    std::vector<std::byte> buffer;
    const TensorData t = floats(buffer, static_cast<std::size_t>(shift), 24, {4, 6}, {6, 1});
    const at::Tensor a = toAten(t);
    QVERIFY(aligned(a.storage().data()));
    QVERIFY(a.data_ptr() != static_cast<const void*>(t.storage->data));
    QCOMPARE(a.sizes().vec(), (std::vector<int64_t>{4, 6}));
    for (int64_t i = 0; i < 24; ++i) QCOMPARE(a.view(-1)[i].item<float>(), static_cast<float>(i));
  }

  void viewOnAMisalignedStorageKeepsItsOffsetAndStrides() {
    std::vector<std::byte> buffer;
    // the transpose of a 3x4 block starting at element 2
    const TensorData t = floats(buffer, 8, 14, {4, 3}, {1, 4}, 2);
    const at::Tensor a = toAten(t);
    QVERIFY(aligned(a.storage().data()));
    QCOMPARE(a.storage_offset(), int64_t{2});
    QCOMPARE(a.strides().vec(), (std::vector<int64_t>{1, 4}));
    for (int64_t r = 0; r < 4; ++r)
      for (int64_t c = 0; c < 3; ++c) QCOMPARE(a[r][c].item<float>(), static_cast<float>(2 + r + 4 * c));
  }

  void impossibleLayoutIsRefused() {
    std::vector<std::byte> buffer;
    TensorData t = floats(buffer, 0, 4, {4}, {1});
    t.dtype = DType::Unknown;  // element size 0
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, toAten(t));
    t = floats(buffer, 0, 4, {8}, {1});  // more than its storage holds
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, toAten(t));
  }
};

QTEST_APPLESS_MAIN(TensorBridgeTest)
#include "TensorBridgeTest.moc"
