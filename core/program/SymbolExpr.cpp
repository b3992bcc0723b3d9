#include "SymbolExpr.h"

#include <cctype>
#include <vector>

namespace torchir {
namespace {

/// Recursive descent over `Name(arg, arg, key=value)`; keyword arguments are sympy assumptions.
class Parser {
 public:
  explicit Parser(const std::string& s) : m_s(s) {}
  bool parse(std::string& out) {
    out = term();
    return m_ok && m_pos == m_s.size();
  }

 private:
  void skipSpace() {
    while (m_pos < m_s.size() && m_s[m_pos] == ' ') ++m_pos;
  }
  std::string ident() {
    const auto start = m_pos;
    while (m_pos < m_s.size() && (std::isalnum(static_cast<unsigned char>(m_s[m_pos])) || m_s[m_pos] == '_' ||
                                   m_s[m_pos] == '-'))
      ++m_pos;
    return m_s.substr(start, m_pos - start);
  }
  std::string term() {
    // Real expressions nest a few levels; a file's could nest 100k and overflow the stack.
    if (m_depth >= kMaxDepth) return fail();
    ++m_depth;
    std::string out = termBody();
    --m_depth;
    return out;
  }
  std::string termBody() {
    skipSpace();
    if (m_pos < m_s.size() && m_s[m_pos] == '\'') {
      const auto end = m_s.find('\'', m_pos + 1);
      if (end == std::string::npos) return fail();
      auto text = m_s.substr(m_pos + 1, end - m_pos - 1);
      m_pos = end + 1;
      return text;
    }
    const std::string name = ident();
    if (name.empty()) return fail();
    if (m_pos >= m_s.size() || m_s[m_pos] != '(') return name;
    ++m_pos;
    std::vector<std::string> args;
    while (m_ok) {
      skipSpace();
      if (m_pos < m_s.size() && m_s[m_pos] == ')') break;
      const auto save = m_pos;
      const std::string key = ident();
      if (m_pos < m_s.size() && m_s[m_pos] == '=' && !key.empty()) {
        ++m_pos;
        term();  // an assumption such as positive=True: not part of the expression
      } else {
        m_pos = save;
        args.push_back(term());
      }
      skipSpace();
      if (m_pos < m_s.size() && m_s[m_pos] == ',') ++m_pos;
      else break;
    }
    if (m_pos >= m_s.size() || m_s[m_pos] != ')') return fail();
    ++m_pos;
    return render(name, args);
  }
  static std::string join(const std::vector<std::string>& a, const std::string& sep) {
    std::string out;
    for (std::size_t i = 0; i < a.size(); ++i) out += (i ? sep : "") + a[i];
    return out;
  }
  static std::string render(const std::string& name, const std::vector<std::string>& a) {
    if ((name == "Symbol" || name == "Integer") && a.size() == 1) return a[0];
    if (name == "Mul") return join(a, "*");
    if (name == "Add") return join(a, " + ");
    if (name == "Pow" && a.size() == 2) return a[0] + "**" + a[1];
    return name + "(" + join(a, ", ") + ")";
  }
  std::string fail() {
    m_ok = false;
    return {};
  }
  static constexpr int kMaxDepth = 64;
  const std::string& m_s;
  std::size_t m_pos = 0;
  int m_depth = 0;
  bool m_ok = true;
};

}  // namespace

std::string readableSymbolExpr(const std::string& srepr) {
  std::string out;
  return Parser(srepr).parse(out) ? out : srepr;
}

}  // namespace torchir
