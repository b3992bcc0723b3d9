// The zip container on hand-made archives: naming (root folder or flat), zip64 fields, damage;
// and on ZipWriter's, past 65535 records.
#include <QTemporaryDir>
#include <QtTest>
#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#include "program/LoadError.h"
#include "formats/Pt2Archive.h"
#include "formats/ZipWriter.h"

using namespace torchir;

namespace {

std::uint32_t crc32Of(const std::string& s) {
  std::uint32_t c = 0xffffffffu;
  for (unsigned char b : s) {
    c ^= b;
    for (int k = 0; k < 8; ++k) c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1u)));
  }
  return ~c;
}

struct ZipEntry {
  std::string name, data;
  bool zip64 = false;       // sizes and offset only in zip64 extra fields (0xffffffff in the headers)
  std::uint32_t crc = 0;    // 0: the right one
  std::uint64_t csize = 0;  // 0: the right one (a lie makes the entry reach past the file)
};

/// A zip as any writer could make it: stored entries, optionally with zip64 fields.
std::string makeZip(const std::vector<ZipEntry>& entries) {
  std::string out, central;
  auto put = [](std::string& s, std::uint64_t v, int n) {
    for (int i = 0; i < n; ++i) s.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  };
  for (const auto& e : entries) {
    const std::uint64_t offset = out.size();
    const std::uint32_t crc = e.crc ? e.crc : crc32Of(e.data);
    const std::uint64_t size = e.csize ? e.csize : e.data.size();
    const std::uint32_t size32 = e.zip64 ? 0xffffffffu : static_cast<std::uint32_t>(size);
    std::string localExtra, centralExtra;
    if (e.zip64) {
      put(localExtra, 1, 2), put(localExtra, 16, 2), put(localExtra, size, 8), put(localExtra, size, 8);
      put(centralExtra, 1, 2), put(centralExtra, 24, 2), put(centralExtra, size, 8), put(centralExtra, size, 8);
      put(centralExtra, offset, 8);
    }
    put(out, 0x04034b50, 4), put(out, 45, 2), put(out, 0, 2), put(out, 0, 2), put(out, 0, 4), put(out, crc, 4);
    put(out, size32, 4), put(out, size32, 4), put(out, e.name.size(), 2), put(out, localExtra.size(), 2);
    out += e.name + localExtra + e.data;
    put(central, 0x02014b50, 4), put(central, 45, 2), put(central, 45, 2), put(central, 0, 2), put(central, 0, 2);
    put(central, 0, 4), put(central, crc, 4), put(central, size32, 4), put(central, size32, 4);
    put(central, e.name.size(), 2), put(central, centralExtra.size(), 2), put(central, 0, 2), put(central, 0, 2);
    put(central, 0, 2), put(central, 0, 4), put(central, e.zip64 ? 0xffffffffu : offset, 4);
    central += e.name + centralExtra;
  }
  const std::uint64_t cdOffset = out.size();
  out += central;
  put(out, 0x06054b50, 4), put(out, 0, 2), put(out, 0, 2), put(out, entries.size(), 2), put(out, entries.size(), 2);
  put(out, central.size(), 4), put(out, cdOffset, 4), put(out, 0, 2);
  return out;
}

}  // namespace

class Pt2ArchiveTest : public QObject {
  Q_OBJECT
  QTemporaryDir m_dir;

  std::string write(const std::string& name, const std::string& bytes) {
    const std::string path = m_dir.filePath(QString::fromStdString(name)).toStdString();
    std::ofstream(path, std::ios::binary) << bytes;
    return path;
  }

 private Q_SLOTS:
  void recordsAreRelativeToTheRootFolder() {
    Pt2Archive a(write("rooted.zip", makeZip({{"m/models/model.json", "{}"}, {"m/data/x", "abc"}})));
    QCOMPARE(a.records(), (std::vector<std::string>{"models/model.json", "data/x"}));
    QVERIFY(a.has("data/x"));
    QVERIFY(!a.has("m/data/x"));
    QCOMPARE(a.text("data/x"), std::string("abc"));
  }

  void flatArchiveKeepsFullNames() {
    Pt2Archive a(write("flat.zip", makeZip({{"serialized_exported_program.json", "{}"}, {"version", "8.5"},
                                            {"extra_files/a", "x"}})));
    QVERIFY(a.has("serialized_exported_program.json"));
    QVERIFY(a.has("extra_files/a"));
    QCOMPARE(a.text("version"), std::string("8.5"));
  }

