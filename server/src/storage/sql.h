// The database as the Store sees it: parameterised statements (`?` placeholders), cached per connection,
// on one of two engines (sqlite.cpp, postgres.cpp). The Store's SQL is written once, in the subset both
// engines run the same way; the few places they differ are the Conn's dialect functions.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace shaderwatch::sql {

// SQL text from pieces (without `"literal" + std::string`, which trips GCC 12's bogus -Wrestrict).
inline std::string concat(std::initializer_list<std::string_view> parts) {
  std::string out;
  for (const auto p : parts) out.append(p);
  return out;
}

struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};
// A transaction lost to another writer (a deadlock, a serialisation failure): run it again.
struct Conflict : Error {
  using Error::Error;
};

enum class ColumnType { Null, Integer, Real, Text, Blob };

class Stmt {
 public:
  virtual ~Stmt() = default;
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;

  Stmt& bind(int i, std::int64_t v) { return bind_i64(i, v), *this; }
  Stmt& bind(int i, int v) { return bind_i64(i, v), *this; }
  Stmt& bind(int i, double v) { return bind_f64(i, v), *this; }
  Stmt& bind(int i, std::string_view v) { return bind_text(i, v), *this; }
  Stmt& bind(int i, const char* v) { return bind(i, std::string_view(v)); }
  Stmt& bind(int i, const std::string& v) { return bind(i, std::string_view(v)); }
  Stmt& bind_blob(int i, const void* p, std::size_t n) { return bind_bytes(i, p, n), *this; }
  Stmt& bind_null(int i) { return bind_none(i), *this; }
  template <class T>
  Stmt& bind(int i, const std::optional<T>& v) {
    return v ? bind(i, *v) : bind_null(i);
  }

  // True while there is a row; false when done.
  virtual bool step() = 0;
  void run() {
    while (step()) {
    }
  }
  // Ready to run again, with every parameter unbound.
  virtual void reset() = 0;
  // Rows inserted, updated or deleted by the statement that just ran.
  virtual std::int64_t changes() const = 0;

  virtual std::int64_t i64(int c) const = 0;  // booleans read as 0 / 1
  virtual double f64(int c) const = 0;
  virtual bool null(int c) const = 0;
  virtual std::string text(int c) const = 0;
  virtual std::string_view blob(int c) const = 0;  // valid until the next step
  virtual int columns() const = 0;
  virtual std::string column_name(int c) const = 0;
  virtual ColumnType type(int c) const = 0;

 protected:
  Stmt() = default;
  virtual void bind_i64(int i, std::int64_t v) = 0;
  virtual void bind_f64(int i, double v) = 0;
  virtual void bind_text(int i, std::string_view v) = 0;
  virtual void bind_bytes(int i, const void* p, std::size_t n) = 0;
  virtual void bind_none(int i) = 0;
};

enum class Engine { Sqlite, Postgresql };

class Conn {
 public:
  virtual ~Conn() = default;
  Conn(const Conn&) = delete;
  Conn& operator=(const Conn&) = delete;

  virtual Engine engine() const = 0;
  // SQL without parameters (several statements are allowed).
  virtual void exec(const std::string& sql) = 0;
  // A cached statement, reset and with bindings cleared.
  virtual Stmt& q(const std::string& sql) = 0;
  // Resets every statement still mid-step (an open SQLite read keeps its snapshot).
  virtual void reset_all() = 0;

  // A write transaction: `immediate` takes SQLite's write lock at once instead of at the first write.
  virtual void begin(bool immediate) = 0;
  void commit() { exec("COMMIT"); }
  void rollback() { exec("ROLLBACK"); }

  // The schema version, 0 for an empty database (SQLite's user_version; a table on PostgreSQL).
  virtual int schema_version() = 0;
  virtual void set_schema_version(int v) = 0;
  // A migration's DDL, written in SQLite's words, in this engine's (types, keys, table options).
  virtual std::string ddl(std::string_view sqlite_ddl) const = 0;
  // Serialises work on `key` (a GPU's id for its series' detection; kSchemaLock for migrations) across server processes sharing
  // the database, until the transaction ends. A no-op where one process writes (SQLite: the Store's
  // mutexes and BEGIN IMMEDIATE do it).
  static constexpr std::int64_t kSchemaLock = -1;
  virtual void lock_in_transaction(std::int64_t key) = 0;
  // True where other processes may write the same database beside this one.
  virtual bool shared() const = 0;
  // After rows were copied in with their ids: the next id `table` generates follows the largest.
  virtual void follow_copied_ids(std::string_view table) = 0;

  // Dialect: the value at key `key` of a JSON object in text column `expr` (NULL where absent or null),
  // as text or as a number.
  virtual std::string json_text(std::string_view expr, std::string_view key) const = 0;
  virtual std::string json_number(std::string_view expr, std::string_view key) const = 0;
  // A condition: column `expr` contains the bound text.
  virtual std::string contains_param(std::string_view expr) const = 0;
  // Text column `expr` up to its first space (all of it where there is none).
  virtual std::string first_word(std::string_view expr) const = 0;

 protected:
  Conn() = default;
};

// Rolls back unless committed: one transaction per run, all or nothing.
class Tx {
 public:
  explicit Tx(Conn& c, bool immediate = true) : c_(c) { c_.begin(immediate); }
  ~Tx() {
    if (!done_) {
      try {
        c_.reset_all();
        c_.rollback();
      } catch (...) {
      }
    }
  }
  Tx(const Tx&) = delete;
  Tx& operator=(const Tx&) = delete;
  void commit() {
    c_.commit();
    done_ = true;
  }

 private:
  Conn& c_;
  bool done_ = false;
};

// Where the data lives: an SQLite file (a path, or sqlite:PATH) or a PostgreSQL server
// (postgresql://... or postgres://..., libpq's URI).
struct Location {
  Engine engine = Engine::Sqlite;
  std::string target;  // the file path, or the connection URI
  static Location parse(const std::string& db);
  std::string describe() const;  // for messages: the path, or the URI without its password
};

enum class Role { Writer, Reader };
// A connection tuned for its role; throws Error naming the location when it cannot connect.
std::unique_ptr<Conn> connect(const Location& where, Role role);

// The engines, reached through connect().
std::unique_ptr<Conn> connect_sqlite(const std::string& path, Role role);
std::unique_ptr<Conn> connect_postgresql(const std::string& uri, Role role);
// SQLite only: writes that would grow the file past max_mib fail with StorageFull.
void limit_sqlite_size(Conn& c, std::uint64_t max_mib);

}  // namespace shaderwatch::sql
