#include "sql.hpp"

#include <regex>

namespace sw::sql {

Location Location::parse(const std::string& db) {
  if (db.starts_with("postgresql://") || db.starts_with("postgres://")) return {Engine::postgresql, db};
  if (db.starts_with("sqlite:")) return {Engine::sqlite, db.substr(7)};
  return {Engine::sqlite, db};
}

std::string Location::describe() const {
  if (engine == Engine::sqlite) return target;
  // postgresql://user:secret@host/db -> postgresql://user:***@host/db; password=... in the query too.
  static const std::regex kUserinfoPassword(R"(^(postgres(?:ql)?://[^:/@?]*):[^@/?]*@)");
  static const std::regex kParamPassword(R"(([?&]password=)[^&]*)");
  return std::regex_replace(std::regex_replace(target, kUserinfoPassword, "$1:***@"), kParamPassword, "$1***");
}

std::unique_ptr<Conn> connect(const Location& where, Role role) {
  return where.engine == Engine::postgresql ? connect_postgresql(where.target, role)
                                            : connect_sqlite(where.target, role);
}

}  // namespace sw::sql
