// The executor: a plan's buffers (by role into the runner's output, partials and counter), its pipelines in pass
// order (so each shader compiles, and its SPIR-V hash is taken, as the hand-written runners did), its push words.
#include "run/dispatch_runner.h"

#include <map>
#include <stdexcept>
#include <string>

namespace shaderwatch {

namespace {

std::pair<uint32_t, uint32_t> workgroups(const Workgroups& g, const RunContext& c) {
  const Problem& p = c.problem;
  switch (g.kind) {
    case Workgroups::Kind::Tiles:
      return {static_cast<uint32_t>(ceil_div(p.width, g.x)), static_cast<uint32_t>(ceil_div(p.height, g.y))};
    case Workgroups::Kind::Fixed: return {g.x, g.y};
    case Workgroups::Kind::PerItem: return {static_cast<uint32_t>(ceil_div(p.items(), g.x)), 1};
    case Workgroups::Kind::DeviceGrid: return {grid_stride_groups(c.device.info(), p.items(), g.x), 1};
    case Workgroups::Kind::Formula:
      return formula_workgroups(g, workgroup_formula_values(p.width, p.height, p.items()),
                                c.device.info().max_workgroup_count_x, c.device.info().max_workgroup_count_y);
  }
  throw std::logic_error("unknown workgroup kind");
}

class DispatchRunner final : public FamilyRunner {
 public:
  DispatchRunner(RunContext& c, const DispatchPlan& plan) {
    if (const std::string error = plan_error(plan, c.spec.shaders.size()); !error.empty())
      throw std::logic_error(c.spec.name + ": " + error);
    problem_items = c.problem.items();
    std::tie(groups_x, groups_y) = workgroups(plan.passes[0].groups, c);
    const PlanCounts counts{problem_items, uint64_t{groups_x} * groups_y};
    std::map<std::string, const Buffer*> named{{"input", &c.input}};
    for (const PlanBuffer& b : plan.buffers) named[b.name] = &make_buffer(c, b, counts);
    for (const PlanPass& p : plan.passes) {
      std::vector<Resource> resources;
      for (const auto& name : p.bindings) resources.push_back(RunContext::storage(*named.at(name)));
      Pass pass{c.pipeline(p.shader, resources, c.spec.specialization), workgroups(p.groups, c), {}};
      size_t word = 0;
      auto put = [&](uint32_t value) {
        if (word == std::size(pass.push.values)) throw std::logic_error(c.spec.name + ": more push constants than 128 bytes");
        pass.push.values[word++] = value;
      };
      for (const PushWord& w : p.push) {
        switch (w.kind) {
          case PushWord::Kind::Width: put(c.problem.width); break;
          case PushWord::Kind::Height: put(c.problem.height); break;
          case PushWord::Kind::Items: put(static_cast<uint32_t>(counts.items)); break;
          case PushWord::Kind::Groups: put(static_cast<uint32_t>(counts.groups)); break;
          case PushWord::Kind::Value: put(w.value); break;
          case PushWord::Kind::Parameters:
            for (float f : c.derived.push_parameters) {
              put(0);
              pass.push.set_float(word - 1, f);
            }
            break;
        }
      }
      passes_.push_back(std::move(pass));
    }
  }

  void record(VkCommandBuffer cmd) const override {
    for (const auto& [buffer, fill] : fills_) vkCmdFillBuffer(cmd, buffer, fill.offset, fill.bytes, fill.value);
    if (!fills_.empty()) full_barrier(cmd);
    for (size_t i = 0; i < passes_.size(); ++i) {
      if (i > 0) full_barrier(cmd);
      passes_[i].pipeline->dispatch(cmd, passes_[i].push, passes_[i].groups.first, passes_[i].groups.second);
    }
  }

 private:
  struct Pass {
    std::unique_ptr<ComputePipeline> pipeline;
    std::pair<uint32_t, uint32_t> groups;
    PushConstants push;
  };

  const Buffer& make_buffer(RunContext& c, const PlanBuffer& b, const PlanCounts& counts) {
    const uint64_t bytes = b.role == BufferRole::Constant ? b.contents.size() * sizeof(float) : b.bytes.of(counts);
    std::unique_ptr<Buffer>* slot = nullptr;
    switch (b.role) {
      case BufferRole::Output: output = c.guarded(output_bytes, bytes); slot = &output; break;
      case BufferRole::Partials: partials = c.guarded(partials_bytes, bytes); slot = &partials; break;
      case BufferRole::Counter: counter = c.buffer(bytes); slot = &counter; break;
      case BufferRole::Constant:
        constants_.push_back(c.buffer(bytes));
        constants_.back()->upload(b.contents.data(), bytes);
        slot = &constants_.back();
        break;
    }
    for (const PlanFill& f : b.fills) {
      if (f.offset + f.bytes > bytes)
        throw std::logic_error(c.spec.name + ": a fill runs past buffer '" + b.name + "' (" + std::to_string(bytes) + " bytes)");
      fills_.push_back({(*slot)->handle(), f});
    }
    return **slot;
  }

  std::vector<std::unique_ptr<Buffer>> constants_;
  std::vector<std::pair<VkBuffer, PlanFill>> fills_;
  std::vector<Pass> passes_;
};

}  // namespace

std::unique_ptr<FamilyRunner> make_dispatch_runner(RunContext& context, const DispatchPlan& plan) {
  return std::make_unique<DispatchRunner>(context, plan);
}

}  // namespace shaderwatch
