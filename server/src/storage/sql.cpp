#include "storage/sql.h"

#include <regex>

namespace shaderwatch::sql {

Location Location::parse(const std::string& db) {
  if (db.starts_with("postgresql://") || db.starts_with("postgres://")) return {Engine::Postgresql, db};
  if (db.starts_with("sqlite:")) return {Engine::Sqlite, db.substr(7)};
  return {Engine::Sqlite, db};
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
