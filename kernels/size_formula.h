#pragma once
// A number a kernel pack's manifest writes as a formula of the run ("ceil(width / 16)", "groups", "3 + log2(128)"):
// its workgroups, its buffers' sizes, its error bound's roundings. muparser reads and evaluates it; the names it
// may use are given where it is read, so a misspelt one is refused with the manifest, before any GPU work.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace shaderwatch {

// A formula's variables and their values, by name.
using FormulaValues = std::vector<std::pair<std::string, double>>;

// A formula that does not parse, names an unknown variable, or gives a value its use cannot take.
class FormulaError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

class SizeFormula {
 public:
  SizeFormula() = default;
  // Throws FormulaError (what is wrong and where in the text) unless `text` parses and uses only `variables`.
  // Besides muparser's functions (log2, min, max, ...), ceil and floor.
  SizeFormula(std::string text, std::vector<std::string> variables);
  bool empty() const { return text_.empty(); }
  const std::string& text() const { return text_; }
  double value(const FormulaValues& values) const;
  // The value as a count: a whole number from 1 to `most`. Throws FormulaError saying the formula, the values and
  // why (not whole: "does not divide"; below 1; past `most`).
  uint64_t count(const FormulaValues& values, uint64_t most) const;

 private:
  std::string text_;
  std::vector<std::string> variables_;
};

// "width=1930, height=1080": the values a message names.
std::string describe_values(const FormulaValues& values);

}  // namespace shaderwatch
