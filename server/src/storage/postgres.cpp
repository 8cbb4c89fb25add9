// The PostgreSQL engine (libpq): for several server processes on one database, or a database that
// must outlive its host. Statements are prepared once per connection; results come back as text.
#include <libpq-fe.h>

#include <charconv>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <regex>
#include <unordered_map>
#include <vector>

#include "storage/storage_errors.h"
#include "storage/sql.h"

namespace shaderwatch::sql {

namespace {

using Result = std::unique_ptr<PGresult, decltype(&PQclear)>;

// Type OIDs (catalog/pg_type.dat) the Store reads.
constexpr Oid kBool = 16, kBytea = 17, kInt8 = 20, kInt2 = 21, kInt4 = 23, kFloat4 = 700, kFloat8 = 701,
              kNumeric = 1700;

// `?` placeholders, outside quoted text, to libpq's $1, $2, ...
std::string numbered_params(std::string_view sql, int& n) {
  std::string out;
  out.reserve(sql.size() + 16);
  char quote = 0;
  n = 0;
  for (const char ch : sql) {
    if (quote) {
      if (ch == quote) quote = 0;
    } else if (ch == '\'' || ch == '"') {
      quote = ch;
    } else if (ch == '?') {
      out += '$';
      out += std::to_string(++n);
      continue;
    }
    out += ch;
  }
  return out;
}

class PgConn;

std::string statement_name(std::size_t i) {
  std::string name = "sw";
  name += std::to_string(i);
  return name;
}

// Throws what a failed result means: Conflict for a lost race (SQLSTATE class 40), StorageFull for a
// full disk (53100), else Error with PostgreSQL's message and the statement.
void check(PGconn* conn, const PGresult* r, std::string_view what) {
  const auto status = PQresultStatus(r);
  if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK) return;
  const char* state = r ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : nullptr;
  std::string msg = r ? PQresultErrorMessage(r) : PQerrorMessage(conn);
  while (!msg.empty() && (msg.back() == '\n' || msg.back() == ' ')) msg.pop_back();
  const std::string code = state ? state : "";
  if (code.starts_with("40")) throw Conflict("PostgreSQL: " + msg);
  if (code == "53100") throw StorageFull("the database is full: " + msg);
  throw Error("PostgreSQL: " + msg + " (SQLSTATE " + (code.empty() ? "none" : code) + ") in: " + std::string(what));
}

class PgStmt final : public Stmt {
 public:
  PgStmt(PgConn& c, std::string_view sql, std::string name);
  bool step() override;
  void reset() override {
    drop_result();
    std::fill(null_.begin(), null_.end(), true);
  }
  // Frees the rows read, keeping the bindings (Conn::reset_all: like SQLite's reset of a busy statement).
  void drop_result() {
    res_.reset();
    row_ = -1;
  }
  std::int64_t changes() const override {
    const char* n = res_ ? PQcmdTuples(res_.get()) : "";
    return *n ? std::strtoll(n, nullptr, 10) : 0;
  }
  std::int64_t i64(int c) const override {
    const char* v = PQgetvalue(res_.get(), row_, c);
    if (*v == 't') return 1;
    if (*v == 'f') return 0;
    return std::strtoll(v, nullptr, 10);
  }
  double f64(int c) const override { return PQgetisnull(res_.get(), row_, c) ? 0.0 : std::strtod(PQgetvalue(res_.get(), row_, c), nullptr); }
  bool null(int c) const override { return PQgetisnull(res_.get(), row_, c); }
  std::string text(int c) const override {
    return std::string(PQgetvalue(res_.get(), row_, c), static_cast<std::size_t>(PQgetlength(res_.get(), row_, c)));
  }
  std::string_view blob(int c) const override;
  int columns() const override { return res_ ? PQnfields(res_.get()) : 0; }
  std::string column_name(int c) const override { return PQfname(res_.get(), c); }
  ColumnType type(int c) const override {
    if (PQgetisnull(res_.get(), row_, c)) return ColumnType::Null;
    switch (PQftype(res_.get(), c)) {
      case kBool: case kInt2: case kInt4: case kInt8: return ColumnType::Integer;
      case kFloat4: case kFloat8: case kNumeric: return ColumnType::Real;
      case kBytea: return ColumnType::Blob;
      default: return ColumnType::Text;
    }
  }

