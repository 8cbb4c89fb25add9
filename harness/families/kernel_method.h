#pragma once
// One catalog Method (catalog.h) as the object that checks its runs, after Amber's Verifier: make_check compares
// what the kernel wrote with the family's reference. How a run is recorded is the entry's dispatch plan
// (kernels/dispatch_plan.h: its buffers, passes, workgroups), run by the one executor (run/dispatch_runner.h);
// only a method that is not plain compute dispatches (boids' blend and mip chain) records its own, in
// make_runner. The check reads the output's size from the plan (output_floats), so the layout is written once.
// The check outlives the runner (KernelRun::release_device frees the runner, later checks still run), so the
// two are made separately. A family's methods are in its folder, one file per method or per group of close
// ones, and its KernelFamily's `method` finds them in one table.
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "catalog.h"
#include "check/answer_check.h"
#include "run/family_runner.h"
#include "inputs/inputs.h"

namespace shaderwatch {

class KernelMethod {
 public:
  virtual ~KernelMethod() = default;
  // For a method that has no dispatch plan: its buffers, images and pipelines for the spec on the device; the
  // runner records every pass. Throws UnsupportedError where the device lacks what the method needs.
  virtual std::unique_ptr<FamilyRunner> make_runner(RunContext& context) const {
    throw std::logic_error(context.spec.name + ": its method has no runner of its own; its catalog entry needs a plan");
  }
  // `input`: the family's derive_input, empty for a family without one. spec and problem outlive the check.
  virtual MethodCheck make_check(const KernelSpec& spec, const Problem& problem, const RunShape& shape,
                                 DerivedInput input) const = 0;
  // Whether its output is an image the size of the input (KernelRun::output_pixels reads it back).
  virtual bool writes_image() const { return false; }
  // Sizes the --check suite adds for this kernel on this device, each with what it makes the kernel's loops do: for
  // a loop whose trip count follows the device's dispatch, sizes that take every way out of it (each remainder
  // class), which fixed sizes reach only by chance. None by default.
  virtual std::vector<std::pair<SizeSpec, std::string>> dispatch_check_sizes(const KernelSpec&, const DeviceInfo&) const {
    return {};
  }
};

// The floats of a planned kernel's output in a run of `shape`: its plan's output buffer. Throws std::logic_error
// for a kernel without a plan.
inline uint64_t output_floats(const KernelSpec& spec, const RunShape& shape) {
  if (!spec.plan) throw std::logic_error(spec.name + " has no dispatch plan");
  const PlanBuffer* out = spec.plan->buffer(BufferRole::Output);
  if (!out) throw std::logic_error(spec.name + "'s plan has no output");
  return out->bytes.of({shape.error_context.items, shape.groups()}) / sizeof(float);
}

// A family's table of its methods: the one place that maps a Method to the object that runs it.
template <class M>
using MethodTable = std::vector<std::pair<Method, const M*>>;

// The method of `table` for `id`; throws std::logic_error naming the family for a method not in it.
template <class M>
const M& find_method(const MethodTable<M>& table, Method id, std::string_view family) {
  for (const auto& [method, object] : table) {
    if (method == id) return *object;
  }
  throw std::logic_error(std::string(family) + " has no method " + std::to_string(static_cast<int>(id)));
}

}  // namespace shaderwatch
