#include "Pt2Archive.h"

#include <c10/util/Exception.h>
#include <caffe2/serialize/inline_container.h>

#include <fstream>

#include "LoadError.h"
#include "MappedFile.h"

namespace torchir {

struct Pt2Archive::Impl {
  std::unique_ptr<caffe2::serialize::PyTorchStreamReader> reader;
  std::shared_ptr<const MappedFile> file;
  std::vector<std::string> records;
};

namespace {
std::string firstLine(const std::string& s) {
  auto line = s.substr(0, s.find('\n'));
  return line.empty() ? "unreadable archive" : line;
}
}  // namespace

Pt2Archive::Pt2Archive(const std::string& path) : m_path(path), m_impl(std::make_unique<Impl>()) {
  m_impl->file = MappedFile::open(path);  // also reports a missing file clearly
  if (m_impl->file->size() < 22) throw LoadError(path, "not a zip archive (file too short)");
  try {
    m_impl->reader = std::make_unique<caffe2::serialize::PyTorchStreamReader>(path);
    m_impl->records = m_impl->reader->getAllRecords();
  } catch (const c10::Error& e) {
    throw LoadError(path, "not a readable zip archive: " + firstLine(e.what_without_backtrace()));
  }
}

Pt2Archive::~Pt2Archive() = default;

std::vector<std::string> Pt2Archive::records() const { return m_impl->records; }

bool Pt2Archive::has(const std::string& record) const {
  try {
    return m_impl->reader->hasRecord(record);
  } catch (const c10::Error&) {
    return false;
  }
}

std::string Pt2Archive::text(const std::string& record) const {
  try {
    auto [data, size] = m_impl->reader->getRecord(record);
    return std::string(static_cast<const char*>(data.get()), size);
  } catch (const c10::Error& e) {
    throw LoadError(m_path, "cannot read record " + record + ": " + firstLine(e.what_without_backtrace()));
  }
}

std::shared_ptr<const Storage> Pt2Archive::storage(const std::string& record) const {
  try {
    const std::size_t size = m_impl->reader->getRecordSize(record);
    const std::size_t offset = m_impl->reader->getRecordOffset(record);
    if (offset + size > m_impl->file->size())
      throw LoadError(m_path, "record " + record + " lies outside the file (truncated?)");
    auto owner = std::shared_ptr<const void>(m_impl->file, m_impl->file.get());
    return std::make_shared<Storage>(
        Storage{size ? m_impl->file->data() + offset : nullptr, size, owner, m_path + ":" + record});
  } catch (const c10::Error& e) {
    throw LoadError(m_path, "cannot read record " + record + ": " + firstLine(e.what_without_backtrace()));
  }
}

}  // namespace torchir
