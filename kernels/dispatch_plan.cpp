// What every plan must be, whoever wrote it.
#include "dispatch_plan.h"

namespace shaderwatch {

FormulaValues buffer_formula_values(const PlanCounts& c) {
  return {{"items", static_cast<double>(c.items)}, {"groups", static_cast<double>(c.groups)}};
}

uint64_t ByteCount::of(const PlanCounts& c) const {
  if (!formula.empty()) return formula.count(buffer_formula_values(c), uint64_t{1} << 40);
  return per_item * c.items + per_group * c.groups + fixed;
}

FormulaValues workgroup_formula_values(uint32_t width, uint32_t height, uint64_t items) {
  return {{"width", static_cast<double>(width)}, {"height", static_cast<double>(height)}, {"items", static_cast<double>(items)}};
}

std::pair<uint32_t, uint32_t> formula_workgroups(const Workgroups& g, const FormulaValues& problem, uint32_t most_x,
                                                 uint32_t most_y) {
  const auto x = static_cast<uint32_t>(g.formula_x.count(problem, most_x));
  const auto y = g.formula_y.empty() ? 1u : static_cast<uint32_t>(g.formula_y.count(problem, most_y));
  return {x, y};
}

const PlanBuffer* DispatchPlan::buffer(BufferRole role) const {
  for (const auto& b : buffers)
    if (b.role == role) return &b;
  return nullptr;
}

std::string plan_error(const DispatchPlan& plan, size_t shaders) {
  int outputs = 0, partials = 0, counters = 0;
  std::vector<std::string> names{"input"};
  for (const auto& b : plan.buffers) {
    for (const auto& n : names)
      if (n == b.name) return "buffer '" + b.name + "' is declared twice";
    names.push_back(b.name);
    outputs += b.role == BufferRole::Output;
    partials += b.role == BufferRole::Partials;
    counters += b.role == BufferRole::Counter;
    if (b.role == BufferRole::Constant ? b.contents.empty() : b.bytes.formula.empty() && b.bytes.of({1, 1}) == 0)
      return "buffer '" + b.name + "' has no size";
    for (const auto& f : b.fills)
      if (f.bytes == 0 || f.offset % 4 || f.bytes % 4) return "a fill of buffer '" + b.name + "' is not whole words";
  }
  if (outputs != 1) return "a plan has one output buffer, not " + std::to_string(outputs);
  if (partials > 1 || counters > 1) return "a plan has at most one partials buffer and one counter";
  if (plan.passes.empty()) return "a plan has at least one pass";
  for (size_t i = 0; i < plan.passes.size(); ++i) {
    const PlanPass& p = plan.passes[i];
    const std::string pass = "pass " + std::to_string(i + 1);  // counted from 1, as a pack's manifest counts them
    if (p.shader >= shaders) return pass + " names shader " + std::to_string(p.shader) + " of " + std::to_string(shaders);
    for (const auto& binding : p.bindings) {
      bool known = false;
      for (const auto& n : names) known = known || n == binding;
      if (!known) return pass + " binds '" + binding + "', which no buffer is";
    }
    if (p.groups.kind == Workgroups::Kind::Formula ? p.groups.formula_x.empty() : p.groups.x == 0 || p.groups.y == 0)
      return pass + " has a workgroup count or size of 0";
    if (p.push.size() > 32) return pass + " pushes more than 32 words";
  }
  return "";
}

}  // namespace shaderwatch
