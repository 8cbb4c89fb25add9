#include "size_formula.h"

#include <muParser.h>

#include <cmath>
#include <sstream>

namespace shaderwatch {

namespace {

double ceil_of(double x) { return std::ceil(x); }
double floor_of(double x) { return std::floor(x); }

// A parser of `text` over `names`, each bound to its slot of `slots` (which outlives the parser's use).
void prepare(mu::Parser& p, const std::string& text, const std::vector<std::string>& names, std::vector<double>& slots) {
  p.DefineFun("ceil", ceil_of);
  p.DefineFun("floor", floor_of);
  slots.assign(names.size(), 0.0);
  for (size_t i = 0; i < names.size(); ++i) p.DefineVar(names[i], &slots[i]);
  p.SetExpr(text);
}

std::string names_text(const std::vector<std::string>& names) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : ", ") + n;
  return s.empty() ? "none" : s;
}

std::string number_text(double v) {
  std::ostringstream s;
  s.precision(10);
  s << v;
  return s.str();
}

}  // namespace

SizeFormula::SizeFormula(std::string text, std::vector<std::string> variables)
    : text_(std::move(text)), variables_(std::move(variables)) {
  if (text_.find_first_not_of(" \t") == std::string::npos) throw FormulaError("an empty formula");
  try {
    mu::Parser p;
    std::vector<double> slots;
    prepare(p, text_, variables_, slots);
    p.Eval();  // parses; every name it uses must be a variable or a function
  } catch (const mu::Parser::exception_type& e) {
    throw FormulaError("formula '" + text_ + "': " + e.GetMsg() + " (its names: " + names_text(variables_) + ")");
  }
}

double SizeFormula::value(const FormulaValues& values) const {
  mu::Parser p;
  std::vector<double> slots;
  prepare(p, text_, variables_, slots);
  for (const auto& [name, v] : values) {
    for (size_t i = 0; i < variables_.size(); ++i)
      if (variables_[i] == name) slots[i] = v;
  }
  try {
    return p.Eval();
  } catch (const mu::Parser::exception_type& e) {
    throw FormulaError("formula '" + text_ + "' for " + describe_values(values) + ": " + e.GetMsg());
  }
}

uint64_t SizeFormula::count(const FormulaValues& values, uint64_t most) const {
  const double v = value(values);
  const std::string head = "'" + text_ + "' is " + number_text(v) + " for " + describe_values(values);
  if (!std::isfinite(v)) throw FormulaError(head + ": not a number");
  if (v != std::floor(v)) throw FormulaError(head + ": not a whole number (where it counts workgroups, ceil(...) rounds "
                                             "up, and the kernel then skips what lies past the end)");
  if (v < 1) throw FormulaError(head + ": at least 1 is needed");
  if (v > static_cast<double>(most)) throw FormulaError(head + ": past the most, " + std::to_string(most));
  return static_cast<uint64_t>(v);
}

std::string describe_values(const FormulaValues& values) {
  std::string s;
  for (const auto& [name, v] : values) s += (s.empty() ? "" : ", ") + name + "=" + number_text(v);
  return s;
}

}  // namespace shaderwatch
