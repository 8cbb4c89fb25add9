#include "run/suite_inputs.h"

#include "families/kernel_family.h"
#include "run/kernel_input.h"

namespace shaderwatch {

SuiteInputs::SuiteInputs(const std::vector<std::pair<const KernelSpec*, SizeSpec>>& needed, uint64_t seed) : seed_(seed) {
  for (const auto& [spec, size] : needed) derived_started(*spec, size);
}

std::shared_future<Problem>& SuiteInputs::problem_started(Family family, const SizeSpec& size) {
  auto it = problems_.find(key(family, size));
  if (it == problems_.end()) {
    it = problems_.emplace(key(family, size), std::async(std::launch::async, [family, size, seed = seed_] {
                                                const KernelFamily& f = kernel_family(family);
                                                return f.make_problem(f.benchmark_input, size, seed);
                                              }).share()).first;
  }
  return it->second;
}

std::shared_future<PostfxInput>& SuiteInputs::derived_started(const KernelSpec& spec, const SizeSpec& size) {
  const auto k = std::make_pair(key(spec.family, size), kernel_input_variant(spec));
  auto it = derived_.find(k);
  if (it == derived_.end()) {
    it = derived_.emplace(k, std::async(std::launch::async, [&spec, problem = problem_started(spec.family, size)] {
                               return derive_kernel_input(spec, problem.get());
                             }).share()).first;
  }
  return it->second;
}

}  // namespace shaderwatch
