// The tensor viewer's parts on real tensors: statistics, the 2-D slice of an N-D strided view, and
// the viewer itself (statistics off the GUI thread, save round trip, axes).
#include <QAbstractItemModelTester>
#include <QClipboard>
#include <QComboBox>
#include <QGuiApplication>
#include <QLabel>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QThreadPool>
#include <QtTest>
#include <optional>
#include <cmath>
#include <cstring>

#include "Fixtures.h"
#include "exec/AtenBackend.h"
#include "exec/Session.h"
#include "panels/TensorPlots.h"
#include "panels/TensorSliceModel.h"
#include "panels/TensorStats.h"
#include "panels/TensorViewer.h"
#include "formats/ProgramLoader.h"
#include "formats/Safetensors.h"
#include "program/TensorValues.h"
#include "session/BackgroundPool.h"

using torchir::DType;
using torchir::TensorData;
using torchir::ui::TensorSliceModel;
using torchir::ui::TensorViewer;

namespace {

template <class T>
TensorData owning(DType dtype, std::vector<int64_t> sizes, const std::vector<T>& values) {
  auto bytes = std::make_shared<std::vector<std::byte>>(values.size() * sizeof(T));
  if (!values.empty()) std::memcpy(bytes->data(), values.data(), bytes->size());
  TensorData t;
  t.dtype = dtype;
  t.strides = TensorData::contiguousStrides(sizes);
  t.sizes = std::move(sizes);
  t.storage = std::make_shared<torchir::Storage>(torchir::Storage{bytes->data(), bytes->size(), bytes, "test"});
  return t;
}

uint16_t toHalf(float f) {  // exact for the small integers and specials used here
  if (std::isnan(f)) return 0x7e00;
  if (std::isinf(f)) return f > 0 ? 0x7c00 : 0xfc00;
  if (f == 0) return 0;
  const uint16_t sign = f < 0 ? 0x8000 : 0;
  int e;
  const float m = std::frexp(std::abs(f), &e);  // f = m * 2^e, m in [0.5, 1)
  return static_cast<uint16_t>(sign | ((e - 1 + 15) << 10) | static_cast<uint16_t>((m * 2 - 1) * 1024));
}

const std::vector<float> kSpecials{1, -2, 0, NAN, INFINITY, 3, 0, -INFINITY};

void checkSpecialStats(const torchir::ui::TensorStats& s) {
  QCOMPARE(s.numel, int64_t(8));
  QCOMPARE(s.nanCount, int64_t(1));
  QCOMPARE(s.infCount, int64_t(2));
  QCOMPARE(s.zeroCount, int64_t(2));
  QCOMPARE(s.finiteCount, int64_t(5));
  QCOMPARE(s.min, -2.0);
  QCOMPARE(s.max, 3.0);
  QVERIFY(std::abs(s.mean - 0.4) < 1e-12);
  QVERIFY(std::abs(s.std - std::sqrt(3.3)) < 1e-12);  // torch.std: Bessel's correction
}

// A [6, 4, 5] view of a [4, 5, 6] buffer holding 0..119: permute(2, 0, 1), non-contiguous.
TensorData permutedView() {
  std::vector<float> values(120);
  for (int i = 0; i < 120; ++i) values[static_cast<std::size_t>(i)] = static_cast<float>(i);
  TensorData t = owning(DType::Float32, {4, 5, 6}, values);
  t.sizes = {6, 4, 5};
  t.strides = {1, 30, 6};
  return t;
}

torchir::Program load(const char* name) {
  return torchir::loadProgram(torchir::test::fixturePath(QLatin1String(name), QStringLiteral(".pt2")).toStdString());
}

/// resnet18's first convolution's output, from a real engine run (a strided 4-D float32 tensor).
std::optional<torchir::TensorData> firstConvOutput() {
  const torchir::Program program = load("resnet18");
  auto session = torchir::atenBackend().createSession(program);
  if (!session->setInputs(program.sampleInputs).ok()) return std::nullopt;
  const torchir::NodeId conv = session->position();
  if (session->step().reason != torchir::StopReason::Stepped) return std::nullopt;
  return session->tensor(program.node(conv).outputs.at(0));
}

}  // namespace

