// A change in a series' run-to-run noise (a runner 4x noisier, a driver that jitters): an event of its own,
// apart from its level. Pure statistics over the same runs detect() looks at; the run detector raises it as a
// `noise` alert and attributes it as it does a step, and the verdict names the GPU's noisy series.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "detection/detect.h"

namespace shaderwatch::detect {

struct NoiseChange {
  std::size_t index = 0;          // first point on the new noise (in the points given)
  std::size_t n_before = 0, n_after = 0;
  double before_rel = 0, after_rel = 0;  // run-to-run noise either side (relative)
  double ratio = 1;               // after / before
  double score = 0;               // the split's score (see noise_change())
};

// The one split of the series' run-to-run noise that scores highest, when it is beyond Params::noise_z and the
// noise changed by Params::noise_ratio or more either way. The score compares the mean log absolute first
// difference either side (a first difference does not see a step in level, and the log of a heavy-tailed or
// slow-mode difference is a bounded number), in units of its standard error from the pooled spread of those
// logs. Each side holds min_segment differences or more.
std::optional<NoiseChange> noise_change(const std::vector<Point>& series, const Params& p = {});
// The same over the series' kept runs (kept_runs), shared with detect().
std::optional<NoiseChange> noise_change(const KeptRuns& kept, const Params& p = {});

// Whether a sibling series' noise changed the same way, by at least half as much in log terms (for the
// attribution): its run-to-run noise over `before` and `after` (values, ns), min_segment runs each or more.
struct SiblingNoise {
  bool present = false, changed = false;
  double ratio = 1;
};
SiblingNoise sibling_noise(const std::vector<double>& before, const std::vector<double>& after, double own_ratio,
                           const Params& p = {});

}  // namespace shaderwatch::detect
