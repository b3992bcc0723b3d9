// The project's ExecuTorch schema (core/executorch/schema) against the .fbs files the executorch
// package installs: every table's fields at the same ids with the same types, every enum value
// and union member the same. Upstream may add fields and members after ours (the format grows by
// appending); any other change fails here, not in a user's hands.
#include <QtTest>
#include <filesystem>
#include <flatbuffers/idl.h>
#include <flatbuffers/util.h>

namespace {

std::string typeText(const flatbuffers::Type& t) {
  std::string s = flatbuffers::kTypeNames[t.base_type];
  if (t.base_type == flatbuffers::BASE_TYPE_VECTOR) s += std::string("<") + flatbuffers::kTypeNames[t.element] + ">";
  if (t.struct_def) s += " " + t.struct_def->name;
  if (t.enum_def) s += " " + t.enum_def->name;
  return s;
}

/// Parses `file` (its includes beside it) or fails the test.
void parse(flatbuffers::Parser& parser, const std::string& file) {
  std::string text;
  QVERIFY2(flatbuffers::LoadFile(file.c_str(), false, &text), file.c_str());
  const std::string dir = std::filesystem::path(file).parent_path().string() + "/";
  const char* includes[] = {dir.c_str(), nullptr};
  QVERIFY2(parser.Parse(text.c_str(), includes, file.c_str()), (file + ": " + parser.error_).c_str());
}

}  // namespace

class SchemaTest : public QObject {
  Q_OBJECT

  void compare(const std::string& ours, const std::string& upstream) {
    flatbuffers::Parser mine, theirs;
    parse(mine, ours);
    parse(theirs, upstream);
    QVERIFY(!mine.structs_.vec.empty() || !mine.enums_.vec.empty());
    for (const flatbuffers::StructDef* s : mine.structs_.vec) {
      const flatbuffers::StructDef* u = theirs.LookupStruct(s->defined_namespace->GetFullyQualifiedName(s->name));
      QVERIFY2(u, ("table " + s->name + " is not upstream").c_str());
      QVERIFY2(s->fields.vec.size() <= u->fields.vec.size(), ("table " + s->name + " has fields upstream lacks").c_str());
      for (std::size_t i = 0; i < s->fields.vec.size(); ++i) {
        const auto* a = s->fields.vec[i];
        const auto* b = u->fields.vec[i];
        const std::string where = "table " + s->name + " field " + std::to_string(i) + " (" + a->name + ")";
        QVERIFY2(a->name == b->name, (where + ": upstream names it " + b->name).c_str());
        QVERIFY2(a->value.offset == b->value.offset, (where + ": another id upstream").c_str());
        QVERIFY2(typeText(a->value.type) == typeText(b->value.type),
                 (where + ": " + typeText(a->value.type) + " here, " + typeText(b->value.type) + " upstream").c_str());
        QVERIFY2(a->value.constant == b->value.constant, (where + ": another default upstream").c_str());
      }
    }
    for (const flatbuffers::EnumDef* e : mine.enums_.vec) {
      const flatbuffers::EnumDef* u = theirs.enums_.Lookup(e->defined_namespace->GetFullyQualifiedName(e->name));
      QVERIFY2(u, ("enum or union " + e->name + " is not upstream").c_str());
      QVERIFY2(e->Vals().size() <= u->Vals().size(), ("enum " + e->name + " has values upstream lacks").c_str());
      for (const flatbuffers::EnumVal* v : e->Vals()) {
        const flatbuffers::EnumVal* w = u->Lookup(v->name);
        QVERIFY2(w && w->GetAsInt64() == v->GetAsInt64(), ("enum " + e->name + " value " + v->name + " differs upstream").c_str());
      }
    }
  }

  static std::string upstream(const char* relative) {
    const QByteArray root = qgetenv("TORCHIR_EXECUTORCH_DIR");
    if (root.isEmpty()) return {};
    return root.toStdString() + "/" + relative;
  }

 private Q_SLOTS:
  void initTestCase() {
    QVERIFY2(!qgetenv("TORCHIR_EXECUTORCH_DIR").isEmpty(),
             "TORCHIR_EXECUTORCH_DIR names no executorch package (scripts/deps.sh installs it)");
  }
  void programMatchesUpstream() {
    compare(TORCHIR_SCHEMA_DIR "/program.fbs", upstream("schema/program.fbs"));
  }
  void etdumpMatchesUpstream() {
    compare(TORCHIR_SCHEMA_DIR "/etdump.fbs", upstream("devtools/etdump/etdump_schema_flatcc.fbs"));
  }
  void scalarTypesMatchUpstream() {
    compare(TORCHIR_SCHEMA_DIR "/scalar_type.fbs", upstream("schema/scalar_type.fbs"));
  }
};

QTEST_GUILESS_MAIN(SchemaTest)
#include "SchemaTest.moc"