class TestTensor : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() { TORCHIR_REQUIRE_FIXTURES(); }

  void statsCountNanInfAndZeros() {
    checkSpecialStats(torchir::ui::computeTensorStats(owning(DType::Float32, {8}, kSpecials)));
    std::vector<uint16_t> half;
    for (float f : kSpecials) half.push_back(toHalf(f));
    checkSpecialStats(torchir::ui::computeTensorStats(owning(DType::Float16, {8}, half)));
    std::vector<double> doubles(kSpecials.begin(), kSpecials.end());
    checkSpecialStats(torchir::ui::computeTensorStats(owning(DType::Float64, {2, 4}, doubles)));
    // The same elements through a strided view: every other element of a 16-element buffer.
    std::vector<float> spread(16, 99.f);
    for (std::size_t i = 0; i < kSpecials.size(); ++i) spread[2 * i] = kSpecials[i];
    TensorData strided = owning(DType::Float32, {16}, spread);
    strided.sizes = {8};
    strided.strides = {2};
    QVERIFY(!strided.isContiguous());
    checkSpecialStats(torchir::ui::computeTensorStats(strided));

    const auto hist = torchir::ui::tensorHistogram(owning(DType::Float32, {8}, kSpecials), 5, -2, 3);
    QCOMPARE(hist, (std::vector<int64_t>{1, 0, 2, 1, 1}));  // -2 | 0, 0 | 1 | 3 (the last bin holds hi)
  }

  void statsOfIntegersAndEmptyTensors() {
    const auto s = torchir::ui::computeTensorStats(owning<int64_t>(DType::Int64, {2, 2}, {4, -1, 0, 7}));
    QCOMPARE(s.min, -1.0);
    QCOMPARE(s.max, 7.0);
    QCOMPARE(s.mean, 2.5);
    QCOMPARE(s.zeroCount, int64_t(1));
    const auto empty = torchir::ui::computeTensorStats(owning<float>(DType::Float32, {0, 3}, {}));
    QCOMPARE(empty.numel, int64_t(0));
    QVERIFY(std::isnan(empty.mean));
  }

  void statsOfARealActivationMatchElementAsDouble() {
    const auto tensor = firstConvOutput();
    QVERIFY(tensor);
    const auto s = torchir::ui::computeTensorStats(*tensor);
    double lo = INFINITY, hi = -INFINITY, sum = 0;
    for (int64_t i = 0; i < tensor->numel(); ++i) {
      const double v = torchir::elementAsDouble(*tensor, i);
      lo = std::min(lo, v), hi = std::max(hi, v), sum += v;
    }
    QCOMPARE(s.numel, tensor->numel());
    QCOMPARE(s.min, lo);
    QCOMPARE(s.max, hi);
    QVERIFY(std::abs(s.mean - sum / double(tensor->numel())) < 1e-9 * std::max(1.0, std::abs(s.mean)));
  }

  void sliceOfAStridedTensorReadsTheRightElements() {
    TensorSliceModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    const TensorData t = permutedView();
    model.setTensor(t);
    // Default: the last two dims.
    QCOMPARE(model.rowDim(), 1);
    QCOMPARE(model.colDim(), 2);
    auto check = [&](int fixedDim) {
      for (int r = 0; r < model.rowCount(); ++r)
        for (int c = 0; c < model.columnCount(); ++c) {
          int64_t idx[3];
          idx[model.rowDim()] = r;
          idx[model.colDim()] = c;
          idx[fixedDim] = model.indexOf(fixedDim);
          const int64_t flat = idx[0] * 20 + idx[1] * 5 + idx[2];
          const double want = torchir::elementAsDouble(t, flat);
          // The buffer holds its own storage index: permuted element (a, b, c) is buffer[b][c][a].
          QCOMPARE(want, double(idx[1] * 30 + idx[2] * 6 + idx[0]));
          QCOMPARE(model.flatIndex(r, c), flat);
          QCOMPARE(model.index(r, c).data(TensorSliceModel::ValueRole).toDouble(), want);
          QCOMPARE(model.index(r, c).data().toString(), QString::asprintf("%.6g", want));
        }
    };
    QCOMPARE(model.rowCount(), 4);
    QCOMPARE(model.columnCount(), 5);
    check(0);
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    model.setIndex(0, 3);
    QCOMPARE(changed.size(), 1);
    QCOMPARE(model.indexOf(0), int64_t(3));
    check(0);
    model.setIndex(0, 100);  // clamped to the last index
    QCOMPARE(model.indexOf(0), int64_t(5));
    check(0);

    model.setAxes(2, 0);  // rows: dim 2 (5), columns: dim 0 (6); dim 1 fixed
    QCOMPARE(model.rowCount(), 5);
    QCOMPARE(model.columnCount(), 6);
    model.setIndex(1, 2);
    check(1);
    model.setAxes(1, 1);  // not a pair of axes: ignored
    QCOMPARE(model.rowDim(), 2);

    const QStringList lines = model.sliceAsTsv().split(QLatin1Char('\n'));
    QCOMPARE(lines.size(), 5);
    QCOMPARE(lines[0].split(QLatin1Char('\t')).size(), 6);
    QCOMPARE(lines[0].split(QLatin1Char('\t'))[1], model.index(0, 1).data().toString());
    QCOMPARE(model.headerData(3, Qt::Horizontal).toInt(), 3);
  }

  void aTensorOfTheSameShapeKeepsTheSlice() {
    std::vector<float> a(2 * 3 * 4), b(2 * 3 * 4);
    for (std::size_t i = 0; i < a.size(); ++i) {
      a[i] = float(i);
      b[i] = float(100 + i);
    }
    TensorSliceModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setTensor(owning(DType::Float32, {2, 3, 4}, a));
    model.setAxes(0, 2);  // rows: dim 0, columns: dim 2, dim 1 at an index
    model.setIndex(1, 2);
    model.setTensor(owning(DType::Float32, {2, 3, 4}, b));  // the next step's output, same shape
    QCOMPARE(model.rowDim(), 0);
    QCOMPARE(model.colDim(), 2);
    QCOMPARE(model.indexOf(1), int64_t(2));
    QCOMPARE(model.value(1, 3), 100.0 + 1 * 12 + 2 * 4 + 3);  // b[1][2][3]
    model.setTensor(owning(DType::Float32, {4, 6}, a));  // another shape starts over
    QCOMPARE(model.rowDim(), 0);
    QCOMPARE(model.colDim(), 1);
    QCOMPARE(model.rowCount(), 4);
  }

  void lowRankTensorsAreOneRowAndFormattedLikeTorch() {
    TensorSliceModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setTensor(owning<int64_t>(DType::Int64, {3}, {5, -7, 9007199254740993LL}));
    QCOMPARE(model.rowCount(), 1);
    QCOMPARE(model.columnCount(), 3);
    QCOMPARE(model.index(0, 1).data().toString(), QStringLiteral("-7"));
    QCOMPARE(model.index(0, 2).data().toString(), QStringLiteral("9007199254740993"));  // past 2^53, exact
    model.setTensor(owning<float>(DType::Float32, {}, {0.1f}));
    QCOMPARE(model.rowCount(), 1);
    QCOMPARE(model.columnCount(), 1);
    QCOMPARE(model.index(0, 0).data().toString(), QStringLiteral("0.1"));
    model.setTensor(owning<float>(DType::Float32, {2}, {NAN, -INFINITY}));
    QCOMPARE(model.sliceAsTsv(), QStringLiteral("nan\t-inf"));
    model.setTensor(owning<uint8_t>(DType::Bool, {2}, {1, 0}));
    QCOMPARE(model.sliceAsTsv(), QStringLiteral("True\tFalse"));
    model.clear();
    QCOMPARE(model.rowCount(), 0);
  }

  void sliceOfARealActivation() {
    const auto tensor = firstConvOutput();
    QVERIFY(tensor);
    TensorSliceModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setTensor(*tensor);  // [1, 64, 32, 32]
    model.setIndex(1, 7);
    const int64_t flat = 7 * 32 * 32 + 3 * 32 + 4;
    QCOMPARE(model.index(3, 4).data(TensorSliceModel::ValueRole).toDouble(), torchir::elementAsDouble(*tensor, flat));
    model.setAxes(1, 3);
    QCOMPARE(model.rowCount(), 64);
    QCOMPARE(model.index(7, 4).data(TensorSliceModel::ValueRole).toDouble(),
             torchir::elementAsDouble(*tensor, 7 * 32 * 32 + 0 * 32 + 4));
  }

  void viewerComputesStatsAndSavesRoundTrip() {
    TensorViewer viewer;
    QAbstractItemModelTester tester(viewer.sliceModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    viewer.resize(700, 500);
    viewer.show();
    const TensorData special = owning(DType::Float32, {2, 4}, kSpecials);
    const TensorData strided = permutedView();
    // Two tensors in a row: only the last one's statistics land.
    QSignalSpy ready(&viewer, &TensorViewer::statsComputed);
    viewer.setTensor(QStringLiteral("special"), special);
    viewer.setTensor(QStringLiteral("block.out"), strided);
    QTRY_VERIFY(viewer.statsReady());
    // Every statistics task has ended and its result been delivered: a late one of the first
    // tensor would be in `ready` now.
    torchir::ui::backgroundPool()->waitForDone();
    QCoreApplication::sendPostedEvents();
    QCoreApplication::processEvents();
    QCOMPARE(ready.size(), 1);
    QCOMPARE(ready.at(0).at(0).toString(), QStringLiteral("block.out"));
    QCOMPARE(viewer.stats().numel, int64_t(120));
    QCOMPARE(viewer.stats().max, 119.0);
    auto* stats = viewer.findChild<QLabel*>(QStringLiteral("tensorStats"));
    QVERIFY(stats->text().contains(QStringLiteral("max 119")));
    auto* histogram = viewer.findChild<torchir::ui::HistogramWidget*>(QStringLiteral("tensorHistogram"));
    QCOMPARE(int(histogram->bins().size()), TensorViewer::kHistogramBins);
    int64_t counted = 0;
    for (int64_t b : histogram->bins()) counted += b;
    QCOMPARE(counted, int64_t(120));

    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("saved.safetensors"));
    QString error;
    QVERIFY2(viewer.saveTo(path, &error), qPrintable(error));
    const torchir::TensorMap saved = torchir::readSafetensors(path.toStdString());
    QCOMPARE(saved.size(), std::size_t(1));
    const TensorData& back = saved.at("block.out");
    QCOMPARE(back.sizes, strided.sizes);
    QCOMPARE(back.dtype, DType::Float32);
    for (int64_t i = 0; i < strided.numel(); ++i)
      QCOMPARE(torchir::elementAsDouble(back, i), torchir::elementAsDouble(strided, i));

    // NaN and Inf are counted and noted.
    viewer.setTensor(QStringLiteral("special"), special);
    QTRY_VERIFY(viewer.statsReady());
    QVERIFY(stats->text().contains(QStringLiteral("NaN 1")) && stats->text().contains(QStringLiteral("Inf 2")));
    QVERIFY(histogram->note().contains(QStringLiteral("NaN: 1")));
  }

  void viewerAxesCopyAndUnavailable() {
    TensorViewer viewer;
    viewer.resize(700, 500);
    viewer.show();
    viewer.setTensor(QStringLiteral("view"), permutedView());
    auto* rows = viewer.findChild<QComboBox*>(QStringLiteral("rowAxis"));
    auto* cols = viewer.findChild<QComboBox*>(QStringLiteral("colAxis"));
    QVERIFY(rows && cols);
    QCOMPARE(rows->count(), 3);
    QCOMPARE(rows->currentIndex(), 1);
    QCOMPARE(cols->currentIndex(), 2);
    auto* index0 = viewer.findChild<QSpinBox*>(QStringLiteral("index0"));
    QVERIFY(index0);
    QCOMPARE(index0->maximum(), 5);
    index0->setValue(4);
    QCOMPARE(viewer.sliceModel()->indexOf(0), int64_t(4));
    // Picking the columns' dim for the rows swaps the two.
    rows->setCurrentIndex(2);
    QCOMPARE(viewer.sliceModel()->rowDim(), 2);
    QCOMPARE(viewer.sliceModel()->colDim(), 1);
    QCOMPARE(cols->currentIndex(), 1);
    QVERIFY(viewer.findChild<QSpinBox*>(QStringLiteral("index0")));

    viewer.copySlice();
    QCOMPARE(QGuiApplication::clipboard()->text(), viewer.sliceModel()->sliceAsTsv());

    auto* tabs = viewer.findChild<QTabWidget*>(QStringLiteral("tensorTabs"));
    auto* heatmap = viewer.findChild<torchir::ui::HeatmapWidget*>(QStringLiteral("tensorHeatmap"));
    tabs->setCurrentWidget(heatmap);
    QCOMPARE(heatmap->image().size(), QSize(4, 5));  // columns x rows of the slice
    QCOMPARE(heatmap->minimum(), viewer.sliceModel()->value(0, 0));
    // All values >= 0: a sequential scale, white at the minimum.
    QCOMPARE(QColor(heatmap->image().pixel(0, 0)), QColor(Qt::white));
    const torchir::ui::HeatmapScale diverging(-2, 1);
    QCOMPARE(QColor(diverging.color(0)), QColor(Qt::white));
    QVERIFY(qRed(diverging.color(1)) > qBlue(diverging.color(1)));
    QVERIFY(qBlue(diverging.color(-2)) > qRed(diverging.color(-2)));

    viewer.setUnavailable(QStringLiteral("released by the memory budget"));
    QVERIFY(!viewer.hasTensor());
    QCOMPARE(viewer.findChild<QLabel*>(QStringLiteral("tensorStats"))->text(),
             QStringLiteral("released by the memory budget"));
    QString error;
    QVERIFY(!viewer.saveTo(QStringLiteral("/nonexistent/x.safetensors"), &error));
    QVERIFY(!error.isEmpty());
    QCOMPARE(rows->count(), 0);
  }
};

QTEST_MAIN(TestTensor)
#include "tst_tensor.moc"
