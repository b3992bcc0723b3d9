// The studio's responsiveness, measured in its real window (run under Xvfb by studio_speed.py):
//   studio_timing BIG.pt2 STEP.pt2 [STEPS]
// prints one "key value" line per measurement, in milliseconds:
//   window_shown    main() entry to the window's show(), before the program is read
//   program_shown   main() entry to the big program read and in the table
//   first_view      main() entry to the big program's first graph layout on screen
//   stall_load      the GUI thread's longest stall while the big program loads and lays out
//   expand_all      Expand All on the big program until its 24k-box scene is painted
//   stall_expand_all the longest stall meanwhile
//   collapse_all, stall_collapse_all  the same for Collapse All from there, until the expanded scene is deleted
//   stall_run_big   the longest stall while the big program runs to the end (Continue) and 0.5 s after
//   compare_big, stall_compare_big  Compare › With float64 on the big program to its end, and the longest stall
//                   until 0.5 s after
//   step_first, step_median/max, step_max_after_first a Step (F10) on STEP.pt2 until every panel shows it, minus the op's own time
//   stall_replace   the longest stall from opening STEP.pt2 in BIG.pt2's place until 4.5 s after it is ready, idle
//   stall_run       the longest stall while STEP.pt2 runs to the end (Continue)
// and one in MiB:
//   resident_mib_after_replace  the process's resident heap memory 5 s later, BIG.pt2 long replaced
// Tracing, on stderr: TORCHIR_STALL_TRACE=MS prints each stall of MS or more and when each
// measurement ended; TORCHIR_EVENT_TRACE=MS prints each event that long (see TracingApplication).
#include <QAction>
#include <QApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QPointer>
#include <QThread>
#include <QTimer>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "formats/AllocatorTuning.h"
#include "graph/GraphPanel.h"
#include "graph/GraphScene.h"
#include "session/ExecutionActions.h"
#include "session/SessionController.h"
#include "windows/GuiStallMonitor.h"
#include "windows/MainWindow.h"

using namespace torchir::ui;

namespace {

/// Runs the real event loop (idle in poll(), as the app is) until `done`, checking every 2 ms:
/// a loop that spins processEvents() would take a core from the threads being measured.
bool waitFor(const std::function<bool()>& done, int timeoutMs) {
  QElapsedTimer t;
  t.start();
  QEventLoop loop;
  QTimer check;
  QObject::connect(&check, &QTimer::timeout, [&] {
    if (done() || t.elapsed() > timeoutMs) loop.quit();
  });
  check.start(2);
  if (!done()) loop.exec();
  return done();
}

/// The process's resident anonymous memory (its heaps, not the files it maps), in KiB.
long long residentAnonymousKiB() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("RssAnon:", 0) == 0) return std::atoll(line.c_str() + 8);
  return -1;
}

/// The event loop left to run for `ms`, the window idle: what work already set off does meanwhile
/// (background results arriving and painted, frees) counts in the stalls measured.
void idleFor(int ms) { waitFor([] { return false; }, ms); }

/// What the end of a run sets off (the docks' values computed in the background, arriving, and
/// painted) belongs to that run's stalls too.
constexpr int kSettleMs = 500;

double secondsOn(clockid_t clock) {
  timespec now{};
  clock_gettime(clock, &now);
  return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) / 1e9;
}

void report(const char* key, double ms) {
  std::printf("%s %.1f\n", key, ms);
  std::fflush(stdout);
  // Beside the stall monitor's trace: when each measurement ended, on the same clock.
  if (qEnvironmentVariableIsSet("TORCHIR_STALL_TRACE") || qEnvironmentVariableIsSet("TORCHIR_EVENT_TRACE"))
    std::fprintf(stderr, "%s done, monotonic %.6f\n", key, secondsOn(CLOCK_MONOTONIC));
}