 private:
  void set(int i, std::string v, int format) {
    if (i < 1 || i > n_) throw Error("bind: no parameter " + std::to_string(i) + " in: " + sql_);
    values_[i - 1] = std::move(v);
    formats_[i - 1] = format;
    null_[i - 1] = false;
  }
  void bind_i64(int i, std::int64_t v) override { set(i, std::to_string(v), 0); }
  void bind_f64(int i, double v) override {
    char buf[40];
    const auto r = std::to_chars(buf, buf + sizeof buf, v);  // shortest text that reads back exactly
    set(i, std::string(buf, r.ptr), 0);
  }
  void bind_text(int i, std::string_view v) override { set(i, std::string(v), 0); }
  void bind_bytes(int i, const void* p, std::size_t n) override {
    set(i, std::string(static_cast<const char*>(p), n), 1);
  }
  void bind_none(int i) override {
    if (i < 1 || i > n_) throw Error("bind: no parameter " + std::to_string(i) + " in: " + sql_);
    null_[i - 1] = true;
  }
  void prepare();

  PgConn& c_;
  std::string sql_, name_;
  int n_ = 0;
  std::uint64_t prepared_in_ = 0;  // the connection's generation it was prepared in
  std::vector<std::string> values_;
  std::vector<int> formats_;
  std::vector<bool> null_;
  Result res_{nullptr, &PQclear};
  int row_ = -1;
  mutable std::unordered_map<int, std::string> blobs_;
};

class PgConn final : public Conn {
 public:
  PgConn(std::string uri, Role role) : uri_(std::move(uri)), role_(role) { open(); }
  ~PgConn() override {
    cache_.clear();
    PQfinish(conn_);
  }

  Engine engine() const override { return Engine::Postgresql; }
  void exec(const std::string& sql) override {
    live();
    Result r(PQexec(conn_, sql.c_str()), &PQclear);
    checked(r.get(), sql);
  }
  Stmt& q(const std::string& sql) override {
    auto it = cache_.find(sql);
    if (it == cache_.end())
      it = cache_.emplace(sql, std::make_unique<PgStmt>(*this, sql, statement_name(cache_.size()))).first;
    it->second->reset();
    return *it->second;
  }
  void reset_all() override {
    for (auto& [sql, st] : cache_) st->drop_result();
  }
  void begin(bool) override { exec("BEGIN"); }

  int schema_version() override {
    exec("CREATE TABLE IF NOT EXISTS shaderwatch_schema(version INTEGER NOT NULL)");
    auto& st = q("SELECT version FROM shaderwatch_schema");
    const int v = st.step() ? static_cast<int>(st.i64(0)) : 0;
    st.reset();
    return v;
  }
  void set_schema_version(int v) override {
    exec("DELETE FROM shaderwatch_schema");
    exec("INSERT INTO shaderwatch_schema(version) VALUES(" + std::to_string(v) + ")");
  }
  // SQLite's type names to PostgreSQL's: 64-bit integers (Unix ms overflow INTEGER), doubles (REAL is
  // single precision there), identity keys, bytea; SQLite's table options dropped.
  std::string ddl(std::string_view sqlite_ddl) const override {
    static const std::pair<std::regex, const char*> kRules[] = {
        {std::regex(R"(\bINTEGER PRIMARY KEY\b)"), "BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY"},
        {std::regex(R"(\bINTEGER\b)"), "BIGINT"},
        {std::regex(R"(\bREAL\b)"), "DOUBLE PRECISION"},
        {std::regex(R"(\bBLOB\b)"), "BYTEA"},
        {std::regex(R"(\)\s*WITHOUT ROWID)"), ")"},
    };
    std::string s(sqlite_ddl);
    for (const auto& [re, to] : kRules) s = std::regex_replace(s, re, to);
    return s;
  }
  void lock_in_transaction(std::int64_t key) override {
    // Two-key form: the first key marks the lock as shaderwatch's, the second names the series.
    auto& st = q("SELECT pg_advisory_xact_lock(1398231623, ?::integer)");
    st.bind(1, key).run();
  }
  bool shared() const override { return true; }
  void follow_copied_ids(std::string_view table) override {
    exec(concat({"SELECT setval(pg_get_serial_sequence('", table, "', 'id'), COALESCE((SELECT MAX(id) FROM ", table,
                 "), 0) + 1, false)"}));
  }
  std::string json_text(std::string_view expr, std::string_view key) const override {
    return concat({"(", expr, "::jsonb ->> '", key, "')"});
  }
  std::string json_number(std::string_view expr, std::string_view key) const override {
    return concat({"(CASE WHEN jsonb_typeof(", expr, "::jsonb -> '", key, "')='number' THEN ", json_text(expr, key),
                   "::double precision END)"});
  }
  std::string contains_param(std::string_view expr) const override {
    return concat({"strpos(", expr, ", ?)>0"});
  }
  std::string first_word(std::string_view expr) const override { return concat({"split_part(", expr, ", ' ', 1)"}); }

