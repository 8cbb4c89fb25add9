#include "suite/suite_inputs.h"

#include <set>
#include <string>

#include "families/kernel_family.h"
#include "families/kernel_input.h"

namespace shaderwatch {

SuiteInputs::SuiteInputs(const std::vector<std::pair<const KernelSpec*, SizeSpec>>& needed, uint64_t seed) : seed_(seed) {
  // Each kernel's check asks once per size (its hot and cold runs share one reference). Only the keys of two or
  // more kernels are announced: announced and never asked for (a kernel that fails to set up), a reference is
  // held to the end of the suite.
  std::map<std::tuple<SizeKey, int, std::string>, std::set<const KernelSpec*>> askers;
  for (const auto& [spec, size] : needed) {
    derived_started(*spec, size);
    if (const auto reference_key = kernel_family(spec->family).reference_key) {
      askers[{key(*spec, size), kernel_input_variant(*spec), reference_key(*spec)}].insert(spec);
    }
  }
  for (const auto& [k, specs] : askers) {
    const auto& [size_key, variant, reference_key] = k;
    if (specs.size() < 2) continue;
    for (size_t i = 0; i < specs.size(); ++i) references_.at({size_key, variant})->expect(reference_key);
  }
}

std::shared_future<Problem>& SuiteInputs::problem_started(const KernelSpec& spec, const SizeSpec& size) {
  auto it = problems_.find(key(spec, size));
  if (it == problems_.end()) {
    it = problems_.emplace(key(spec, size), std::async(std::launch::async, [&spec, size, seed = seed_] {
                                               const InputKind kind = spec.input_file.empty()
                                                                          ? kernel_family(spec.family).benchmark_input
                                                                          : InputKind::File;
                                               return kernel_problem(spec, kind, size, seed);
                                             }).share()).first;
  }
  return it->second;
}

std::shared_future<DerivedInput>& SuiteInputs::derived_started(const KernelSpec& spec, const SizeSpec& size) {
  const auto k = std::make_pair(key(spec, size), kernel_input_variant(spec));
  auto it = derived_.find(k);
  if (it == derived_.end()) {
    auto references = references_.emplace(k, std::make_shared<SharedReferences>()).first->second;
    it = derived_.emplace(k, std::async(std::launch::async, [&spec, problem = problem_started(spec, size), references] {
                               DerivedInput input = derive_kernel_input(spec, problem.get());
                               input.references = references;
                               return input;
                             }).share()).first;
  }
  return it->second;
}

}  // namespace shaderwatch
