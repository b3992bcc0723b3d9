// The one-pass per-tensor quantize and dequantize against the ATen compositions they stand for
// (torch/ao/quantization/fx/_decomposed.py), on the values where the two could part: ties of the
// rounding, both ends of the clamp, floats at and past 2^23, subnormals, signed zeros, infinities,
// int32 codes past 2^24. Where they decline (a NaN, a non-contiguous input) nothing is made.
#include <ATen/ATen.h>

#include <QtTest>
#include <cmath>
#include <limits>
#include <vector>

#include "aten/OnePassQuantize.h"

using namespace torchir;

namespace {

at::Tensor hardFloats() {
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> v = {0.5f, 1.5f, 2.5f, -0.5f, -1.5f, -2.5f, 0.49999997f, -0.0f, 0.0f, 1e-45f, -1e-45f,
                          8388607.5f, 8388608.0f, 8388609.0f, -8388607.5f, 16777216.0f, 3e9f, -3e9f, inf, -inf,
                          126.5f, 127.5f, 128.5f, -127.5f, -128.5f, -129.5f, 254.5f, 255.5f, 32767.5f};
  for (int i = -2000; i <= 2000; ++i) v.push_back(static_cast<float>(i) * 0.125f);  // ties after the scale
  at::Tensor random = at::randn({4096}) * 300;
  at::Tensor t = at::from_blob(v.data(), {static_cast<int64_t>(v.size())}, at::kFloat).clone();
  return at::cat({t, random});
}

at::Tensor composedQuantize(const at::Tensor& x, double inverse, int64_t zp, int64_t lo, int64_t hi, at::ScalarType d) {
  return at::clamp(at::round(x * at::Scalar(inverse)) + zp, lo, hi).to(d);
}

}  // namespace

class OnePassQuantizeTest : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void quantizeIsTheComposition_data() {
    QTest::addColumn<double>("scale");
    QTest::addColumn<int>("zeroPoint");
    QTest::addColumn<int>("dtype");
    QTest::newRow("int8 s=0.5") << 0.5 << 0 << static_cast<int>(at::kChar);
    QTest::newRow("int8 s=0.1 zp=-3") << 0.1 << -3 << static_cast<int>(at::kChar);
    QTest::newRow("uint8 s=0.0285691 zp=132") << 0.02856910601258278 << 132 << static_cast<int>(at::kByte);
    QTest::newRow("int16 s=1/3") << 1.0 / 3 << 7 << static_cast<int>(at::kShort);
    QTest::newRow("int32 s=1e-3") << 1e-3 << -5 << static_cast<int>(at::kInt);
    QTest::newRow("int8 s=1") << 1.0 << 0 << static_cast<int>(at::kChar);
  }
  void quantizeIsTheComposition() {
    QFETCH(double, scale);
    QFETCH(int, zeroPoint);
    QFETCH(int, dtype);
    const auto d = static_cast<at::ScalarType>(dtype);
    const auto [lo, hi] = d == at::kChar    ? std::pair<int64_t, int64_t>{-128, 127}
                          : d == at::kByte  ? std::pair<int64_t, int64_t>{0, 255}
                          : d == at::kShort ? std::pair<int64_t, int64_t>{-32768, 32767}
                                            : std::pair<int64_t, int64_t>{-(1 << 24), 1 << 24};
    const at::Tensor x = hardFloats();
    const double inverse = 1.0 / scale;
    const auto fast = quantizeInOnePass(x, inverse, zeroPoint, lo, hi, d);
    QVERIFY(fast.has_value());
    const at::Tensor composed = composedQuantize(x, inverse, zeroPoint, lo, hi, d);
    QCOMPARE(fast->scalar_type(), composed.scalar_type());
    QCOMPARE(fast->sizes().vec(), composed.sizes().vec());
    QVERIFY(at::equal(*fast, composed));
  }

  void dequantizeIsTheComposition() {
    for (const auto d : {at::kChar, at::kByte, at::kShort, at::kInt}) {
      at::Tensor codes = d == at::kInt ? at::randint(-(1LL << 30), 1LL << 30, {8192}, at::TensorOptions(d))
                                       : at::randint(-128, 128, {8192}, at::TensorOptions(at::kInt)).to(d);
      for (const double scale : {0.02856910601258278, 1.0 / 3, 1e-7})
        for (const int64_t zp : {0, -3, 132}) {
          const auto fast = dequantizeInOnePass(codes, scale, zp);
          QVERIFY(fast.has_value());
          QVERIFY(at::equal(*fast, (codes.to(at::kFloat) - zp) * scale));
        }
    }
  }

  void declinesWhatItCannotPromise() {
    at::Tensor x = hardFloats();
    x[3] = std::numeric_limits<float>::quiet_NaN();
    QVERIFY(!quantizeInOnePass(x, 2.0, 0, -128, 127, at::kChar));
    QVERIFY(!quantizeInOnePass(hardFloats().to(at::kDouble), 2.0, 0, -128, 127, at::kChar));
    QVERIFY(!quantizeInOnePass(at::randn({8, 8}).t(), 2.0, 0, -128, 127, at::kChar));
    QVERIFY(!quantizeInOnePass(hardFloats(), 2.0, 0, -128, 127, at::kFloat));
    QVERIFY(!quantizeInOnePass(hardFloats(), 2.0, 1LL << 40, -128, 127, at::kChar));
    QVERIFY(!dequantizeInOnePass(at::randint(0, 9, {8, 8}, at::TensorOptions(at::kByte)).t(), 0.5, 0));
    QVERIFY(!dequantizeInOnePass(at::randn({8}), 0.5, 0));
  }
};

QTEST_GUILESS_MAIN(OnePassQuantizeTest)
#include "OnePassQuantizeTest.moc"
