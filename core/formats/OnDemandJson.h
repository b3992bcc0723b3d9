#pragma once
// Reading a file's JSON with simdjson's On-Demand API, straight into the program model (no tree
// is built). Objects are read in one forward pass over their fields (forEachField): simdjson checks
// the text as it goes only on such a pass; a lookup by key that wraps around an object assumes the
// object is well formed, which a stranger's file need not be. The helpers turn a value of the wrong
// kind or a missing field into the file's LoadError, naming what was expected, and a syntax error
// into "RECORD is not valid JSON (...)".
// A file that includes this header is compiled with simdjson's definitions (link
// simdjson::simdjson): its classes' layout depends on them, and the functions below are inlined
// into the includer.
#include <simdjson.h>

#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace torchir::json {

namespace od = simdjson::ondemand;

class Reader {
 public:
  Reader(std::string file, std::string record) : m_file(std::move(file)), m_record(std::move(record)) {}

  const std::string& file() const { return m_file; }
  const std::string& record() const { return m_record; }

  // `what` names the value in messages; it is read only when something fails.
  [[noreturn]] void fail(std::string_view what) const;
  /// A failed access: `what` when the JSON is well formed but not what the schema says, else
  /// the syntax error.
  [[noreturn]] void fail(simdjson::error_code e, std::string_view what) const;

  od::object object(od::value v, std::string_view what) const;
  od::array array(od::value v, std::string_view what) const;
  std::string_view string(od::value v, std::string_view what) const;
  bool boolean(od::value v, std::string_view what) const;
  /// An integer that fits int64 exactly (not 2.0, 2.5 or 2^64): "WHAT is not a 64-bit integer".
  int64_t int64(od::value v, std::string_view what) const;


 private:
  std::string m_file, m_record;
};

/// Parses `text` (the reader's record) and calls `build` on its top-level object. Strict JSON
/// first, in place when the string has simdjson's padding in its capacity; when that fails, the
/// text is looked at: nested past kMaxJsonDepth it is refused as such, and with Python's bare
/// NaN or Infinity it is read again (build called anew) with those quoted.
/// `readable`: how many bytes from the text's start may be read (simdjson reads up to
/// SIMDJSON_PADDING past the end; with fewer the text is copied).
void parseObject(std::string_view text, std::size_t readable, const Reader& r,
                 const std::function<void(od::object)>& build);

/// A string value, as get_string() reads it but in place in the text when it has no escape (the
/// names, targets and dtypes of torch's schema): unescaping copies each into simdjson's string
/// buffer, 37 MB of a 100k-node program's keys alone. The view lives as long as the parse.
simdjson::error_code stringOf(od::value& v, std::string_view& out);

/// What kind of JSON value `v` is; a syntax error where it should start fails through `r`.
od::json_type typeOf(const Reader& r, od::value& v);
/// An integer, when `v` is a number written without fraction or exponent that fits int64.
std::optional<int64_t> exactInt(od::value& v);
/// A float: a number, or a non-finite one written as a string ("Infinity", "-Infinity", "NaN")
/// or as a bare token (which the text's markers stand for).
std::optional<double> floatOf(od::value& v);
/// The value's JSON text as written; `v` must not have been read at all (On-Demand reads forward only).
std::string rawText(const Reader& r, od::value v);

/// A field's key as written in the text, when it has no escape (every key of torch's schema):
/// read in place, as stringOf reads values. None when it has one, or runs long; the caller
/// unescapes it then.
std::optional<std::string_view> keyInPlace(const od::raw_json_string& key);

/// Calls `read(key, value)` for each field of an object, in the file's order; false when `read`
/// returns false (or, for a value, when it is not an object).
template <class Read>
bool forEachField(const Reader& r, od::object& o, Read&& read) {
  for (auto field : o) {
    std::string_view key;
    od::value x;
    if (field.error()) r.fail(field.error(), "a key");
    if (const auto plain = keyInPlace(field.value_unsafe().key()))
      key = *plain;
    else if (const auto e = field.unescaped_key().get(key))
      r.fail(e, "a key");
    if (const auto e = field.value().get(x)) r.fail(e, "a value");
    if (!read(key, x)) return false;
  }
  return true;
}
template <class Read>
bool forEachField(const Reader& r, od::value v, Read&& read) {
  od::object o;
  return v.get_object().get(o) == simdjson::SUCCESS && forEachField(r, o, read);
}

/// A serialized union, an object of exactly one field (`{"as_tensor": {...}}`): calls
/// `read(key, value)` on it. False when `v` is not such an object or `read` returns false.
template <class Read>
bool readUnion(const Reader& r, od::value v, Read&& read) {
  int fields = 0;
  return forEachField(r, v, [&](std::string_view key, od::value body) { return ++fields == 1 && read(key, body); }) &&
         fields == 1;
}

/// Calls `read(element)` for each element of an array; false when `v` is not an array or `read`
/// returns false.
template <class Read>
bool forEach(const Reader& r, od::value v, Read&& read) {
  od::array a;
  if (v.get_array().get(a)) return false;
  for (auto element : a) {
    od::value x;
    if (const auto e = element.get(x)) r.fail(e, "an array element");
    if (!read(x)) return false;
  }
  return true;
}

}  // namespace torchir::json
