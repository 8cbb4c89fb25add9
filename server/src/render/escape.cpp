#include "render/escape.h"

#include <cstdint>
#include <string_view>

namespace shaderwatch::report {

namespace {

// The code point starting at s[i] and its length in bytes; {0xFFFD, 1} for a byte that does not start a valid,
// shortest-form UTF-8 sequence.
std::pair<std::uint32_t, std::size_t> next_code_point(std::string_view s, std::size_t i) {
  constexpr std::pair<std::uint32_t, std::size_t> invalid{0xFFFD, 1};
  const auto b0 = static_cast<unsigned char>(s[i]);
  if (b0 < 0x80) return {b0, 1};
  const std::size_t len = b0 >= 0xF0 ? 4 : b0 >= 0xE0 ? 3 : b0 >= 0xC0 ? 2 : 0;
  if (len == 0 || b0 > 0xF4 || i + len > s.size()) return invalid;
  std::uint32_t cp = b0 & (0x7F >> len);
  for (std::size_t k = 1; k < len; ++k) {
    const auto b = static_cast<unsigned char>(s[i + k]);
    if ((b & 0xC0) != 0x80) return invalid;
    cp = (cp << 6) | (b & 0x3F);
  }
  constexpr std::uint32_t kShortest[] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < kShortest[len] || cp > 0x10FFFF) return invalid;
  return {cp, len};
}

bool xml_char(std::uint32_t cp) {
  return cp == 0x9 || cp == 0xA || (cp >= 0x20 && cp <= 0xD7FF) || (cp >= 0xE000 && cp <= 0xFFFD) || cp >= 0x10000;
}

}  // namespace

std::string xml_text(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    const auto [cp, len] = next_code_point(s, i);
    const bool valid = !(cp == 0xFFFD && len == 1);
    switch (cp) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default:
        if (!valid) out += "\xEF\xBF\xBD";
        else if (xml_char(cp)) out.append(s, i, len);
    }
    i += len;
  }
  return out;
}

std::string md_text(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (const char ch : s) {
    if (ch == '\n' || ch == '\r') {
      out += ' ';
    } else if (std::string_view("\\`*_[]<>&|~!").find(ch) != std::string_view::npos) {
      // What can open markup in a cell: emphasis, code, links and images ("!["; "(" only follows a "]"),
      // HTML, entities, strikethrough, the column bar. CommonMark reads a backslash-escaped one as text.
      out += '\\';
      out += ch;
    } else {
      out += ch;
    }
  }
  return out;
}

std::string md_code(const std::string& s) {
  std::string body;
  std::size_t run = 0, longest = 0;
  for (const char ch : s) {
    run = ch == '`' ? run + 1 : 0;
    if (run > longest) longest = run;
    if (ch == '|') body += "\\|";
    else if (ch == '\n' || ch == '\r') body += ' ';
    else body += ch;
  }
  const std::string fence(longest + 1, '`');
  const bool pad = !body.empty() && (body.front() == '`' || body.back() == '`');
  return fence + (pad ? " " : "") + body + (pad ? " " : "") + fence;
}

std::string csv_field(const std::string& s) {
  const bool formula = !s.empty() && std::string_view("=+-@\t\r").find(s.front()) != std::string_view::npos;
  const std::string text = formula ? "'" + s : s;
  if (!formula && text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string out = "\"";
  for (const char ch : text) out += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return out + "\"";
}

}  // namespace shaderwatch::report
