// Find and go-to over real programs: NodeFinder agrees with a plain count over the nodes, the
// FindBar steps through its matches with wrap-around, and GoToNodeDialog resolves names and rows.
#include <QLineEdit>
#include <QSignalSpy>
#include <QtTest>
#include <algorithm>
#include <cctype>

#include "Fixtures.h"
#include "graph/FindBar.h"
#include "graph/GoToNodeDialog.h"
#include "graph/NodeFinder.h"
#include "formats/ProgramLoader.h"

using torchir::NodeId;
using torchir::ui::FindBar;
using torchir::ui::GoToNodeDialog;

namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

/// The same question asked the slow, obvious way.
std::vector<NodeId> naiveFind(const torchir::Program& p, const std::string& query) {
  const std::string q = lower(query);
  std::vector<NodeId> out;
  for (const auto& n : p.nodes) {
    const std::string module = n.moduleFrames().empty() ? std::string() : n.moduleFrames().back().path;
    if (lower(n.name).find(q) != std::string::npos || lower(n.target).find(q) != std::string::npos ||
        lower(module).find(q) != std::string::npos)
      out.push_back(n.id);
  }
  return out;
}

}  // namespace

class TestNodeFinder : public QObject {
  Q_OBJECT

  torchir::ui::LoadedProgramPtr m_resnet;

 private Q_SLOTS:
  void initTestCase() {
    TORCHIR_REQUIRE_FIXTURES();
    m_resnet = torchir::test::loadedFixture(QStringLiteral("resnet18"));
  }

  void countsMatchAPlainCount_data() {
    QTest::addColumn<QString>("query");
    QTest::newRow("op") << QStringLiteral("conv2d");
    QTest::newRow("op, other case") << QStringLiteral("CONV2D");
    QTest::newRow("module") << QStringLiteral("layer2.1");
    QTest::newRow("name") << QStringLiteral("relu_");
    QTest::newRow("target namespace") << QStringLiteral("aten.add");
    QTest::newRow("nothing") << QStringLiteral("no_such_thing");
  }

  void countsMatchAPlainCount() {
    QFETCH(QString, query);
    const auto& p = m_resnet->program;
    const auto found = torchir::ui::findNodes(p, query);
    const auto expected = naiveFind(p, query.toStdString());
    QCOMPARE(found, expected);
    QVERIFY(std::is_sorted(found.begin(), found.end()));
  }

  void knownCounts() {
    const auto& p = m_resnet->program;
    // resnet18: 20 convolutions, each a call_function node.
    const auto convs = torchir::ui::findNodes(p, QStringLiteral("conv2d"));
    const auto callConvs = std::count_if(convs.begin(), convs.end(), [&](NodeId n) {
      return p.node(n).target == "aten.conv2d.default";
    });
    QCOMPARE(callConvs, 20);
    QVERIFY(torchir::ui::findNodes(p, QString()).empty());
    QVERIFY(torchir::ui::findNodes(p, QStringLiteral("   ")).empty());
  }

  void findBarStepsAndWraps() {
    FindBar bar;
    bar.setProgram(m_resnet);
    QVERIFY(bar.isHidden());
    bar.activate();
    QVERIFY(bar.isVisible());
    QSignalSpy found(&bar, &FindBar::nodeFound);
    bar.lineEdit()->setText(QStringLiteral("layer1.0.conv"));
    const auto expected = naiveFind(m_resnet->program, "layer1.0.conv");
    QVERIFY(expected.size() >= 2);
    const int n = static_cast<int>(expected.size());
    QCOMPARE(bar.matchCount(), n);
    QCOMPARE(bar.currentNode(), expected.front());
    QCOMPARE(bar.countText(), QStringLiteral("1 of %1").arg(n));
    QCOMPARE(found.last().at(0).value<NodeId>(), expected.front());

    // Previous from the first wraps to the last; next from there wraps to the first.
    bar.findPrevious();
    QCOMPARE(bar.currentNode(), expected.back());
    QCOMPARE(bar.countText(), QStringLiteral("%1 of %1").arg(n));
    bar.findNext();
    QCOMPARE(bar.currentNode(), expected.front());

    // Keys: Enter = next, Shift+Enter = previous, Esc hides.
    QTest::keyClick(bar.lineEdit(), Qt::Key_Return);
    QCOMPARE(bar.currentIndex(), 1);
    QCOMPARE(found.last().at(0).value<NodeId>(), expected[1]);
    QTest::keyClick(bar.lineEdit(), Qt::Key_Return, Qt::ShiftModifier);
    QTest::keyClick(bar.lineEdit(), Qt::Key_Return, Qt::ShiftModifier);
    QCOMPARE(bar.currentNode(), expected.back());
    QTest::keyClick(bar.lineEdit(), Qt::Key_Escape);
    QVERIFY(bar.isHidden());

    bar.lineEdit()->setText(QStringLiteral("no_such_thing"));
    QCOMPARE(bar.matchCount(), 0);
    QCOMPARE(bar.currentNode(), torchir::kNone);
    QCOMPARE(bar.countText(), QStringLiteral("No matches"));
  }

  void goToResolvesNamesAndRows() {
    const auto& p = m_resnet->program;
    GoToNodeDialog dialog(p);
    const NodeId someConv = *p.findNode("conv2d_3");
    QCOMPARE(dialog.resolve(QStringLiteral("conv2d_3")), someConv);
    QCOMPARE(dialog.resolve(QStringLiteral("  conv2d_3 ")), someConv);
    QCOMPARE(dialog.resolve(QStringLiteral("0")), NodeId(0));
    QCOMPARE(dialog.resolve(QString::number(p.nodes.size() - 1)), static_cast<NodeId>(p.nodes.size() - 1));
    QCOMPARE(dialog.resolve(QString::number(p.nodes.size())), torchir::kNone);
    QCOMPARE(dialog.resolve(QStringLiteral("-1")), torchir::kNone);
    QCOMPARE(dialog.resolve(QStringLiteral("no_such_node")), torchir::kNone);

    // An unknown name keeps the dialog open; a known one closes it with that node.
    dialog.show();
    dialog.lineEdit()->setText(QStringLiteral("no_such_node"));
    dialog.accept();
    QVERIFY(dialog.isVisible());
    dialog.lineEdit()->setText(QStringLiteral("conv2d_3"));
    dialog.accept();
    QVERIFY(!dialog.isVisible());
    QCOMPARE(dialog.result(), int(QDialog::Accepted));
    QCOMPARE(dialog.chosen(), someConv);
  }
};

QTEST_MAIN(TestNodeFinder)
#include "tst_nodefinder.moc"
