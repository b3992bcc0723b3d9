// The usable memory read from memory cgroups, on hierarchies laid out in a temporary folder as the
// kernel lays them out (v1, v2 alone, v2 beside v1).
#include <QTemporaryDir>
#include <QtTest>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "exec/MachineMemory.h"

using namespace torchir;
namespace fs = std::filesystem;

class MachineMemoryTest : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;
  std::string root() const { return m_dir.path().toStdString(); }
  void put(const std::string& path, const std::string& text) {
    fs::create_directories(fs::path(root() + path).parent_path());
    std::ofstream(root() + path) << text;
  }

 private Q_SLOTS:
  void init() {
    fs::remove_all(root());
    fs::create_directories(root());
  }

  void v1LimitOfTheProcesssCgroup() {
    put("/memory/jobs/a/memory.limit_in_bytes", "1073741824\n");
    put("/memory/jobs/memory.limit_in_bytes", "9223372036854771712\n");  // v1's "no limit"
    QCOMPARE(cgroupMemoryLimit("4:memory:/jobs/a\n3:cpu:/\n", root()), std::optional<std::size_t>(1073741824));
  }

  void aParentsLowerLimitBindsTheChild() {
    put("/memory/jobs/a/memory.limit_in_bytes", "4294967296\n");
    put("/memory/jobs/memory.limit_in_bytes", "536870912\n");
    QCOMPARE(cgroupMemoryLimit("4:memory:/jobs/a\n", root()), std::optional<std::size_t>(536870912));
  }

  void v2AloneAndBesideV1() {
    put("/user.slice/run.scope/memory.max", "2147483648\n");
    put("/user.slice/memory.max", "max\n");
    QCOMPARE(cgroupMemoryLimit("0::/user.slice/run.scope\n", root()), std::optional<std::size_t>(2147483648));
    fs::remove_all(root());
    put("/unified/box/memory.max", "3221225472\n");
    put("/memory/box/memory.limit_in_bytes", "9223372036854771712\n");
    QCOMPARE(cgroupMemoryLimit("4:memory:/box\n0::/box\n", root()), std::optional<std::size_t>(3221225472));
  }

  void noLimitWhereNoneIsSetOrReadable() {
    put("/memory/a/memory.limit_in_bytes", "9223372036854771712\n");
    put("/b/memory.max", "max\n");
    put("/c/memory.max", "12abc\n");
    put("/d/memory.max", std::string(4096, '9'));
    for (const char* text : {"4:memory:/a\n", "0::/b\n", "0::/c\n", "0::/d\n", "3:cpu:/a\n", "", "garbage",
                             "0::relative/path\n", "0::/../../etc\n"})
      QVERIFY2(!cgroupMemoryLimit(text, root()), text);
  }

  void usableMemoryIsAtMostThePhysical() {
    const std::size_t physical = static_cast<std::size_t>(sysconf(_SC_PHYS_PAGES)) * sysconf(_SC_PAGE_SIZE);
    QVERIFY(usableMemory() > 0);
    QVERIFY(usableMemory() <= physical);
  }
};

QTEST_GUILESS_MAIN(MachineMemoryTest)
#include "MachineMemoryTest.moc"
