#include "run/roofline.h"

namespace shaderwatch {

double roofline_seconds(const Traffic& t, const Bandwidths& b) {
  const double paired = static_cast<double>(std::min(t.bytes_read, t.bytes_written));
  const double reads = static_cast<double>(t.bytes_read) - paired, writes = static_cast<double>(t.bytes_written) - paired;
  const double separate = t.bytes_read / b.read_only + t.bytes_written / b.write;
  return std::min(separate, 2 * paired / b.copy() + reads / b.read_only + writes / b.write);
}

double pct_of_roofline(const Traffic& traffic, const Bandwidths& b, double seconds) {
  if (b.copy() <= 0 || b.read_only <= 0 || b.write <= 0 || seconds <= 0) return 0;
  return 100.0 * roofline_seconds(traffic, b) / seconds;
}

}  // namespace shaderwatch
