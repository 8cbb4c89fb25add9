#pragma once
// The kernel catalog: every kernel variant shaderwatch runs, as data. The harness runs an entry, the
// reference checks it, the benchmark times it; results are keyed on `name`, so names never change.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <shaderwatch/result_contract.h>

#include "dispatch_plan.h"

namespace shaderwatch {

using Defines = std::vector<std::pair<std::string, std::string>>;

enum class Family { Luminance, Boids, Postfx };

// How the harness drives an entry: the dispatch shape, buffers and what the outputs mean.
enum class Method {
  LumTiles,             // one float per tile (the partial image), the harness adds them
  LumGridStride,        // one float per workgroup of a device-sized grid
  LumSinglePass,        // tile floats plus the total in the same dispatch
  LumStats,             // vec4(sum L, sum ln(delta + L), min L, max L) per tile
  BoidsSerial,          // one invocation over all positions
  BoidsTwoPass,         // SLICES partial sums, then one invocation over them
  BoidsGroupshared,     // one workgroup
  BoidsBlend,           // graphics pipeline, additive blending into a 1x1 target
  BoidsMipChain,        // scatter into a square image, vkCmdBlitImage down to 1x1
  BoidsMinMaxSubgroup,  // one workgroup: min and max per component
  BoidsMinMaxAtomic,    // one invocation per position: atomicMin/Max on order-preserving keys
  BoidsGridSum,         // a device-sized grid's partial sums, then one workgroup over them
  BoidsGridMinMax,      // the same for the min and max per component
  PixelMap,             // post-processing: one output pixel per input pixel (postfx_pixel.comp)
  Blur,                 // separable Gaussian: x pass then y pass (postfx_blur.comp)
  DofTiles,             // per-tile near/far circle of confusion (postfx_dof_tiles.comp)
  DofComposite,         // the tile pass, then the depth-of-field gather and composite (postfx_dof_composite.comp)
  PackReference,        // a kernel pack's kernel, checked against its pack's reference shader (ReferenceShader)
};

// What a post-processing kernel reads: the harness derives it from the problem's RGB image.
enum class PixelSpace {
  Rgb,            // linear HDR RGB
  Yxy,            // (Y, x, y) of that image
  YxyToneMapped,  // Y Reinhard-tone-mapped into [0, 1] (local gamma's input)
  RgbDepth,       // that RGB with a depth buffer in metres in alpha: near, in-focus and far regions
};

// Which formula of reference/postfx.h a post-processing kernel computes (postfx_pixel.comp's STAGE).
enum class PostfxStage { RgbToYxy = 0, YxyToRgb, ToneMapY, AcesHillRgb, BrightPass, LocalGamma, Fused, CircleOfConfusion };

struct ShaderRef {
  std::string file;  // in kernels/, or "<pack>/<file>" of a kernel pack
  Defines defines;
  std::string entry;  // an HLSL shader's entry function (a pack's); GLSL's is main
};

// What the error bound of a variant depends on at run time.
struct ErrorContext {
  uint32_t subgroup_size;  // the device's
  uint64_t items;          // pixels or boids in the input
  uint64_t groups;         // workgroups in the main dispatch
};

struct KernelSpec {
  std::string name;  // stable key: family/variant
  Family family;
  Method method;
  std::string description;
  // What the kernel computes, shared by every variant that computes the same thing ("luminance sum",
  // "tone mapping"): only variants of one operation are ranked against each other.
  std::string operation;
  // What bounds its time (the contract's words): a reader shows the roofline only where bandwidth does.
  contract::Limit limit = contract::Limit::Bandwidth;
  std::vector<ShaderRef> shaders;  // passes in order; for BoidsBlend the vertex then fragment shader
  uint32_t group_x = 1, group_y = 1;  // invocations per workgroup of the main pass
  uint32_t tile_x = 0, tile_y = 0;    // pixels per workgroup (tiled luminance methods)
  uint32_t subgroup_ops = 0;          // VkSubgroupFeatureFlags the shaders need in compute
  // h: roundings any one input passes through (Higham s.4.2); the check allows 2 * gamma_h * sum|x|.
  std::function<double(const ErrorContext&)> roundings;
  // For LumSinglePass: roundings of the total the kernel itself computes from the tile sums.
  std::function<double(const ErrorContext&)> total_roundings;
  bool needs_nonnegative_input = false;  // ln(delta + L)
  bool log_average = false;              // LumSinglePass summing ln(delta + L): also Lavg and the exposure
  // Post-processing kernels.
  PixelSpace input_space = PixelSpace::Rgb;
  PostfxStage stage = PostfxStage::RgbToYxy;
  int tone_operator = 0;                 // reference::ToneOperator
  std::vector<uint32_t> specialization;  // constant_id i = specialization[i]
  uint32_t blur_radius = 0;
  uint32_t dof_max_radius = 0;  // DofComposite: the CoC clamp in pixels (MAX_RADIUS), at most 16
  // Its run as compute dispatches (dispatch_plan.h): its method's, from method_plan. None for a method that
  // needs a hand-written runner (harness/families/<family>/).
  std::optional<DispatchPlan> plan;
  // Its own benchmark sizes as a manifest writes them ("1920x1080", "4096"), where --sizes and --quick do not choose;
  // empty: the run's.
  std::vector<std::string> sizes;
  // A pack kernel's own input data: the path of a file it is benchmarked on, at its one size (sizes[0]), and checked on
  // besides its family's test inputs (InputKind::File); "": its family's generated inputs only.
  std::string input_file;
  // PackReference: what its output is checked against.
  std::shared_ptr<const struct ReferenceShader> reference;
};

// A kernel pack's reference for one of its kernels (Method::PackReference): a kernel of its own, its plan run by the
// same executor over the same input on the CPU device (lavapipe), whose output the kernel's must match element by
// element within the tolerance the manifest states.
struct ReferenceShader {
  KernelSpec run;       // its shaders and plan; its output holds the expected values, as float or (fp64) double
  bool fp64 = false;
  SizeFormula compared;  // how many floats of the kernel's output are compared, of kBufferFormulaNames
  // An element's bound: the largest of these that the manifest gives (none given: exact).
  double relative = 0, absolute = 0, ulps = 0;
  double bound(double expected) const;
};

// The plan of a catalog entry's method (method_plans.cpp), or none for one that is not plain compute dispatches.
std::optional<DispatchPlan> method_plan(const KernelSpec& spec);
// Normalised Gaussian weights, sigma = radius / 3, as float: the blur's constant buffer, which its check reads too.
std::vector<float> blur_weights(uint32_t radius);
// The same weights' bits as GLSL uint literals, comma-separated ("0x3c...u,..."): postfx_blur.comp's WEIGHT_BITS, so
// that a pass may take them as constants, bit for bit the buffer's.
std::string blur_weight_bits(uint32_t radius);

// The least memory traffic a kernel's operation needs per dispatch over `items` pixels or boids (16-byte
// RGBA32F pixels, vec4 positions): every input read once per pass that must read it, every output pixel
// written once per pass that writes it. Small results (tile sums, a total) count as nothing. The
// roofline (harness/run/roofline.h) prices it at the measured bandwidths.
struct Traffic {
  uint64_t bytes_read = 0, bytes_written = 0;
};
Traffic kernel_traffic(const KernelSpec& spec, uint64_t items);

const std::vector<KernelSpec>& catalog();
// Adds a kernel pack's kernels after the built-in ones (harness/pack/); throws std::invalid_argument for a name the
// catalog has. Call it before anything holds an entry: the entries may move.
void add_to_catalog(std::vector<KernelSpec> kernels);
const KernelSpec& find_kernel(const std::string& name);  // throws std::invalid_argument
// The catalog entry of a family/variant name, or nullptr (a name from another catalog version).
const KernelSpec* find_kernel_or_null(std::string_view name);
// The value one of the kernel's shaders is built with for `define`; throws std::invalid_argument when none has it.
const std::string& define_value(const KernelSpec& spec, const std::string& define);
// The value `shader` is built with for `define`, or nullptr.
const std::string* shader_define(const ShaderRef& shader, const std::string& define);

// The roofline's bandwidth probes (not catalog entries: nothing to check), each in two access patterns:
// a grid-stride loop, or tiles of an image kProbeImageWidth vec4 wide (tiled = true). copy.comp copies
// or only writes; read_probe.comp reads and writes nothing (also the cold-cache flush, not tiled).
inline constexpr uint32_t kProbeImageWidth = 7680;  // the seeds' largest image, 8K
ShaderRef copy_probe_shader(bool write_only, bool tiled);
ShaderRef read_probe_shader(bool tiled);

// Every (shader, defines) pair of the catalog, for the build-time glslangValidator pass.
std::vector<ShaderRef> all_shader_variants();

uint64_t ceil_div(uint64_t a, uint64_t b);  // a / b rounded up
// ceil(log2(x)) for x >= 1: levels of a binary tree over x values.
uint32_t tree_levels(uint64_t x);
// Side of the square power-of-two image the mip-chain kernel scatters `count` positions into.
uint32_t mip_chain_side(uint64_t count);
// Roundings of workgroup_sum.glsl over `threads` invocations with subgroups of `subgroup_size`.
double workgroup_sum_roundings(uint32_t threads, uint32_t subgroup_size);

}  // namespace shaderwatch
