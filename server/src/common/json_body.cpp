#include "common/json_body.h"

#include <set>
#include <vector>

#include "common/client_error.h"

namespace shaderwatch {

nlohmann::json parse_json_object(std::string_view body, std::size_t max_nesting) {
  if (body.empty()) throw ClientError(400, "empty body: expected a JSON object");
  if (json_nesting_depth(body, max_nesting) > max_nesting)
    throw ClientError(400, "JSON nested deeper than " + std::to_string(max_nesting) + " levels");
  // nlohmann skips a byte order mark, stops at a NUL and keeps the last of duplicate keys: each would
  // store something other than what the client meant to send.
  if (body.starts_with("\xEF\xBB\xBF")) throw ClientError(400, "a UTF-8 byte order mark before the JSON", "$");
  if (body.find('\0') != std::string_view::npos) throw ClientError(400, "a NUL byte in the body", "$");
  std::vector<std::set<std::string>> keys;  // per open object
  const nlohmann::json::parser_callback_t no_duplicates = [&](int, nlohmann::json::parse_event_t event,
                                                              nlohmann::json& parsed) {
    using E = nlohmann::json::parse_event_t;
    if (event == E::object_start) keys.emplace_back();
    if (event == E::object_end) keys.pop_back();
    if (event == E::key && !keys.back().insert(parsed.get<std::string>()).second)
      throw ClientError(400, "duplicate key in a JSON object", parsed.get<std::string>());
    return true;
  };
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(body.begin(), body.end(), no_duplicates);
  } catch (const nlohmann::json::exception& e) {
    throw ClientError(400, std::string("body is not valid JSON: ") + e.what());
  }
  if (!j.is_object()) throw ClientError(400, "body must be a JSON object", "$");
  return j;
}

std::size_t json_nesting_depth(std::string_view text, std::size_t limit) {
  std::size_t depth = 0, max_depth = 0;
  bool in_string = false, escape = false;
  for (char ch : text) {
    if (in_string) {
      if (escape) escape = false;
      else if (ch == '\\') escape = true;
      else if (ch == '"') in_string = false;
      continue;
    }
    if (ch == '"') in_string = true;
    else if (ch == '[' || ch == '{') {
      if (++depth > max_depth) {
        max_depth = depth;
        if (max_depth > limit) return max_depth;  // no need to scan the rest
      }
    } else if ((ch == ']' || ch == '}') && depth > 0) --depth;
  }
  return max_depth;
}

}  // namespace shaderwatch
