// A request body read as JSON: bounded nesting, no duplicate keys, no byte order mark or NUL.
#pragma once

#include <cstddef>
#include <string_view>

#include <nlohmann/json.hpp>

namespace shaderwatch {

// Depth of the deepest array/object nesting in a JSON text, stopping early past limit.
std::size_t json_nesting_depth(std::string_view text, std::size_t limit);
// Parses a request body that must be a JSON object nested at most max_nesting deep; ClientError (400)
// naming what is wrong otherwise.
nlohmann::json parse_json_object(std::string_view body, std::size_t max_nesting);

}  // namespace shaderwatch
