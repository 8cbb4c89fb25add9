#include "queries/query_helpers.h"

#include <shaderwatch/result_contract.h>

#include "common/iso8601.h"

#include <algorithm>

#include <nlohmann/json.hpp>

using nlohmann::json;

namespace shaderwatch {

void allow_only(const Params& q, std::initializer_list<const char*> allowed) {
  for (const auto& [k, v] : q) {
    bool ok = false;
    for (const char* a : allowed) ok = ok || k == a;
    if (!ok) throw ClientError(400, "unknown query parameter", k);
    if (v.size() > 1024) throw ClientError(400, "value longer than 1024 characters", k);
  }
}

std::optional<std::string> opt(const Params& q, const char* k) {
  auto it = q.find(k);
  if (it == q.end()) return std::nullopt;
  return it->second;
}

std::int64_t int_param(const Params& q, const char* k, std::int64_t dflt, std::int64_t lo,
                       std::int64_t hi) {
  auto it = q.find(k);
  if (it == q.end()) return dflt;
  const std::string& s = it->second;
  if (s.empty() || s.size() > 18 || !std::all_of(s.begin(), s.end(), [](char c) {
        return c >= '0' && c <= '9';
      }))
    throw ClientError(400, "must be a non-negative integer", k);
  const std::int64_t v = std::stoll(s);
  if (v < lo || v > hi)
    throw ClientError(400, "out of range [" + std::to_string(lo) + ", " + std::to_string(hi) + "]", k);
  return v;
}

std::int64_t time_param(const Params& q, const char* k, std::int64_t dflt) {
  auto it = q.find(k);
  if (it == q.end()) return dflt;
  auto ms = parse_iso8601_ms(it->second);
  if (!ms) throw ClientError(400, "must be ISO 8601 with a zone", k);
  return *ms;
}

std::optional<double> opt_f64(const sql::Stmt& st, int c) { return st.null(c) ? std::nullopt : std::optional(st.f64(c)); }
std::optional<std::int64_t> opt_i64(const sql::Stmt& st, int c) {
  return st.null(c) ? std::nullopt : std::optional(st.i64(c));
}
std::optional<std::string> opt_text(const sql::Stmt& st, int c) {
  return st.null(c) ? std::nullopt : std::optional(st.text(c));
}

std::int64_t run_pk(sql::Conn& c, const std::string& key, const char* field) {
  auto& st = c.q("SELECT id FROM runs WHERE run_key=?");
  st.bind(1, key);
  if (!st.step()) throw ClientError(404, "no run with id '" + key + "'", field);
  return st.i64(0);
}

double number_param(const Params& q, const char* name, double lo, double hi, double fallback) {
  const auto text = opt(q, name);
  if (!text) return fallback;
  char* end = nullptr;
  const double v = std::strtod(text->c_str(), &end);
  if (text->empty() || *end != '\0' || !(v >= lo && v < hi))
    throw ClientError(400, "must be a number in [" + json(lo).dump() + ", " + json(hi).dump() + ")", name);
  return v;
}

}  // namespace shaderwatch
