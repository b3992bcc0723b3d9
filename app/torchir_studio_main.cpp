// torchir-studio [FILE] [--weights F] [--constants F] [--inputs F] [--etdump F [--debug-buffer B]]
// [--screenshot PATH]: opens FILE, or
// the bundled demo without one.
#include <QApplication>
#include <QCommandLineParser>
#include <QFileInfo>
#include <QThreadPool>
#include <cstring>

#include "StudioConfig.h"
#include "formats/AllocatorTuning.h"
#include "session/AppIdentity.h"
#include "session/SessionController.h"
#include "controllers/DeviceRunOverlay.h"
#include "windows/MainWindow.h"
#include "windows/WindowScreenshot.h"

namespace {

const QCommandLineOption kScreenshotOption(
    QStringLiteral("screenshot"), QStringLiteral("Save a PNG of the window once the program is shown, then exit."),
    QStringLiteral("PATH"));
const QCommandLineOption kWeightsOption(
    QStringLiteral("weights"), QStringLiteral("Weights for the program (.safetensors or a torch.save state dict)."),
    QStringLiteral("FILE"));
const QCommandLineOption kConstantsOption(QStringLiteral("constants"),
                                          QStringLiteral("Lifted constants for the program (.safetensors)."),
                                          QStringLiteral("FILE"));
const QCommandLineOption kEtdumpOption(
    QStringLiteral("etdump"),
    QStringLiteral("With an ExecuTorch ETRecord: compare the device's run in this ETDump with its program (File › Attach ETDump)."),
    QStringLiteral("F.etdp"));
const QCommandLineOption kDebugBufferOption(QStringLiteral("debug-buffer"),
                                            QStringLiteral("The debug buffer holding the ETDump's values (default: NAME.debug.bin beside it)."),
                                            QStringLiteral("F"));
const QCommandLineOption kInputsOption(
    QStringLiteral("inputs"), QStringLiteral("Inputs to run with (.safetensors, by input name or input_<i>)."),
    QStringLiteral("FILE"));

/// The demo program: installed beside the binary (../share/torchir-studio/demo/), else the copy the
/// run script puts in the build folder.
QString demoProgramPath() {
  const QString installed =
      QCoreApplication::applicationDirPath() + QStringLiteral("/../share/torchir-studio/demo/demo.pt2");
  return QFileInfo::exists(installed) ? QFileInfo(installed).canonicalFilePath()
                                      : QStringLiteral(TORCHIR_STUDIO_DEMO_PROGRAM);
}

void setUpApplication(QCommandLineParser& parser) {
  torchir::ui::applyApplicationIdentity();
  QCoreApplication::setApplicationVersion(QStringLiteral(TORCHIR_STUDIO_VERSION));
  parser.setApplicationDescription(QStringLiteral("A debugger for PyTorch exported programs."));
  parser.addHelpOption();
  parser.addVersionOption();
  parser.addPositionalArgument(QStringLiteral("file"),
                               QStringLiteral("Program to open (.pt2 or IR JSON); the demo program if omitted."),
                               QStringLiteral("[FILE]"));
  parser.addOption(kWeightsOption);
  parser.addOption(kConstantsOption);
  parser.addOption(kInputsOption);
  parser.addOption(kScreenshotOption);
  parser.addOption(kEtdumpOption);
  parser.addOption(kDebugBufferOption);
}

// --help and --version only print; they should work where there is no display to open.
bool onlyPrints(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    for (const char* flag : {"-h", "--help", "--help-all", "-v", "--version"}) {
      if (std::strcmp(argv[i], flag) == 0) return true;
    }
  }
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  torchir::tuneAllocator();
  if (onlyPrints(argc, argv)) {
    QCoreApplication app(argc, argv);
    QCommandLineParser parser;
    setUpApplication(parser);
    parser.process(app);  // prints and exits
    return 0;
  }

  QApplication app(argc, argv);
  QApplication::setApplicationDisplayName(QStringLiteral("torchir studio"));
  QCommandLineParser parser;
  setUpApplication(parser);
  parser.process(app);

  QString file = parser.positionalArguments().value(0);
  const QString screenshotPath = parser.value(kScreenshotOption);

  torchir::ui::MainWindow window;
  // Screenshots for the docs should not depend on the last saved window size.
  if (!screenshotPath.isEmpty()) window.resize(1400, 860);
  window.show();

  if (file.isEmpty()) {
    file = demoProgramPath();
    if (!QFileInfo::exists(file)) {
      window.showHint(QStringLiteral("No demo program at %1 — open a .pt2 with File › Open (Ctrl+O).").arg(file));
      file.clear();
    }
  }

  // A device's run over the program, once its run can start: attached once. Pending until the
  // comparison it started has ended, or it could not start.
  const QString etdump = parser.value(kEtdumpOption);
  bool attachPending = !etdump.isEmpty(), attachStarted = false;
  if (attachPending) {
    QObject::connect(window.session(), &torchir::ui::SessionController::stateChanged, &window, [&] {
      const auto state = window.session()->state();
      if (attachStarted || !window.session()->resting() || state == torchir::ui::RunState::Empty ||
          state == torchir::ui::RunState::Starting)
        return;
      attachStarted = true;
      if (!window.deviceRunOverlay()->attach(etdump, parser.value(kDebugBufferOption))) {
        window.showHint(QStringLiteral("--etdump: %1 was not opened from an ExecuTorch ETRecord").arg(file));
        attachPending = false;
      }
    });
  }

  // Lives as long as app.exec(), which runs the connections below that read it.
  bool grabbing = false;
  if (!screenshotPath.isEmpty()) {
    // Once the graph is laid out and the engine has started (or could not): a window without its
    // graph, or with its run controls still greyed out, says little.
    auto grabWhenSettled = [&] {
      const auto state = window.session()->state();
      if (grabbing || !window.hasFirstView() || state == torchir::ui::RunState::Empty ||
          state == torchir::ui::RunState::Starting)
        return;
      if (attachPending) return;  // with an ETDump, once the device's run is compared (or could not be)
      grabbing = true;
      torchir::ui::grabWindowAndExit(&window, screenshotPath, 0);
    };
    QObject::connect(&window, &torchir::ui::MainWindow::firstViewShown, &window, grabWhenSettled);
    QObject::connect(window.session(), &torchir::ui::SessionController::stateChanged, &window, grabWhenSettled);
    // the attach's job ends in a report (stopped) or, when its files could not be read, in attachFailed
    auto attachEnded = [&, grabWhenSettled] {
      if (!attachStarted) return;
      attachPending = false;
      grabWhenSettled();
    };
    QObject::connect(window.session(), &torchir::ui::SessionController::stopped, &window, attachEnded);
    QObject::connect(window.deviceRunOverlay(), &torchir::ui::DeviceRunOverlay::attachFailed, &window, attachEnded);
    QObject::connect(&window, &torchir::ui::MainWindow::loadFailed, &window,
                     [&] { torchir::ui::grabWindowAndExit(&window, screenshotPath, 1); });
    if (file.isEmpty()) torchir::ui::grabWindowAndExit(&window, screenshotPath, 0);
  }
  if (!file.isEmpty()) {
    window.open(torchir::ui::OpenRequest{file, parser.value(kWeightsOption), parser.value(kConstantsOption),
                                         parser.value(kInputsOption)});
  }
  const int status = app.exec();
  // Work still on Qt's pool ends before the process does, so nothing winds down while exit-time
  // handlers run; the studio's own pool is joined as the application object goes (BackgroundPool).
  QThreadPool::globalInstance()->waitForDone();
  return status;
}