/// With TORCHIR_EVENT_TRACE=MS set, every event the GUI thread takes MS or longer to handle is
/// printed to stderr: when it began (the stall trace's clock), its nesting depth, type and receiver,
/// and the thread's CPU time in it. A stall is then pinned to the event and widget that made it,
/// and wall time well over CPU time means the thread waited (a lock, the X server) or was preempted.
class TracingApplication : public QApplication {
 public:
  using QApplication::QApplication;

  bool notify(QObject* receiver, QEvent* event) override {
    if (m_traceFromMs <= 0 || QThread::currentThread() != thread()) return QApplication::notify(receiver, event);
    // Named before delivery: a DeferredDelete frees the receiver.
    const QByteArray receiverName = QByteArray(receiver->metaObject()->className()) + "/" + receiver->objectName().toLatin1();
    const int type = event->type();
    const double start = secondsOn(CLOCK_MONOTONIC);
    const double startCpu = secondsOn(CLOCK_THREAD_CPUTIME_ID);
    ++m_depth;
    const bool handled = QApplication::notify(receiver, event);
    --m_depth;
    const double ms = (secondsOn(CLOCK_MONOTONIC) - start) * 1e3;
    if (ms >= m_traceFromMs) {
      const double cpuMs = (secondsOn(CLOCK_THREAD_CPUTIME_ID) - startCpu) * 1e3;
      std::fprintf(stderr, "event %.1f ms, monotonic %.6f, depth %d, type %d, %s, cpu %.1f ms\n", ms, start, m_depth, type, receiverName.constData(), cpuMs);
    }
    return handled;
  }

 private:
  double m_traceFromMs = qgetenv("TORCHIR_EVENT_TRACE").toDouble();
  int m_depth = 0;
};

}  // namespace

