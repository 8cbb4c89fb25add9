// Times as the API spells them: ISO 8601 in UTC, to the millisecond.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace shaderwatch {

// ISO 8601 (YYYY-MM-DDTHH:MM:SS[.fff][Z|+HH:MM]) to Unix milliseconds; nullopt when malformed.
std::optional<std::int64_t> parse_iso8601_ms(std::string_view s);
std::string format_iso8601_ms(std::int64_t ms);
std::string now_iso();  // the wall clock, formatted

}  // namespace shaderwatch
