#pragma once
// A kernel run that is compute dispatches over declared buffers, as data (after Amber's scripts): the buffers it
// makes, sized from the run, and its passes in order, each a shader, its bindings, its workgroups and its push
// constants. One executor runs every plan (harness/run/dispatch_runner.h); the catalog's entries get their
// method's plan from method_plans.cpp, and only what is not plain dispatches (the blend pipeline, the blit mip
// chain) keeps a hand-written runner.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "size_formula.h"

namespace shaderwatch {

// What a run's sizes are counted in: the problem's items (pixels or boids) and the workgroups of its first pass.
struct PlanCounts {
  uint64_t items = 0;
  uint64_t groups = 0;
};

// The names a buffer's size formula may use (a kernel pack's), and what they are for a run of `c`.
inline const std::vector<std::string> kBufferFormulaNames{"items", "groups"};
FormulaValues buffer_formula_values(const PlanCounts& c);

// per_item * items + per_group * groups + fixed bytes; or, where a kernel pack wrote one, `formula` bytes.
struct ByteCount {
  uint64_t per_item = 0, per_group = 0, fixed = 0;
  SizeFormula formula;  // of kBufferFormulaNames; throws FormulaError where it is not a whole number from 1
  uint64_t of(const PlanCounts& c) const;
};

enum class BufferRole {
  Output,    // what the check reads back: poisoned before every run, a guard zone after it (exactly one)
  Partials,  // an intermediate between passes, poisoned and guarded like the output (at most one)
  Counter,   // zeroed once; the kernel must leave it at zero for its next run (at most one)
  Constant,  // `contents`, uploaded once (its size is theirs)
};

// vkCmdFillBuffer of `bytes` at `offset` with `value`, before the first pass of every run (an atomic's identity).
struct PlanFill {
  uint64_t offset = 0, bytes = 0;
  uint32_t value = 0;
};

struct PlanBuffer {
  std::string name;  // what bindings call it; "input" is the uploaded input, which every plan has
  BufferRole role = BufferRole::Output;
  ByteCount bytes;
  std::vector<float> contents;  // a Constant's
  std::vector<PlanFill> fills;
};

struct Workgroups {
  enum class Kind {
    Tiles,       // ceil(width / x) by ceil(height / y): one per tile of the image
    Fixed,       // x by y
    PerItem,     // ceil(items / x)
    DeviceGrid,  // as many workgroups of x invocations as the device keeps busy, for a grid-stride loop
    Formula,     // formula_x by formula_y (1 where empty): a kernel pack's, of kWorkgroupFormulaNames
  };
  Kind kind = Kind::Fixed;
  uint32_t x = 1, y = 1;
  SizeFormula formula_x, formula_y;
};

// The names a pack's workgroup formulas may use, and what they are for a problem.
inline const std::vector<std::string> kWorkgroupFormulaNames{"width", "height", "items"};
FormulaValues workgroup_formula_values(uint32_t width, uint32_t height, uint64_t items);
// The workgroups of a Formula kind for that problem, at most `most_x` by `most_y` (the device's); throws FormulaError
// naming the formula.
std::pair<uint32_t, uint32_t> formula_workgroups(const Workgroups& g, const FormulaValues& problem, uint32_t most_x,
                                                 uint32_t most_y);

// One 32-bit push constant word, in order from word 0.
struct PushWord {
  enum class Kind {
    Width, Height, Items, Groups,  // the problem's and the first pass's
    Value,                         // `value`
    Parameters,                    // the family's derived parameters (DerivedInput::push_parameters), a word each
  };
  Kind kind = Kind::Value;
  uint32_t value = 0;
};

struct PlanPass {
  size_t shader = 0;                  // KernelSpec::shaders[shader], built with the spec's specialization constants
  std::vector<std::string> bindings;  // buffer names for bindings 0, 1, ...
  Workgroups groups;
  std::vector<PushWord> push;
};

struct DispatchPlan {
  std::vector<PlanBuffer> buffers;
  std::vector<PlanPass> passes;  // a full barrier between passes
  // The buffer of `role` (the first), or nullptr.
  const PlanBuffer* buffer(BufferRole role) const;
};

// What is wrong with `plan` for a kernel of `shaders` shaders, in words; empty when nothing is: one output, at most
// one partials and one counter, names declared once, every binding a declared buffer (or "input"), shaders in range.
std::string plan_error(const DispatchPlan& plan, size_t shaders);

}  // namespace shaderwatch
