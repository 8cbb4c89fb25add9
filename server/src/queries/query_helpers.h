// Query-string parameters and row pieces shared by the read-side queries (queries*.cpp).
#pragma once

#include <cstdint>
#include <cmath>
#include <initializer_list>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "common/client_error.h"
#include "common/alert_states.h"
#include "storage/run_points.h"
#include "storage/sql.h"

namespace shaderwatch {

// ClientError 400 for any parameter not in `allowed` or longer than 1024 characters.
void allow_only(const Params& q, std::initializer_list<const char*> allowed);
std::optional<std::string> opt(const Params& q, const char* k);
// A non-negative integer in [lo, hi], or dflt where absent; ClientError 400 otherwise.
std::int64_t int_param(const Params& q, const char* k, std::int64_t dflt, std::int64_t lo, std::int64_t hi);
// ISO 8601 with a zone to Unix ms, or dflt where absent; ClientError 400 otherwise.
std::int64_t time_param(const Params& q, const char* k, std::int64_t dflt);
// Column c, or nothing where it is NULL.
std::optional<double> opt_f64(const sql::Stmt& st, int c);
std::optional<std::int64_t> opt_i64(const sql::Stmt& st, int c);
std::optional<std::string> opt_text(const sql::Stmt& st, int c);
// The primary key of a run id; ClientError 404 naming `field` when there is none.
std::int64_t run_pk(sql::Conn& c, const std::string& key, const char* field);
// A query parameter that is a number in [lo, hi), or `fallback` where it is absent; ClientError 400 otherwise.
double number_param(const Params& q, const char* name, double lo, double hi, double fallback);


}  // namespace shaderwatch
