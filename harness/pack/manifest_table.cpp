#include "pack/manifest_table.h"

#include <nlohmann/json.hpp>
#include <toml++/toml.h>

#include <cmath>
#include <fstream>
#include <sstream>

namespace shaderwatch {

namespace {

// pack.json as the same tables: objects as tables, arrays as arrays, the rest as values.
void add_json(toml::table& into, const std::string& key, const nlohmann::json& j);

toml::array json_array(const nlohmann::json& j) {
  toml::array a;
  for (const auto& v : j) {
    if (v.is_object()) {
      toml::table t;
      for (const auto& [k, x] : v.items()) add_json(t, k, x);
      a.push_back(std::move(t));
    } else if (v.is_array()) {
      a.push_back(json_array(v));
    } else if (v.is_string()) {
      a.push_back(v.get<std::string>());
    } else if (v.is_number_integer()) {
      a.push_back(v.get<int64_t>());
    } else if (v.is_number()) {
      a.push_back(v.get<double>());
    } else if (v.is_boolean()) {
      a.push_back(v.get<bool>());
    }
  }
  return a;
}

void add_json(toml::table& into, const std::string& key, const nlohmann::json& j) {
  if (j.is_object()) {
    toml::table t;
    for (const auto& [k, x] : j.items()) add_json(t, k, x);
    into.insert(key, std::move(t));
  } else if (j.is_array()) {
    into.insert(key, json_array(j));
  } else if (j.is_string()) {
    into.insert(key, j.get<std::string>());
  } else if (j.is_number_integer()) {
    into.insert(key, j.get<int64_t>());
  } else if (j.is_number()) {
    into.insert(key, j.get<double>());
  } else if (j.is_boolean()) {
    into.insert(key, j.get<bool>());
  }
}

}  // namespace

ManifestDocument read_manifest(const std::string& path) {
  ManifestDocument doc{path, !path.ends_with(".json"), std::make_shared<toml::table>()};
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ManifestError(path + ": cannot be read");
  std::ostringstream text;
  text << in.rdbuf();
  if (!doc.has_lines) {
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(text.str());
    } catch (const nlohmann::json::parse_error& e) {
      throw ManifestError(path + ": not JSON: " + e.what());
    }
    if (!j.is_object()) throw ManifestError(path + ": the manifest is a JSON object");
    for (const auto& [k, v] : j.items()) add_json(*doc.root, k, v);
    return doc;
  }
  try {
    *doc.root = toml::parse(text.str(), path);
  } catch (const toml::parse_error& e) {
    throw ManifestError(path + ":" + std::to_string(e.source().begin.line) + ": not TOML: " + std::string(e.description()));
  }
  return doc;
}

ManifestTable::ManifestTable(const ManifestDocument& doc, const toml::table& table, std::string where)
    : doc_(&doc), table_(&table), where_(std::move(where)) {}

std::string ManifestTable::position(const toml::node* n) const {
  if (!doc_->has_lines || !n || !n->source().begin) return doc_->path;
  return doc_->path + ":" + std::to_string(n->source().begin.line);
}

void ManifestTable::fail(const std::string& key, const std::string& message) const {
  const toml::node* n = table_->get(key);
  throw ManifestError(position(n ? n : table_) + ": " + where_ + ", key '" + key + "': " + message);
}

void ManifestTable::fail(const std::string& message) const {
  throw ManifestError(position(table_) + ": " + where_ + ": " + message);
}

void ManifestTable::only_keys(const std::vector<std::string>& known) const {
  for (const auto& [key, value] : *table_) {
    bool ok = false;
    for (const auto& k : known) ok = ok || k == key.str();
    if (ok) continue;
    std::string list;
    for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
    throw ManifestError(position(&value) + ": " + where_ + ": unknown key '" + std::string(key.str()) +
                        "' (its keys: " + list + ")");
  }
}

