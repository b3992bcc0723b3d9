// MainWindow end to end: background loading fills the table; a bad file is reported inline and
// leaves the shown program in place.
#include <QFileInfo>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QRandomGenerator>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

#include "Fixtures.h"
#include "panels/FxTableModel.h"
#include "session/AppIdentity.h"
#include "windows/MainWindow.h"

using torchir::ui::FxTableModel;
using torchir::ui::MainWindow;

namespace {
// resnet18 loads in well under a second; generous for slow CI machines.
constexpr int kLoadTimeoutMs = 60000;
}  // namespace

class TestMainWindow : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() {
    TORCHIR_REQUIRE_FIXTURES();
    // Keep the developer's recent files and window geometry out of it, both ways.
    QStandardPaths::setTestModeEnabled(true);
    torchir::ui::applyApplicationIdentity();
    QSettings().clear();
  }

  void opensProgramAndKeepsItAfterBadFile() {
    MainWindow window;
    window.show();
    auto* table = window.findChild<QTableView*>(QStringLiteral("fxTable"));
    auto* errorLabel = window.findChild<QLabel*>(QStringLiteral("loadErrorLabel"));
    QVERIFY(table);
    QVERIFY(errorLabel);

    QSignalSpy shown(&window, &MainWindow::programShown);
    QSignalSpy failed(&window, &MainWindow::loadFailed);
    const QString resnet = torchir::test::fixturePath(QStringLiteral("resnet18"), QStringLiteral(".pt2"));
    window.openFile(resnet);
    QVERIFY(window.isLoading());  // openFile returned before the program was read
    QTRY_COMPARE_WITH_TIMEOUT(shown.count(), 1, kLoadTimeoutMs);
    QCOMPARE(failed.count(), 0);

    const QJsonArray expected = torchir::test::pythonFxTable(QStringLiteral("resnet18"));
    QCOMPARE(table->model()->rowCount(), 193);
    QCOMPARE(table->model()->index(4, FxTableModel::Name).data().toString(),
             expected[4].toObject().value(QStringLiteral("name")).toString());
    QCOMPARE(window.currentPath(), resnet);
    QVERIFY(errorLabel->isHidden());

    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString badPath = dir.filePath(QStringLiteral("garbage.pt2"));
    {
      QFile bad(badPath);
      QVERIFY(bad.open(QIODevice::WriteOnly));
      QByteArray noise(4096, Qt::Uninitialized);
      QRandomGenerator gen(1234);
      for (char& c : noise) c = static_cast<char>(gen.bounded(256));
      bad.write(noise);
    }
    window.openFile(badPath);
    QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, kLoadTimeoutMs);
    QCOMPARE(failed.at(0).at(0).toString(), badPath);
    QVERIFY(errorLabel->isVisible());
    QVERIFY2(errorLabel->text().contains(QStringLiteral("garbage.pt2")), qPrintable(errorLabel->text()));

    // The previous program is still what the window shows.
    QCOMPARE(shown.count(), 1);
    QCOMPARE(window.currentPath(), resnet);
    QCOMPARE(table->model()->rowCount(), 193);
    QVERIFY(!window.isLoading());
  }

  void filterMatchesAnyColumn() {
    MainWindow window;
    QSignalSpy shown(&window, &MainWindow::programShown);
    window.openFile(torchir::test::fixturePath(QStringLiteral("resnet18"), QStringLiteral(".pt2")));
    QTRY_COMPARE_WITH_TIMEOUT(shown.count(), 1, kLoadTimeoutMs);

    // Rows with "conv" anywhere (names, targets such as aten.conv2d, args), counted from Python's table.
    int expectedRows = 0;
    for (const QJsonValue& row : torchir::test::pythonFxTable(QStringLiteral("resnet18"))) {
      const QJsonObject cells = row.toObject();
      for (const QJsonValue& cell : cells) {
        if (cell.toString().contains(QStringLiteral("CONV"), Qt::CaseInsensitive)) {
          ++expectedRows;
          break;
        }
      }
    }
    QVERIFY(expectedRows > 0);
    auto* filter = window.findChild<QLineEdit*>(QStringLiteral("filterEdit"));
    auto* table = window.findChild<QTableView*>(QStringLiteral("fxTable"));
    QVERIFY(filter);
    filter->setText(QStringLiteral("CONV"));
    QCOMPARE(table->model()->rowCount(), expectedRows);
    filter->clear();
    QCOMPARE(table->model()->rowCount(), 193);
  }

  void successfulLoadIsRecent() {
    MainWindow window;
    QSignalSpy shown(&window, &MainWindow::programShown);
    const QString mlp = torchir::test::fixturePath(QStringLiteral("mlp"), QStringLiteral(".pt2"));
    window.openFile(mlp);
    QTRY_COMPARE_WITH_TIMEOUT(shown.count(), 1, kLoadTimeoutMs);
    const QStringList recent = QSettings().value(QStringLiteral("recentFiles")).toStringList();
    QVERIFY(!recent.isEmpty());
    QCOMPARE(recent.first(), QFileInfo(mlp).absoluteFilePath());
  }

  void cleanupTestCase() { QSettings().clear(); }
};

QTEST_MAIN(TestMainWindow)
#include "tst_mainwindow.moc"
