#include "families/kernel_family.h"

#include <stdexcept>

#include "families/reference_shader_method.h"

namespace shaderwatch {

const std::vector<const KernelFamily*>& kernel_families() {
  static const std::vector<const KernelFamily*> families{&luminance_family(), &boids_family(), &postfx_family()};
  return families;
}

const KernelFamily& kernel_family(Family id) {
  for (const KernelFamily* f : kernel_families()) {
    if (f->id == id) return *f;
  }
  throw std::logic_error("kernel family " + std::to_string(static_cast<int>(id)) + " is not in kernel_families()");
}

std::string input_identity(Family family, InputKind kind) {
  return input_kind_name(kind) + "@" + std::to_string(kernel_family(family).generator_version);
}

std::string input_identity(const Problem& problem) {
  return problem.kind == InputKind::File ? "file:" + problem.source : input_identity(problem.family, problem.kind);
}

Problem kernel_problem(const KernelSpec& spec, InputKind kind, const SizeSpec& size, uint64_t seed) {
  const KernelFamily& family = kernel_family(spec.family);
  if (kind != InputKind::File) return family.make_problem(kind, size, seed);
  if (spec.input_file.empty()) throw std::invalid_argument(spec.name + " has no input file");
  return problem_from_file(spec.family, family.size, size, spec.input_file);
}

const KernelMethod& kernel_method(const KernelSpec& spec) {
  // A pack's reference check serves kernels of every family's inputs.
  if (spec.method == Method::PackReference) return reference_shader_method();
  return kernel_family(spec.family).method(spec.method);
}

std::unique_ptr<AnswerCheck> make_answer_check(const KernelSpec& spec, const Problem& problem, const RunShape& shape,
                                               DerivedInput input) {
  return std::make_unique<AnswerCheck>(kernel_method(spec).make_check(spec, problem, shape, std::move(input)), shape);
}

}  // namespace shaderwatch
