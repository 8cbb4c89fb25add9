#include "storage/sql.h"

#include <regex>

namespace shaderwatch::sql {

Location Location::parse(const std::string& db) {
  if (db.starts_with("postgresql://") || db.starts_with("postgres://")) return {Engine::Postgresql, db};
  const std::string path = db.starts_with("sqlite:") ? db.substr(7) : db;
  // SQLite opens "" as a temporary file and ":memory:" as a memory database, each private to its connection: a
  // server would start healthy and answer from databases its writes never reach, and a token would be stored
  // nowhere.
  if (path.empty() || path == ":memory:")
    throw Error("the database must be a file path or a postgresql:// URI, not \"" + db + "\"");
  return {Engine::Sqlite, path};
}

std::string Location::describe() const {
  if (engine == Engine::Sqlite) return target;
  // postgresql://user:secret@host/db -> postgresql://user:***@host/db; password=... in the query too.
  static const std::regex kUserinfoPassword(R"(^(postgres(?:ql)?://[^:/@?]*):[^@/?]*@)");
  static const std::regex kParamPassword(R"(([?&]password=)[^&]*)");
  return std::regex_replace(std::regex_replace(target, kUserinfoPassword, "$1:***@"), kParamPassword, "$1***");
}

std::unique_ptr<Conn> connect(const Location& where, Role role) {
  return where.engine == Engine::Postgresql ? connect_postgresql(where.target, role)
                                            : connect_sqlite(where.target, role);
}

}  // namespace shaderwatch::sql