int main(int argc, char** argv) {
  QElapsedTimer sinceMain;
  sinceMain.start();
  torchir::tuneAllocator();  // as the studio does
  TracingApplication app(argc, argv);
  if (argc < 3) {
    std::fprintf(stderr, "usage: studio_timing BIG.pt2 STEP.pt2 [STEPS]\n");
    return 2;
  }
  const QString big = QString::fromLocal8Bit(argv[1]);
  const QString small = QString::fromLocal8Bit(argv[2]);
  const int steps = argc > 3 ? std::atoi(argv[3]) : 20;

  MainWindow window;
  window.resize(1500, 900);
  window.show();
  GuiStallMonitor stalls;
  stalls.start();

  bool firstView = false;
  bool bigShown = false;
  QObject::connect(&window, &MainWindow::programShown, [&] {
    if (!std::exchange(bigShown, true)) report("program_shown", static_cast<double>(sinceMain.nsecsElapsed()) / 1e6);
  });
  QObject::connect(&window, &MainWindow::firstViewShown, [&] { firstView = true; });
  report("window_shown", static_cast<double>(sinceMain.nsecsElapsed()) / 1e6);
  window.openFile(big);
  if (!waitFor([&] { return firstView; }, 120000)) return 1;
  QCoreApplication::processEvents();  // the paint of the first view
  report("first_view", static_cast<double>(sinceMain.nsecsElapsed()) / 1e6);
  waitFor([&] { return window.session()->state() == RunState::Ready; }, 120000);
  report("stall_load", stalls.longestStallMs());

  // Everything expanded (24k boxes for the 20k-node program): the biggest scene the window builds.
  {
    stalls.resetLongest();
    bool laidOut = false;
    auto connection = QObject::connect(window.graphPanel(), &GraphPanel::layoutFinished, [&] { laidOut = true; });
    QElapsedTimer t;
    t.start();
    window.graphPanel()->expandAll();
    waitFor([&] { return laidOut; }, 120000);
    QCoreApplication::processEvents();  // its paint
    report("expand_all", static_cast<double>(t.nsecsElapsed()) / 1e6);
    report("stall_expand_all", stalls.longestStallMs());
    stalls.resetLongest();
    laidOut = false;
    t.restart();
    // Until the expanded scene's items are deleted too: they go in slices after the new layout.
    QPointer<GraphScene> expanded = window.graphPanel()->scene();
    window.graphPanel()->collapseAll();
    waitFor([&] { return laidOut && !expanded; }, 120000);
    QCoreApplication::processEvents();
    report("collapse_all", static_cast<double>(t.nsecsElapsed()) / 1e6);
    report("stall_collapse_all", stalls.longestStallMs());
    QObject::disconnect(connection);
  }

  // Continue through the whole big program: progress reports every 50 ms update ~34k table rows.
  stalls.resetLongest();
  window.executionActions()->continueRun()->trigger();
  waitFor([&] { return window.session()->state() == RunState::Finished || window.session()->state() == RunState::Failed; },
          300000);
  idleFor(kSettleMs);
  report("stall_run_big", stalls.longestStallMs());

  // Compare › With float64 through the whole big program: a run in lockstep with its shadow, the
  // table's metric columns and the graph's colours filled as it goes.
  if (auto* withFloat64 = window.findChild<QAction*>(QStringLiteral("actionCompareFloat64"))) {
    stalls.resetLongest();
    QElapsedTimer t;
    t.start();
    withFloat64->trigger();
    waitFor([&] { return window.session()->state() == RunState::Running; }, 10000);
    waitFor([&] { return window.session()->state() != RunState::Running && window.session()->comparison(); }, 600000);
    QCoreApplication::processEvents();
    report("compare_big", static_cast<double>(t.nsecsElapsed()) / 1e6);
    idleFor(kSettleMs);
    report("stall_compare_big", stalls.longestStallMs());
  }

  // STEP.pt2 in place of BIG.pt2: the big program's frees, on the pool and the engine's thread, and
  // the trim that gives their memory back (returnFreedMemoryWhenQuiet, 3 s after the program is
  // freed). The window stays idle after the load, so what stalls it is that work alone.
  stalls.resetLongest();
  window.openFile(small);
  if (!waitFor([&] { return window.session()->state() == RunState::Ready && window.currentPath() == small; }, 120000))
    return 1;
  idleFor(4500);
  report("stall_replace", stalls.longestStallMs());

  std::vector<double> overhead;
  int stops = 0;
  // Connected after the window's own handler: when this runs, every panel has taken the step.
  QObject::connect(window.session(), &SessionController::stopped, [&] { ++stops; });
  for (int i = 0; i < steps; ++i) {
    QElapsedTimer t;
    t.start();
    window.executionActions()->step()->trigger();
    waitFor([&] { return stops == i + 1; }, 60000);
    QCoreApplication::processEvents();  // paints
    const auto* record = window.session()->record(window.selectedNode());
    const double opMs = record ? record->microseconds / 1000.0 : 0.0;
    overhead.push_back(static_cast<double>(t.nsecsElapsed()) / 1e6 - opMs);
    // STEP_TRACE=1 prints every step, to see which nodes cost most.
    if (qEnvironmentVariableIsSet("STEP_TRACE"))
      std::fprintf(stderr, "step %d node %d: %.1f ms (op %.2f ms)\n", i, window.selectedNode(), overhead.back(), opMs);
  }
  // The first step of a session also creates the panels' widgets for the first time.
  report("step_first", overhead.front());
  const double laterMax = overhead.size() > 1 ? *std::max_element(overhead.begin() + 1, overhead.end()) : 0.0;
  std::sort(overhead.begin(), overhead.end());
  report("step_median", overhead[overhead.size() / 2]);
  report("step_max", overhead.back());
  report("step_max_after_first", laterMax);

  stalls.resetLongest();
  window.executionActions()->continueRun()->trigger();
  waitFor([&] { return window.session()->state() == RunState::Finished; }, 120000);
  report("stall_run", stalls.longestStallMs());
  // The big program was replaced a while ago: what the process still holds of it. The studio gives
  // back what its frees left 3 s after they end (returnFreedMemoryWhenQuiet), usually before the
  // steps above; the wait leaves time for frees and a trim that ran late.
  idleFor(5000);
  report("resident_mib_after_replace", static_cast<double>(residentAnonymousKiB()) / 1024.0);
  return 0;
}
