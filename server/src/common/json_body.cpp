#include "common/json_body.h"

#include <string>
#include <unordered_set>
#include <vector>

#include "common/client_error.h"

namespace shaderwatch {

namespace {

// nlohmann's own DOM builder, fed by one SAX pass that also keeps the keys of the objects open, refusing the text
// (ClientError, 400) at a duplicate key or where it is not JSON. (nlohmann's callback parser, which could do the
// same, rescans an array after each value it ends: 200,000 `{}` in one array took 7-11 s.)
class DomWithoutDuplicateKeys : public nlohmann::json_sax<nlohmann::json> {
 public:
  explicit DomWithoutDuplicateKeys(nlohmann::json& out) : dom_(out, true) {}
  bool null() override { return dom_.null(); }
  bool boolean(bool v) override { return dom_.boolean(v); }
  bool number_integer(number_integer_t v) override { return dom_.number_integer(v); }
  bool number_unsigned(number_unsigned_t v) override { return dom_.number_unsigned(v); }
  bool number_float(number_float_t v, const string_t& s) override { return dom_.number_float(v, s); }
  bool string(string_t& v) override { return dom_.string(v); }
  bool binary(binary_t& v) override { return dom_.binary(v); }
  bool start_object(std::size_t n) override {
    keys_.emplace_back();
    return dom_.start_object(n);
  }
  bool key(string_t& k) override {
    if (!keys_.back().insert(k).second) throw ClientError(400, "duplicate key in a JSON object", k);
    return dom_.key(k);
  }
  bool end_object() override {
    keys_.pop_back();
    return dom_.end_object();
  }
  bool start_array(std::size_t n) override { return dom_.start_array(n); }
  bool end_array() override { return dom_.end_array(); }
  bool parse_error(std::size_t, const std::string&, const nlohmann::json::exception& e) override {
    throw ClientError(400, std::string("body is not valid JSON: ") + e.what());
  }

 private:
  nlohmann::detail::json_sax_dom_parser<nlohmann::json> dom_;
  std::vector<std::unordered_set<std::string>> keys_;  // per open object
};

}  // namespace

nlohmann::json parse_json_object(std::string_view body, std::size_t max_nesting) {
  if (body.empty()) throw ClientError(400, "empty body: expected a JSON object");
  if (json_nesting_depth(body, max_nesting) > max_nesting)
    throw ClientError(400, "JSON nested deeper than " + std::to_string(max_nesting) + " levels");
  // nlohmann skips a byte order mark, stops at a NUL and keeps the last of duplicate keys: each would
  // store something other than what the client meant to send.
  if (body.starts_with("\xEF\xBB\xBF")) throw ClientError(400, "a UTF-8 byte order mark before the JSON", "$");
  if (body.find('\0') != std::string_view::npos) throw ClientError(400, "a NUL byte in the body", "$");
  nlohmann::json j;
  DomWithoutDuplicateKeys builder(j);
  try {
    nlohmann::json::sax_parse(body.begin(), body.end(), &builder);
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
