#pragma once
// The benchmark suite's inputs on the host: generated once per family and size and shared by every kernel and
// device, and derived once per kernel input variant (families/kernel_input.h). Made on threads of their own, all started
// at construction, in the order given: an 8K image takes seconds on one core, so the first benchmarks wait for
// theirs and the rest are made while those sample. CPU only, so it can outlive the devices. Each derived input
// carries the references its kernels' checks share, announced for the kernels given (check/shared_references.h).
#include <future>
#include <map>
#include <tuple>
#include <utility>
#include <vector>

#include "catalog.h"
#include "check/answer_check.h"
#include "inputs/inputs.h"

namespace shaderwatch {

class SuiteInputs {
 public:
  // Starts making what each (kernel, size) reads, in this order.
  SuiteInputs(const std::vector<std::pair<const KernelSpec*, SizeSpec>>& needed, uint64_t seed);
  // Wait for what is still being made; a generator's exception, if any, is thrown here.
  const Problem& problem(const KernelSpec& spec, const SizeSpec& size) { return problem_started(spec, size).get(); }
  const DerivedInput& derived(const KernelSpec& spec, const SizeSpec& size) { return derived_started(spec, size).get(); }

 private:
  // A family's generated problem at a size, or a kernel's input file (its path) at its size.
  using SizeKey = std::tuple<Family, uint32_t, uint32_t, uint64_t, std::string>;
  static SizeKey key(const KernelSpec& spec, const SizeSpec& size) {
    return {spec.family, size.width, size.height, size.count, spec.input_file};
  }
  std::shared_future<Problem>& problem_started(const KernelSpec& spec, const SizeSpec& size);
  std::shared_future<DerivedInput>& derived_started(const KernelSpec& spec, const SizeSpec& size);
  uint64_t seed_;
  std::map<SizeKey, std::shared_future<Problem>> problems_;
  std::map<std::pair<SizeKey, int>, std::shared_future<DerivedInput>> derived_;
  std::map<std::pair<SizeKey, int>, std::shared_ptr<SharedReferences>> references_;
};

}  // namespace shaderwatch
