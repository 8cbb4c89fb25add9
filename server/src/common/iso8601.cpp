#include "common/iso8601.h"

#include <cstdio>
#include <ctime>

#include "common/clock.h"

namespace shaderwatch {

namespace {
bool digits(std::string_view s, std::size_t pos, std::size_t n, int& out) {
  if (pos + n > s.size()) return false;
  out = 0;
  for (std::size_t i = pos; i < pos + n; ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    out = out * 10 + (s[i] - '0');
  }
  return true;
}
// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}
}  // namespace

std::optional<std::int64_t> parse_iso8601_ms(std::string_view s) {
  int y, mo, d, h, mi, sec;
  if (s.size() < 19 || !digits(s, 0, 4, y) || s[4] != '-' || !digits(s, 5, 2, mo) || s[7] != '-' ||
      !digits(s, 8, 2, d) || (s[10] != 'T' && s[10] != 't' && s[10] != ' ') || !digits(s, 11, 2, h) ||
      s[13] != ':' || !digits(s, 14, 2, mi) || s[16] != ':' || !digits(s, 17, 2, sec))
    return std::nullopt;
  static const int mdays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  // No 29 February outside leap years (it was read as 1 March) and no leap second (23:59:60 rolled over
  // into the next day): times that do not exist are refused, not moved.
  if (y < 1970 || y > 9999 || mo < 1 || mo > 12 || d < 1 || d > mdays[mo - 1] || (mo == 2 && d == 29 && !leap) ||
      h > 23 || mi > 59 || sec > 59)
    return std::nullopt;
  std::size_t pos = 19;
  int ms = 0;
  if (pos < s.size() && s[pos] == '.') {
    ++pos;
    std::size_t nd = 0;
    while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') {
      if (nd < 3) ms = ms * 10 + (s[pos] - '0');
      ++nd;
      ++pos;
    }
    if (nd == 0 || nd > 9) return std::nullopt;
    for (std::size_t k = nd; k < 3; ++k) ms *= 10;
  }
  std::int64_t offset_min = 0;
  if (pos < s.size() && (s[pos] == 'Z' || s[pos] == 'z')) {
    ++pos;
  } else if (pos < s.size() && (s[pos] == '+' || s[pos] == '-')) {
    int oh, om;
    const bool neg = s[pos] == '-';
    if (!digits(s, pos + 1, 2, oh) || pos + 3 >= s.size() || s[pos + 3] != ':' ||
        !digits(s, pos + 4, 2, om) || oh > 23 || om > 59)
      return std::nullopt;
    offset_min = (neg ? -1 : 1) * (oh * 60 + om);
    pos += 6;
  } else {
    return std::nullopt;  // a zone is required: local times are ambiguous across runners
  }
  if (pos != s.size()) return std::nullopt;
  const std::int64_t days = days_from_civil(y, static_cast<unsigned>(mo), static_cast<unsigned>(d));
  const std::int64_t secs = days * 86400 + h * 3600 + mi * 60 + sec - offset_min * 60;
  // Before 1970 in UTC (1970-01-01T00:00:00.5+00:01 is 59.5 s before): stored times are not negative.
  if (secs * 1000 + ms < 0) return std::nullopt;
  return secs * 1000 + ms;
}

std::string format_iso8601_ms(std::int64_t ms) {
  const std::time_t secs = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[96];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                static_cast<int>(ms % 1000));
  return buf;
}

std::string now_iso() { return format_iso8601_ms(now_ms()); }

}  // namespace shaderwatch
