#include "pack/pack_limits.h"

#include "pack/kernel_pack.h"

namespace shaderwatch {

namespace {

// The first pass's workgroups and the output's bytes of a plan at `size`; throws FormulaError where a formula gives
// no count within the limits, and says in `problem` a buffer past `most_bytes`.
struct PlanSizes {
  uint64_t groups = 0, output_bytes = 0;
  std::string problem;
};
PlanSizes plan_sizes(const DispatchPlan& plan, const SizeSpec& size, uint32_t most_x, uint32_t most_y, uint64_t most_bytes) {
  PlanSizes out;
  const FormulaValues problem = workgroup_formula_values(size.width, size.height, size.items());
  for (const PlanPass& p : plan.passes) {
    const auto [x, y] = formula_workgroups(p.groups, problem, most_x, most_y);
    if (!out.groups) out.groups = uint64_t{x} * y;
  }
  for (const PlanBuffer& b : plan.buffers) {
    const uint64_t bytes = b.bytes.of({size.items(), out.groups});
    if (b.role == BufferRole::Output) out.output_bytes = bytes;
    if (bytes > most_bytes && out.problem.empty())
      out.problem = "buffer '" + b.name + "' of " + std::to_string(bytes) + " bytes is past the device's maxStorageBufferRange, " +
                    std::to_string(most_bytes);
  }
  return out;
}

}  // namespace

std::string pack_size_problem(const KernelSpec& spec, SizeKind kind, const SizeSpec& size, const DeviceInfo* device,
                              const DeviceInfo* cpu) {
  if (!spec.plan || spec.plan->passes.empty() || spec.plan->passes[0].groups.kind != Workgroups::Kind::Formula) return "";
  const std::string at = spec.name + " at " + size_text(kind, size) + (device ? " on " + device->name : "") + ": ";
  const uint64_t most_bytes = device ? device->max_storage_buffer_range : ~uint64_t{0};
  try {
    const PlanSizes sizes = plan_sizes(*spec.plan, size, device ? device->max_workgroup_count_x : 0xFFFFFFFFu,
                                       device ? device->max_workgroup_count_y : 0xFFFFFFFFu, most_bytes);
    if (!sizes.problem.empty()) return at + sizes.problem;
    // The tile sums are read one per workgroup of the first pass, in row order of the tiles: as many of each.
    if (spec.method == Method::LumTiles && kind == SizeKind::Image) {
      const uint64_t tiles = ceil_div(size.width, spec.tile_x) * ceil_div(size.height, spec.tile_y);
      if (sizes.groups != tiles)
        return at + "its first pass has " + std::to_string(sizes.groups) + " workgroups, and its " + std::to_string(spec.tile_x) +
               "x" + std::to_string(spec.tile_y) + " tiles are " + std::to_string(tiles) +
               ": the check reads one sum per tile from one workgroup each";
    }
    const PlanCounts counts{size.items(), sizes.groups};
    for (const PackCheck& c : pack_checks()) {
      if (c.method != spec.method) continue;
      const uint64_t reads = spec.reference ? spec.reference->compared.count(buffer_formula_values(counts), ~uint64_t{0} / 8) * 4
                                            : c.reads(size.items(), sizes.groups);
      if (sizes.output_bytes < reads)
        return at + "buffer 'output' of " + std::to_string(sizes.output_bytes) + " bytes ('" +
               spec.plan->buffer(BufferRole::Output)->bytes.formula.text() + "') is smaller than the check reads, " +
               std::to_string(reads) + ": " + c.output;
    }
    if (spec.reference) {
      // The reference runs on the CPU device, whose limits are not the device's under test (lavapipe binds 128 MiB).
      const ReferenceShader& ref = *spec.reference;
      if (device && !cpu)
        return at + "its reference shader runs on the CPU Vulkan device (lavapipe: Debian's mesa-vulkan-drivers), "
                    "which the Vulkan loader does not list";
      const std::string on = cpu ? " on " + cpu->name : "";
      const PlanSizes own = plan_sizes(*ref.run.plan, size, cpu ? cpu->max_workgroup_count_x : 0xFFFFFFFFu,
                                       cpu ? cpu->max_workgroup_count_y : 0xFFFFFFFFu,
                                       cpu ? cpu->max_storage_buffer_range : ~uint64_t{0});
      if (!own.problem.empty()) return at + "its reference" + on + ": " + own.problem;
      if (const uint64_t bytes = size.items() * 16 + input_guard_bytes(kind, size.width); cpu && bytes > cpu->max_storage_buffer_range)
        return at + "its reference" + on + ": the input and its guard zone, " + std::to_string(bytes) +
               " bytes, are past that device's maxStorageBufferRange, " + std::to_string(cpu->max_storage_buffer_range);
      const uint64_t needs = ref.compared.count(buffer_formula_values(counts), ~uint64_t{0} / 8) * (ref.fp64 ? 8 : 4);
      if (own.output_bytes < needs)
        return at + "its reference's buffer 'output' of " + std::to_string(own.output_bytes) + " bytes ('" +
               ref.run.plan->buffer(BufferRole::Output)->bytes.formula.text() + "') is smaller than the " +
               std::to_string(needs / (ref.fp64 ? 8 : 4)) + " " + (ref.fp64 ? "doubles" : "floats") + " compared ('" +
               ref.compared.text() + "')";
    }
  } catch (const FormulaError& e) {
    return at + e.what();
  }
  if (device && uint64_t{spec.group_x} * spec.group_y > device->max_workgroup_invocations)
    return at + "a workgroup of " + std::to_string(uint64_t{spec.group_x} * spec.group_y) +
           " invocations is past the device's maxComputeWorkGroupInvocations, " + std::to_string(device->max_workgroup_invocations);
  // The input: a vec4 per pixel or position.
  if (const uint64_t bytes = size.items() * 16; bytes > most_bytes)
    return at + "the input of " + std::to_string(bytes) + " bytes is past the device's maxStorageBufferRange, " +
           std::to_string(most_bytes);
  return "";
}

}  // namespace shaderwatch