  PGconn* raw() { return conn_; }
  std::uint64_t generation() const { return generation_; }
  // check(), after reconnecting where the connection broke, so the next statement finds a live one.
  void checked(const PGresult* r, std::string_view what) {
    if (PQstatus(conn_) == CONNECTION_BAD) {
      const std::string why = trimmed(PQerrorMessage(conn_));
      const bool back = reset();
      throw DatabaseUnavailable("the connection to PostgreSQL broke (" + why + ")" +
                                    (back ? "; reconnected" : "; PostgreSQL is unreachable"),
                                back);
    }
    check(conn_, r, what);
  }
  // Before a statement: a connection left broken (PostgreSQL was down when it broke) is reconnected first, so the
  // first request after PostgreSQL is back succeeds; while it is still down, DatabaseUnavailable.
  void live() {
    if (PQstatus(conn_) != CONNECTION_BAD || reset()) return;
    throw DatabaseUnavailable("PostgreSQL is unreachable: " + trimmed(PQerrorMessage(conn_)), false);
  }

 private:
  void open() {
    conn_ = PQconnectdb(uri_.c_str());
    if (PQstatus(conn_) != CONNECTION_OK) {
      const std::string msg = trimmed(PQerrorMessage(conn_));
      PQfinish(conn_);
      conn_ = nullptr;
      throw DatabaseUnavailable("cannot connect to " + Location{Engine::Postgresql, uri_}.describe() + ": " + msg, false);
    }
    configure();
  }
  // Reconnects; whether the connection is live again. Statements prepared before are prepared again.
  bool reset() {
    PQreset(conn_);
    ++generation_;
    if (PQstatus(conn_) != CONNECTION_OK) return false;
    configure();
    return true;
  }
  static std::string trimmed(std::string msg) {
    while (!msg.empty() && (msg.back() == '\n' || msg.back() == ' ')) msg.pop_back();
    return msg;
  }
  void configure() {
    PQsetNoticeProcessor(conn_, [](void*, const char*) {}, nullptr);  // "already exists, skipping" and such
    // Text results in ISO form whatever the server's defaults; readers cannot write by mistake.
    exec("SET client_encoding='UTF8'; SET DateStyle='ISO'; SET extra_float_digits=1");
    if (role_ == Role::Reader) exec("SET default_transaction_read_only=on");
  }

  std::string uri_;
  Role role_;
  PGconn* conn_ = nullptr;
  std::uint64_t generation_ = 1;
  std::unordered_map<std::string, std::unique_ptr<PgStmt>> cache_;
};

PgStmt::PgStmt(PgConn& c, std::string_view sql, std::string name) : c_(c), name_(std::move(name)) {
  sql_ = numbered_params(sql, n_);
  values_.resize(static_cast<std::size_t>(n_));
  formats_.assign(static_cast<std::size_t>(n_), 0);
  null_.assign(static_cast<std::size_t>(n_), true);
  prepare();
}

void PgStmt::prepare() {
  Result r(PQprepare(c_.raw(), name_.c_str(), sql_.c_str(), n_, nullptr), &PQclear);
  c_.checked(r.get(), sql_);
  prepared_in_ = c_.generation();
}

bool PgStmt::step() {
  if (res_) return ++row_ < PQntuples(res_.get());
  c_.live();
  if (prepared_in_ != c_.generation()) prepare();
  std::vector<const char*> values(static_cast<std::size_t>(n_));
  std::vector<int> lengths(static_cast<std::size_t>(n_));
  for (std::size_t i = 0; i < values.size(); ++i) {
    values[i] = null_[i] ? nullptr : values_[i].data();
    lengths[i] = static_cast<int>(values_[i].size());
  }
  Result r(PQexecPrepared(c_.raw(), name_.c_str(), n_, values.data(), lengths.data(), formats_.data(), 0),
           &PQclear);
  c_.checked(r.get(), sql_);
  res_ = std::move(r);
  row_ = 0;
  blobs_.clear();
  return row_ < PQntuples(res_.get());
}

// bytea comes back in hex text form: \x0a1b...
std::string_view PgStmt::blob(int c) const {
  const char* v = PQgetvalue(res_.get(), row_, c);
  const std::size_t len = static_cast<std::size_t>(PQgetlength(res_.get(), row_, c));
  if (len < 2 || v[0] != '\\' || v[1] != 'x') return {};
  auto hex = [](char h) { return h <= '9' ? h - '0' : (h | 0x20) - 'a' + 10; };
  std::string& out = blobs_[c];
  out.resize((len - 2) / 2);
  for (std::size_t i = 0; i < out.size(); ++i)
    out[i] = static_cast<char>(hex(v[2 + 2 * i]) << 4 | hex(v[3 + 2 * i]));
  return out;
}

}  // namespace

std::unique_ptr<Conn> connect_postgresql(const std::string& uri, Role role) {
  return std::make_unique<PgConn>(uri, role);
}

}  // namespace shaderwatch::sql