  void zip64FieldsAreRead() {
    // sizes and offsets in zip64 extra fields only, as writers put them for records past 4 GiB
    const std::string payload(1000, 'w');
    Pt2Archive a(write("zip64.zip", makeZip({{"r/a", "first", true}, {"r/b", payload, true}})));
    QCOMPARE(a.text("a"), std::string("first"));
    const auto s = a.storage("b");
    QCOMPARE(s->nbytes, payload.size());
    QCOMPARE(std::string(reinterpret_cast<const char*>(s->data), s->nbytes), payload);
  }

  void writtenArchivesOfMoreThan65535RecordsReadWhole() {
    // a zip's end record counts records in 16 bits: past 65534, ZipWriter adds zip64's count
    const std::string path = m_dir.filePath("many.zip").toStdString();
    {
      ZipWriter zip(path);
      for (int i = 0; i < 70000; ++i) zip.add("m/r" + std::to_string(i), std::to_string(i));
      zip.close();
    }
    Pt2Archive a(path);
    QCOMPARE(a.records().size(), std::size_t{70000});
    QCOMPARE(a.text("r69999"), std::string("69999"));
  }

  void nestedZipReadsInPlace() {
    const std::string inner = makeZip({{"archive/data.pkl", "pickle"}});
    Pt2Archive outer(write("outer.zip", makeZip({{"o/inner.pt", inner}})));
    const auto bytes = outer.storage("inner.pt");
    Pt2Archive nested(bytes);
    QCOMPARE(nested.text("data.pkl"), std::string("pickle"));
    QCOMPARE(nested.storage("data.pkl")->data, bytes->data + 30 + std::string("archive/data.pkl").size());
  }

  // A large record is read while its CRC is checked on a second thread: what the reader makes of
  // a damaged one (a syntax error, or nothing) gives way to the CRC's verdict, as for a small one.
  void withTextPutsTheCrcFirst_data() {
    QTest::addColumn<int>("size");
    QTest::newRow("checked before use") << 1000;
    QTest::newRow("checked alongside") << (3 << 20);
  }
  void withTextPutsTheCrcFirst() {
    QFETCH(int, size);
    const std::string body(static_cast<std::size_t>(size), '[');
    auto failing = [](std::string_view, std::size_t) { throw LoadError("x", "the reader's own error"); };
    auto says = [&](const Pt2Archive& a, const std::function<void(std::string_view, std::size_t)>& use) {
      try {
        a.withText("a", use);
      } catch (const LoadError& e) {
        return std::string(e.what());
      }
      return std::string("no error");
    };
    const Pt2Archive good(write("good.zip", makeZip({{"r/a", body}})));
    std::string seen;
    good.withText("a", [&](std::string_view text, std::size_t readable) {
      seen = text;
      QVERIFY(readable >= text.size() + Pt2Archive::kTextPadding);
    });
    QCOMPARE(seen, body);
    QVERIFY(says(good, failing).find("the reader's own error") != std::string::npos);

    const Pt2Archive bad(write("bad.zip", makeZip({{"r/a", body, false, 1234}})));
    QVERIFY(says(bad, failing).find("fails its CRC check") != std::string::npos);
    QVERIFY(says(bad, [](std::string_view, std::size_t) {}).find("fails its CRC check") != std::string::npos);
  }

  void damageIsOneLineLoadError_data() {
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("says");
    QTest::addColumn<bool>("onRead");
    const std::string good = makeZip({{"r/a", "hello"}, {"r/b", "world"}});
    QTest::newRow("random") << QByteArray(4096, 'x') << "not a zip" << false;
    QTest::newRow("truncated") << QByteArray::fromStdString(good.substr(0, good.size() / 2)) << "truncated" << false;
    QTest::newRow("bad CRC") << QByteArray::fromStdString(makeZip({{"r/a", "hello", false, 1234}})) << "CRC" << true;
    QTest::newRow("past the end") << QByteArray::fromStdString(makeZip({{"r/a", "hello", false, 0, 1 << 20}}))
                                  << "outside the file" << true;
  }
  void damageIsOneLineLoadError() {
    QFETCH(QByteArray, bytes);
    QFETCH(QString, says);
    QFETCH(bool, onRead);
    const auto path = write("damaged.zip", bytes.toStdString());
    try {
      Pt2Archive a(path);
      QVERIFY2(onRead, "opened a damaged archive");
      (void)a.text("a");
      QFAIL("read a damaged record");
    } catch (const LoadError& e) {
      QVERIFY2(QString(e.what()).contains(says), e.what());
      QVERIFY(!QString(e.what()).contains('\n'));
    }
  }
};

QTEST_APPLESS_MAIN(Pt2ArchiveTest)
#include "Pt2ArchiveTest.moc"
