// A request body read as JSON: bounded nesting, no duplicate keys, no byte order mark or NUL.
#pragma once

#include <cstddef>
#include <string_view>

#include <nlohmann/json.hpp>

namespace shaderwatch {

// Parses a request body that must be a JSON object nested at most max_nesting deep; ClientError (400)
// naming what is wrong otherwise.
nlohmann::json parse_json_object(std::string_view body, std::size_t max_nesting);

}  // namespace shaderwatch
