// A request body read as JSON: bounded nesting, no duplicate keys, no byte order mark or NUL.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace shaderwatch {

// Bodies at least this large are checked as text before any tree is built (and parsed one at a time: ingest_parse).
inline constexpr std::size_t kCheckedFirstBytes = 8u << 20;

// Parses a request body that must be a JSON object nested at most max_nesting deep; ClientError (400)
// naming what is wrong otherwise.
nlohmann::json parse_json_object(std::string_view body, std::size_t max_nesting);

// The same reading, with the elements of one array handed out rather than kept: `array_at` names it by the keys
// from the root (e.g. {"benchmark", "benchmarks"}); each element, built on its own, goes to `element(value, index)`
// as it ends and is dropped, and the array is left empty in the answer. A large body's rows are checked this way
// one at a time, without the tree of the whole document. What is kept may take at most twice the body's size.
nlohmann::json parse_json_object_streaming(std::string_view body, std::size_t max_nesting,
                                           const std::vector<std::string>& array_at,
                                           const std::function<void(const nlohmann::json&, std::size_t)>& element);

}  // namespace shaderwatch
