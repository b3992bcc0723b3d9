// DiagnosisPanel on a real failure: mixed_precision run on float16 inputs fails at `linear`.
#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QtTest>

#include "Fixtures.h"
#include "exec/AtenBackend.h"
#include "exec/Session.h"
#include "panels/DiagnosisPanel.h"
#include "formats/ProgramLoader.h"
#include "formats/Safetensors.h"

using torchir::ui::DiagnosisPanel;

namespace {

torchir::Diagnosis mixedPrecisionFailure() {
  const std::string dir = torchir::test::fixturesDir().toStdString() + "/mixed_precision/";
  static const torchir::Program program = torchir::loadProgram(dir + "mixed_precision.pt2");
  auto session = torchir::atenBackend().createSession(program);
  const torchir::TensorMap inputs = torchir::readSafetensors(dir + "mixed_precision.inputs_fp16.safetensors");
  if (!session->setInputs({inputs.at("input_0")}).ok()) return {};
  return session->run().diagnosis;
}

QString labelText(const DiagnosisPanel& panel, const char* name) {
  auto* label = panel.findChild<QLabel*>(QLatin1String(name));
  return label ? label->text() : QStringLiteral("<no label %1>").arg(QLatin1String(name));
}

}  // namespace

class TestDiagnosis : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() { TORCHIR_REQUIRE_FIXTURES(); }

  void showsTheMixedPrecisionFailure() {
    const torchir::Diagnosis d = mixedPrecisionFailure();
    QCOMPARE(d.kind, torchir::DiagnosisClass::DtypeMismatch);

    DiagnosisPanel panel;
    panel.resize(600, 500);
    panel.show();
    panel.setDiagnosis(d);

    QCOMPARE(labelText(panel, "diagnosisClass"), QStringLiteral("dtype mismatch"));
    auto* cls = panel.findChild<QLabel*>(QStringLiteral("diagnosisClass"));
    QVERIFY(cls->font().bold());
    QVERIFY(cls->styleSheet().contains(QStringLiteral("color")));
    const QString node = labelText(panel, "diagnosisNode");
    QVERIFY2(node.contains(QStringLiteral("linear")) && node.contains(QString::fromStdString(d.opType)), qPrintable(node));
    QCOMPARE(labelText(panel, "diagnosisMessage"), QString::fromStdString(d.message));
    QVERIFY(!d.message.empty());
    const QString why = labelText(panel, "diagnosisExplanation");
    QVERIFY2(why.contains(QStringLiteral("'input' (float16)")) && why.contains(QStringLiteral("'weight' (float32)")),
             qPrintable(why));
    QCOMPARE(labelText(panel, "diagnosisSchema"), QString::fromStdString(d.schema));
    const QString args = labelText(panel, "diagnosisArguments");
    QVERIFY2(args.startsWith(QStringLiteral("input: Tensor = float16[2, 8] (input x)")), qPrintable(args));
    QVERIFY2(args.contains(QStringLiteral("weight: Tensor = float32[16, 8] (input p_fc1_weight)")), qPrintable(args));
    // The user's line, not the library frame below it.
    const QString source = labelText(panel, "diagnosisSource");
    QVERIFY2(source.startsWith(QStringLiteral("File \"")) && source.contains(QStringLiteral("in forward")),
             qPrintable(source));
    QCOMPARE(source.count(QStringLiteral("File \"")), 1);
    QVERIFY(!source.contains(QStringLiteral("torch/nn/modules")));
    QVERIFY(panel.findChild<QLabel*>(QStringLiteral("diagnosisMessage"))->isVisible());
  }

  void goToNodeEmitsTheNode() {
    const torchir::Diagnosis d = mixedPrecisionFailure();
    QVERIFY(d.node != torchir::kNone);
    DiagnosisPanel panel;
    panel.show();
    QSignalSpy activated(&panel, &DiagnosisPanel::nodeActivated);
    auto* button = panel.findChild<QPushButton*>(QStringLiteral("goToNodeButton"));
    QVERIFY(button);
    QVERIFY(!button->isEnabled());  // nothing to go to yet
    panel.setDiagnosis(d);
    QVERIFY(button->isEnabled());
    QTest::mouseClick(button, Qt::LeftButton);
    QCOMPARE(activated.size(), 1);
    QCOMPARE(activated.at(0).at(0).value<torchir::NodeId>(), d.node);

    panel.clear();
    QVERIFY(!button->isEnabled());
    QVERIFY(labelText(panel, "diagnosisClass").isEmpty());
    QVERIFY(panel.findChild<QLabel*>(QStringLiteral("diagnosisEmpty"))->isVisible());
  }

  void firstFrameIsTheUsersLine() {
    const std::string trace =
        "File \"/m/model.py\", line 211, in forward\n    return self.fc2(x)\n"
        "  File \"/torch/nn/modules/linear.py\", line 134, in forward\n    return F.linear(input, self.weight)";
    QCOMPARE(DiagnosisPanel::firstFrame(trace),
             QStringLiteral("File \"/m/model.py\", line 211, in forward\n    return self.fc2(x)"));
    QCOMPARE(DiagnosisPanel::firstFrame(""), QString());
  }
};

QTEST_MAIN(TestDiagnosis)
#include "tst_diagnosis.moc"
