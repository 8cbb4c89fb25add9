// A request body read as JSON: bounded nesting, no duplicate keys, no byte order mark or NUL.
#pragma once

#include <cstddef>
#include <string_view>

#include <nlohmann/json.hpp>

namespace shaderwatch {

// Bodies at least this large are checked as text before any tree is built (and parsed one at a time: ingest_parse).
inline constexpr std::size_t kCheckedFirstBytes = 8u << 20;

// Parses a request body that must be a JSON object nested at most max_nesting deep; ClientError (400)
// naming what is wrong otherwise.
nlohmann::json parse_json_object(std::string_view body, std::size_t max_nesting);

}  // namespace shaderwatch
