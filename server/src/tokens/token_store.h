// Upload, triage and admin tokens: the plaintext is returned once by create() and never stored (SHA-256 only).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "storage/database.h"

namespace shaderwatch {

// What a token may do (server/README.md, "Token scopes"): upload posts runs, triage changes alerts'
// states, admin both. Disjoint rather than a ladder: a CI runner's token cannot mark a regression invalid,
// and a triage token cannot post runs (posted runs can close regressions by evidence). Reads, where
// --read-token-required, take any valid token.
enum class TokenScope { Upload, Triage, Admin };
const char* to_string(TokenScope s);
std::optional<TokenScope> parse_token_scope(std::string_view text);
inline constexpr TokenScope kTokenScopes[] = {TokenScope::Upload, TokenScope::Triage, TokenScope::Admin};
inline bool may_post_runs(TokenScope s) { return s == TokenScope::Upload || s == TokenScope::Admin; }
inline bool may_triage(TokenScope s) { return s == TokenScope::Triage || s == TokenScope::Admin; }

struct TokenInfo {
  std::string name, created_at;
  std::optional<std::string> revoked_at;
  TokenScope scope = TokenScope::Upload;
};

class TokenStore {
 public:
  explicit TokenStore(Database& db) : db_(db) {}
  // ClientError 400 for a bad name, 409 for a name in use.
  std::string create(const std::string& name, TokenScope scope);
  std::vector<TokenInfo> list();
  bool revoke(const std::string& name);
  // The token's name and scope when valid and not revoked.
  std::optional<TokenInfo> check(std::string_view token);

 private:
  Database& db_;
};

}  // namespace shaderwatch
