// shaderwatch-server token create|list|revoke: upload, triage and admin tokens, stored as SHA-256 hashes.
#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "service/store.h"

namespace shaderwatch::cli {

namespace {

struct TokenArgs {
  std::string name;
  std::string scope = to_string(TokenScope::Upload);
  CLI::App *create = nullptr, *list = nullptr, *revoke = nullptr;
};

int run_token(const TokenArgs& a, const std::string& db) {
  const auto scope = parse_token_scope(a.scope);
  if (a.create->parsed() && !scope) {  // before the database is opened (or created)
    std::cerr << "error: --scope '" << a.scope << "' is not one of upload, triage, admin" << std::endl;
    return 1;
  }
  StoreOptions so;
  so.db = db;
  so.readers = 1;
  Store store(so);
  if (a.create->parsed()) {
    std::cout << store.tokens().create(a.name, *scope) << std::endl;
    std::cerr << "token '" << a.name << "' (scope " << a.scope << ") created; it is shown only this once" << std::endl;
  } else if (a.list->parsed()) {
    for (const auto& t : store.tokens().list())
      std::cout << t.name << "\tscope " << to_string(t.scope) << "\tcreated " << t.created_at << "\t"
                << (t.revoked_at ? "revoked " + *t.revoked_at : std::string("active")) << "\n";
  } else {
    if (!store.tokens().revoke(a.name)) {
      std::cerr << "error: no active token named '" << a.name << "'" << std::endl;
      return 1;
    }
    std::cout << "revoked " << a.name << std::endl;
  }
  return 0;
}

}  // namespace

Command add_token_command(CLI::App& app, std::string& db) {
  auto a = std::make_shared<TokenArgs>();
  auto* token = app.add_subcommand(
      "token", "Manage tokens (stored as SHA-256 hashes). Scopes: upload posts runs, triage changes alerts' "
               "states, admin both; any token reads");
  token->require_subcommand(1);
  a->create = token->add_subcommand("create", "Create a token NAME and print it (shown only once)");
  a->create->add_option("NAME", a->name, "Token name")->required();
  a->create->add_option("--scope", a->scope,
                        "What the token may do: upload (POST /api/v1/runs; for CI runners), triage (PATCH "
                        "/api/v1/alerts/ID; for people), admin (both); any scope may read. Tokens made before "
                        "scopes existed are admin")
      ->capture_default_str();
  a->create->add_option("--db", db, kDbHelp)->capture_default_str();
  a->list = token->add_subcommand("list", "List tokens with their scopes, creation and revocation times");
  a->list->add_option("--db", db, kDbHelp)->capture_default_str();
  a->revoke = token->add_subcommand("revoke", "Revoke the token NAME");
  a->revoke->add_option("NAME", a->name, "Token name")->required();
  a->revoke->add_option("--db", db, kDbHelp)->capture_default_str();
  return {token, [a, &db] { return run_token(*a, db); }};
}

}  // namespace shaderwatch::cli
