#include "suite/expectations.h"

#include <fnmatch.h>

#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "catalog.h"
#include "vulkan/shader_compiler.h"

namespace shaderwatch {

bool glob_match(const std::string& pattern, const std::string& text) {
  return fnmatch(pattern.c_str(), text.c_str(), FNM_CASEFOLD) == 0;
}

std::string driver_text(const DeviceInfo& device) { return device.driver_name + " " + device.driver_info; }

namespace {

using nlohmann::json;

std::string text_field(const json& entry, const char* key, const std::string& where, bool required,
                       const std::string& fallback = "") {
  if (!entry.contains(key)) {
    if (required) throw std::invalid_argument(where + ": '" + key + "' is missing");
    return fallback;
  }
  const json& v = entry.at(key);
  if (!v.is_string() || v.get<std::string>().empty())
    throw std::invalid_argument(where + ": '" + key + "' must be a non-empty string");
  return v.get<std::string>();
}

Expectation parse_entry(const json& entry, const std::string& where) {
  if (!entry.is_object()) throw std::invalid_argument(where + ": an entry must be an object");
  static const std::set<std::string> keys{"id", "kernel", "device", "driver", "min_items", "expect", "reruns", "reason"};
  for (const auto& [key, value] : entry.items()) {
    if (!keys.count(key))
      throw std::invalid_argument(where + ": unknown key '" + key + "' (id, kernel, device, driver, min_items, expect, reruns, reason)");
  }
  Expectation e;
  e.id = text_field(entry, "id", where, true);
  const std::string named = where + " ('" + e.id + "')";
  // The id is written into rows as "EXPECTED (<id>): ": a ')' or a line break would end it early.
  if (e.id.find_first_of(")\n\r") != std::string::npos || e.id.size() > 60)
    throw std::invalid_argument(named + ": 'id' must be one line of at most 60 characters without ')'");
  e.kernel = text_field(entry, "kernel", named, true);
  e.device = text_field(entry, "device", named, false, "*");
  e.driver = text_field(entry, "driver", named, false, "*");
  e.reason = text_field(entry, "reason", named, true);
  if (entry.contains("min_items")) {
    if (!entry.at("min_items").is_number_unsigned() || entry.at("min_items").get<uint64_t>() < 1)
      throw std::invalid_argument(named + ": 'min_items' must be a whole number of at least 1");
    e.min_items = entry.at("min_items").get<uint64_t>();
  }
  // Every row it accounts for carries it, and the results server refuses error messages over 4096 bytes.
  if (e.reason.size() > 1000) throw std::invalid_argument(named + ": 'reason' is longer than 1000 characters");
  const std::string expect = text_field(entry, "expect", named, true);
  if (expect == "fail") e.expect = Expect::Fail;
  else if (expect == "flaky") e.expect = Expect::Flaky;
  else if (expect == "skip") e.expect = Expect::Skip;
  else throw std::invalid_argument(named + ": 'expect' is '" + expect + "', not one of fail|flaky|skip");
  if (e.expect == Expect::Flaky) {
    if (!entry.contains("reruns") || !entry.at("reruns").is_number_integer() || entry.at("reruns").get<long long>() < 1 ||
        entry.at("reruns").get<long long>() > kMaxReruns)
      throw std::invalid_argument(named + ": a flaky entry needs 'reruns', a whole number from 1 to " +
                                  std::to_string(kMaxReruns));
    e.reruns = entry.at("reruns").get<int>();
  } else if (entry.contains("reruns")) {
    throw std::invalid_argument(named + ": 'reruns' goes with \"expect\": \"flaky\" only");
  }
  bool any = false;
  for (const auto& k : catalog()) any = any || glob_match(e.kernel, k.name);
  if (!any) throw std::invalid_argument(named + ": kernel pattern '" + e.kernel + "' matches no catalog kernel (see --list-kernels)");
  return e;
}

}  // namespace

void Expectations::add_json(std::string_view text, const std::string& source) {
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::parse_error& e) {
    throw std::invalid_argument(source + ": not valid JSON: " + e.what());
  }
  if (!doc.is_object() || doc.size() != 1 || !doc.contains("expectations") || !doc["expectations"].is_array())
    throw std::invalid_argument(source + ": expected {\"expectations\": [ ... ]} and nothing else");
  std::vector<Expectation> added;
  for (size_t i = 0; i < doc["expectations"].size(); ++i) {
    Expectation e = parse_entry(doc["expectations"][i], source + ": entry " + std::to_string(i + 1));
    e.source = source;
    for (const auto* list : {&entries_, &added}) {
      for (const auto& other : *list) {
        if (other.id == e.id)
          throw std::invalid_argument(source + ": entry " + std::to_string(i + 1) + ": id '" + e.id +
                                      "' is already used (in " + other.source + ")");
      }
    }
    added.push_back(std::move(e));
  }
  entries_.insert(entries_.end(), added.begin(), added.end());
}

void Expectations::add_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::invalid_argument("--expectations: cannot read '" + path + "'");
  std::ostringstream text;
  text << in.rdbuf();
  add_json(text.str(), path);
}

const Expectation* Expectations::find(const std::string& kernel, const DeviceInfo& device, uint64_t items) const {
  const std::string driver = driver_text(device);
  for (const auto& e : entries_) {
    if (glob_match(e.kernel, kernel) && glob_match(e.device, device.name) && glob_match(e.driver, driver) &&
        items >= e.min_items)
      return &e;
  }
  return nullptr;
}

Expectations builtin_expectations() {
  Expectations ex;
  ex.add_json(kernel_source("expectations.json"), "kernels/expectations.json");
  return ex;
}

CheckResult apply_expectation(const Expectation* entry, CheckResult first, const std::function<CheckResult()>& rerun) {
  if (!entry || (first.status != CheckStatus::Pass && !is_wrong_answer(first.status))) return first;
  CheckResult o = std::move(first);
  o.expectation = entry->id;
  switch (entry->expect) {
    case Expect::Fail:
      if (is_wrong_answer(o.status)) {
        o.status = CheckStatus::ExpectedFail;
        o.message = "failed as expected (" + o.message + "): " + entry->reason;
      } else {
        o.status = CheckStatus::UnexpectedPass;
        o.message = "right this time, expected to fail (not counted as a pass): " + entry->reason;
      }
      return o;
    case Expect::Flaky: {
      const std::string first_wrong = o.first_failure;
      int reruns = 0;
      while (is_wrong_answer(o.status) && reruns < entry->reruns) {
        ++reruns;
        o = rerun();
        o.expectation = entry->id;
      }
      if (o.status == CheckStatus::Pass && reruns > 0) {
        o.status = CheckStatus::Flake;
        o.check_retries = reruns;  // every check before this one failed
        o.message = "failed " + std::to_string(reruns) + " of " + std::to_string(reruns + 1) +
                    " checks, then passed (first wrong: " + first_wrong + "): " + entry->reason;
      } else if (is_wrong_answer(o.status)) {
        o.message += "; all " + std::to_string(reruns + 1) + " checks failed (flaky entry '" + entry->id +
                     "' allows " + std::to_string(entry->reruns) + " reruns)";
      }
      return o;
    }
    case Expect::Skip: break;
  }
  return o;
}

CheckResult skipped_outcome(const Expectation& entry) {
  CheckResult o;
  o.status = CheckStatus::Skipped;
  o.expectation = entry.id;
  o.message = "not run on this device: " + entry.reason;
  return o;
}

}  // namespace shaderwatch