bool ManifestTable::has(const std::string& key) const { return table_->contains(key); }

const toml::node& ManifestTable::node(const std::string& key) const {
  const toml::node* n = table_->get(key);
  if (!n) fail(key, "missing");
  return *n;
}

std::string ManifestTable::text(const std::string& key) const {
  const toml::node& n = node(key);
  const auto s = n.value<std::string>();
  if (!n.is_string() || !s) fail(key, "a string is needed");
  if (s->empty()) fail(key, "empty");
  return *s;
}

std::string ManifestTable::text_or(const std::string& key, const std::string& otherwise) const {
  return has(key) ? text(key) : otherwise;
}

namespace {
// A string, or an integer as text; nullopt for anything else.
std::optional<std::string> scalar_text(const toml::node& n) {
  if (n.is_string()) return n.value<std::string>();
  if (n.is_integer()) return std::to_string(*n.value<int64_t>());
  return std::nullopt;
}
}  // namespace

std::vector<std::pair<std::string, std::string>> ManifestTable::text_table(const std::string& key) const {
  std::vector<std::pair<std::string, std::string>> out;
  if (!has(key)) return out;
  const toml::table* t = node(key).as_table();
  if (!t) fail(key, "a table is needed ({ NAME = value, ... })");
  for (const auto& [k, v] : *t) {
    const auto s = scalar_text(v);
    if (!s) fail(key, "'" + std::string(k.str()) + "' is neither a string nor an integer");
    out.emplace_back(std::string(k.str()), *s);
  }
  return out;
}

std::vector<std::string> ManifestTable::texts(const std::string& key) const {
  const toml::node& n = node(key);
  if (const auto s = scalar_text(n)) return {*s};
  const toml::array* a = n.as_array();
  if (!a) fail(key, "a string or an array of strings is needed");
  std::vector<std::string> out;
  for (const auto& v : *a) {
    const auto s = scalar_text(v);
    if (!s) fail(key, "item " + std::to_string(out.size() + 1) + " is neither a string nor an integer");
    out.push_back(*s);
  }
  return out;
}

std::vector<uint32_t> ManifestTable::numbers(const std::string& key) const {
  const toml::array* a = node(key).as_array();
  if (!a) fail(key, "an array of whole numbers is needed");
  std::vector<uint32_t> out;
  for (const auto& v : *a) {
    const auto i = v.value<int64_t>();
    if (!v.is_integer() || !i || *i < 1 || *i > 65536) fail(key, "item " + std::to_string(out.size() + 1) + " is not a whole number from 1 to 65536");
    out.push_back(static_cast<uint32_t>(*i));
  }
  return out;
}

double ManifestTable::number(const std::string& key) const {
  const toml::node& n = node(key);
  const auto d = n.value<double>();  // an integer too
  if (!(n.is_floating_point() || n.is_integer()) || !d || !std::isfinite(*d) || *d < 0) fail(key, "a number of 0 or more is needed");
  return *d;
}

ManifestTable ManifestTable::table(const std::string& key, const std::string& where) const {
  const toml::table* t = node(key).as_table();
  if (!t) fail(key, "a table is needed ([..." + key + "], or { ... } on one line)");
  return ManifestTable(*doc_, *t, where_ + ", " + where);
}

std::vector<ManifestTable> ManifestTable::tables(const std::string& key, const std::string& what) const {
  std::vector<ManifestTable> out;
  if (!has(key)) return out;
  const toml::array* a = node(key).as_array();
  if (!a) fail(key, "an array of tables is needed ([[" + key + "]])");
  for (const auto& v : *a) {
    const toml::table* t = v.as_table();
    if (!t) fail(key, "item " + std::to_string(out.size() + 1) + " is not a table");
    out.emplace_back(*doc_, *t, where_ + (where_.empty() ? "" : ", ") + what + " " + std::to_string(out.size() + 1));
  }
  return out;
}

}  // namespace shaderwatch
