#pragma once
// The post-processing family's methods, each one KernelMethod (families/kernel_method.h) in its own file:
// per-pixel maps (postfx_pixel_map.cpp), the two-pass blur (postfx_blur.cpp), the depth-of-field tiles and
// composite (postfx_dof.cpp). What they share: one runner of one or two passes over the image
// (postfx_runner.cpp), the check of an output image against an expected one (postfx_method.cpp), and the
// references themselves (postfx_check.h).
#include <memory>
#include <utility>
#include <vector>

#include "families/kernel_method.h"
#include "families/postfx/postfx_check.h"

namespace shaderwatch {

// Throws std::logic_error unless `input` holds the image as uploaded: every post-processing check reads it.
void require_uploaded_input(const KernelSpec& spec, const Problem& problem, const DerivedInput& input);

// A method whose output is an image the size of the input: every pixel against expected(), computed at the
// first check and kept.
class PostfxImageMethod : public KernelMethod {
 public:
  MethodCheck make_check(const KernelSpec& spec, const Problem& problem, const RunShape& shape,
                         DerivedInput input) const final;
  bool writes_image() const final { return true; }
  virtual ExpectedImage expected(const KernelSpec& spec, const Problem& problem, const DerivedInput& input) const = 0;
};

// The passes of a post-processing kernel over the image, in order, a full barrier between them; one set of
// push constants (the image's size; the tiled kernels' parameters) for all.
class PostfxRunner : public FamilyRunner {
 public:
  explicit PostfxRunner(const RunContext& c);
  void record(VkCommandBuffer cmd) const override;
  // The tiled kernels': the catalog's tiles (spec.tile_x x spec.tile_y pixels) as the workgroups, the
  // parameters (exposure, lens, ...) in the push constants. Returns the number of tiles.
  uint64_t tile(const RunContext& c);
  void add_pass(std::unique_ptr<ComputePipeline> pipeline, std::pair<uint32_t, uint32_t> groups);
  // The one pass of a tiled kernel (after tile()): the input to an output of `bytes`, at the tiles.
  void single_pass(RunContext& c, VkDeviceSize bytes);
  VkDeviceSize image_bytes() const { return problem_items * kVec4; }

 private:
  struct Pass {
    std::unique_ptr<ComputePipeline> pipeline;
    std::pair<uint32_t, uint32_t> groups;
  };
  PushConstants push_;
  std::vector<Pass> passes_;
};

// The family's methods (its table is postfx_method(), postfx_family.cpp).
const KernelMethod& postfx_pixel_map_method();
const KernelMethod& postfx_blur_method();
const KernelMethod& postfx_dof_tiles_method();
const KernelMethod& postfx_dof_composite_method();

}  // namespace shaderwatch
