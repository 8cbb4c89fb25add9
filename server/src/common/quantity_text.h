// Times and changes as the server's words say them (the verdict's explanations, the run reports): "261 us",
// "+12.9%", "2.61x"; "-" where the number is not known.
#pragma once

#include <string>

namespace shaderwatch {

std::string format_number(const char* printf_format, double v);
std::string time_text(double ns);
std::string pct_text(double pct);  // signed, one decimal
std::string ratio_text(double ratio);

}  // namespace shaderwatch
