#include "common/quantity_text.h"

#include <cmath>
#include <cstdio>

namespace shaderwatch {

std::string format_number(const char* printf_format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, printf_format, v);
  return buf;
}

std::string time_text(double ns) {
  if (!std::isfinite(ns)) return "-";
  if (ns >= 1e9) return format_number("%.3g s", ns / 1e9);
  if (ns >= 1e6) return format_number("%.3g ms", ns / 1e6);
  if (ns >= 1e3) return format_number("%.3g us", ns / 1e3);
  return format_number("%.3g ns", ns);
}

std::string pct_text(double pct) { return std::isfinite(pct) ? format_number("%+.1f%%", pct) : "-"; }

std::string ratio_text(double ratio) { return std::isfinite(ratio) ? format_number("%.2fx", ratio) : "-"; }

}  // namespace shaderwatch
