#pragma once
// A kernel pack's manifest as the loader reads it: a TOML table (toml++; a pack.json is read into the same tables)
// whose every value is fetched by key with the line it is on, so that whatever is wrong is said as
// "pack.toml:12: kernel 'reduce', key 'tile': ...", and a key the loader does not know is refused, not ignored.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/exit_status.h"

namespace toml {
inline namespace v3 {
class table;
class node;
}  // namespace v3
}  // namespace toml

namespace shaderwatch {

// A mistake in a pack (exit 4, before any GPU work); what() is the whole message with file, line and key.
class ManifestError : public UsageError {
 public:
  using UsageError::UsageError;
};

// The parsed document: the root table and where it came from.
struct ManifestDocument {
  std::string path;                   // as the user wrote it: messages name it
  bool has_lines = true;              // TOML has a line for every value; pack.json does not
  std::shared_ptr<toml::table> root;
};
// Reads pack.toml or pack.json; throws ManifestError with the parser's message and line.
ManifestDocument read_manifest(const std::string& path);

// One table of the manifest (the root, a kernel, a pass, a buffer): `where` says which in messages.
class ManifestTable {
 public:
  ManifestTable(const ManifestDocument& doc, const toml::table& table, std::string where);

  // Fails naming every key of the table that is not in `known`.
  void only_keys(const std::vector<std::string>& known) const;
  bool has(const std::string& key) const;
  std::string text(const std::string& key) const;  // a required string
  std::string text_or(const std::string& key, const std::string& otherwise) const;
  // A string or a number, as text (a define's value).
  std::vector<std::pair<std::string, std::string>> text_table(const std::string& key) const;
  // An array of strings (or numbers, as text); a lone string counts as one.
  std::vector<std::string> texts(const std::string& key) const;
  std::vector<uint32_t> numbers(const std::string& key) const;  // an array of positive integers
  double number(const std::string& key) const;                 // a number of 0 or more, integer or not
  // A table ([kernel.reference], or inline: { relative = 1e-6 }); `where` says which in its messages.
  ManifestTable table(const std::string& key, const std::string& where) const;
  // The tables of an array of tables ([[kernel]]); none where the key is absent.
  std::vector<ManifestTable> tables(const std::string& key, const std::string& what) const;

  // Throws ManifestError "<file>:<line>: <where>, key '<key>': <message>" (the table's line where the key is absent).
  [[noreturn]] void fail(const std::string& key, const std::string& message) const;
  [[noreturn]] void fail(const std::string& message) const;  // of the table as a whole
  const std::string& where() const { return where_; }
  void rename(std::string where) { where_ = std::move(where); }  // once its name is read: "kernel 'reduce'"

 private:
  const toml::node& node(const std::string& key) const;  // fails where the key is absent
  std::string position(const toml::node* node) const;    // "pack.toml:12" (the file alone for JSON)
  const ManifestDocument* doc_;
  const toml::table* table_;
  std::string where_;
};

}  // namespace shaderwatch
