// FirstFrameGate: work handed to it for a shown window runs after the window's first paint, in the
// order given; for a window not shown, at once.
#include <QWidget>
#include <QtTest>
#include <vector>

#include "session/FirstFrameGate.h"

using torchir::ui::FirstFrameGate;

namespace {

/// Counts its paints.
class PaintCounter : public QWidget {
 public:
  int paints = 0;

 protected:
  void paintEvent(QPaintEvent*) override { ++paints; }
};

}  // namespace

class TestFirstFrameGate : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void workForAWindowNotShownRunsAtOnce() {
    PaintCounter window;
    FirstFrameGate gate(&window);
    bool ran = false;
    gate.run([&] { ran = true; });
    QVERIFY(ran);
  }

  void workForAShownWindowRunsAfterItsFirstPaintInOrder() {
    PaintCounter window;
    window.resize(200, 100);
    FirstFrameGate gate(&window);
    window.show();
    std::vector<int> paintsWhenRun;  // by work, in the order they ran
    std::vector<int> order;
    gate.run([&] { order.push_back(1), paintsWhenRun.push_back(window.paints); });
    gate.run([&] { order.push_back(2), paintsWhenRun.push_back(window.paints); });
    QVERIFY(order.empty());  // show() has not painted yet
    QTRY_COMPARE(order.size(), std::size_t{2});
    QCOMPARE(order, (std::vector<int>{1, 2}));
    QVERIFY(paintsWhenRun.front() >= 1);
    // once painted, later work runs at once
    bool ran = false;
    gate.run([&] { ran = true; });
    QVERIFY(ran);
  }
};

QTEST_MAIN(TestFirstFrameGate)
#include "tst_firstframegate.moc"
