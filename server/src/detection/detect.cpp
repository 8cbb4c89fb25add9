#include "detection/detect.h"

#include "detection/running_order.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <numeric>

namespace shaderwatch::detect {

namespace {


std::vector<double> slice(const std::vector<double>& y, std::size_t lo, std::size_t hi) {
  return {y.begin() + static_cast<std::ptrdiff_t>(lo), y.begin() + static_cast<std::ptrdiff_t>(hi)};
}

constexpr double kTrimSe = 1.03;  // s.e. of a 20% trimmed mean relative to a mean (normal)

double l1_cost(const std::vector<double>& y, std::size_t lo, std::size_t hi) {
  const auto v = slice(y, lo, hi);
  const double m = stats::median(v);
  double c = 0;
  for (double x : v) c += std::fabs(x - m);
  return c;
}

// The run-to-run noise of each point of the window (log), as prefix sums of its variance, so that a split's
// standard error weighs each side by the noise its own runs have: a series whose runner became 4x noisier is
// judged against the noise it has now, not the quiet history's.
struct NoiseProfile {
  std::vector<double> var_sum;  // var_sum[i]: sum of the variances of points [0, i)
  std::vector<std::size_t> unsteady_sum;  // unsteady_sum[i]: how many of points [0, i) are clearly noisier (kUnsteadyBy)
  double var(std::size_t lo, std::size_t hi) const { return var_sum[hi] - var_sum[lo]; }
  bool steady(std::size_t lo, std::size_t hi) const { return unsteady_sum[hi] == unsteady_sum[lo]; }
  double mean_sd(std::size_t lo, std::size_t hi) const { return std::sqrt(var(lo, hi) / static_cast<double>(hi - lo)); }
  // Standard error of the difference of the means of [lo, t) and [t, hi).
  double diff_se(std::size_t lo, std::size_t t, std::size_t hi) const {
    const double nl = static_cast<double>(t - lo), nr = static_cast<double>(hi - t);
    return std::sqrt(var(lo, t) / (nl * nl) + var(t, hi) / (nr * nr));
  }
};

void add_split(const std::vector<double>& y, std::size_t lo, std::size_t hi, std::size_t cand, double score,
               const NoiseProfile& noise, double threshold, const Params& p,
               std::vector<std::pair<std::size_t, double>>& out, bool latest_only = false, std::size_t min_after = 0);

// Stage 1, binary segmentation. The candidate split is where the shift between the segments'
// trimmed means scores highest (robust to outliers); it is then placed exactly where the L1
// cost around the segment medians is least, searched within min_segment of the candidate (the
// score is flat near a step). A split leaving fewer than min_segment points on a side is not
// yet a change point: a lone outlier never is, and a new level must hold min_segment runs
// first. Known limit: two steps closer than 2*min_segment may be merged into one.
// `prefix_levels`: growing_levels(y, lo, hi, false) where the caller has them already.
void segment(const std::vector<double>& y, std::size_t lo, std::size_t hi, const NoiseProfile& noise,
             double threshold, const Params& p, std::vector<std::pair<std::size_t, double>>& out,
             const std::vector<double>* prefix_levels = nullptr) {
  if (hi - lo < 2 * p.min_segment) return;
  // Levels of every prefix [lo, t) and suffix [t, hi), one insertion each (this runs for every series of every
  // ingested run).
  const std::vector<double> own = prefix_levels ? std::vector<double>{} : growing_levels(y, lo, hi, false);
  const std::vector<double>& pre = prefix_levels ? *prefix_levels : own;
  const std::vector<double> suf = growing_levels(y, lo, hi, true);
  std::size_t cand = 0;
  double best_score = -1;
  for (std::size_t t = lo + p.min_segment; t + p.min_segment <= hi; ++t) {
    const double s = std::fabs(suf[t - lo] - pre[t - lo]) / (kTrimSe * noise.diff_se(lo, t, hi));
    if (s > best_score) {
      best_score = s;
      cand = t;
    }
  }
  if (best_score < threshold) return;
  add_split(y, lo, hi, cand, best_score, noise, threshold, p, out);
}

// Places a split found at `cand` (see segment()) and recurses on both sides. With latest_only (the tail test,
// whose first run after the split is on the new level), it is placed no later than `cand`. The new segment holds
// min_after runs at least (0: min_segment).
void add_split(const std::vector<double>& y, std::size_t lo, std::size_t hi, std::size_t cand, double score,
               const NoiseProfile& noise, double threshold, const Params& p,
               std::vector<std::pair<std::size_t, double>>& out, bool latest_only, std::size_t min_after) {
  if (min_after == 0) min_after = p.min_segment;
  std::size_t best_t = cand;
  double best_cost = std::numeric_limits<double>::infinity();
  const std::size_t from = std::max(lo + 1, cand > p.min_segment ? cand - p.min_segment : 0);
  const std::size_t to = latest_only ? cand : std::min(hi - 1, cand + p.min_segment);
  for (std::size_t t = from; t <= to; ++t) {
    const double c = l1_cost(y, lo, t) + l1_cost(y, t, hi);
    if (c < best_cost) {
      best_cost = c;
      best_t = t;
    }
  }
  if (best_t < lo + p.min_segment || best_t + min_after > hi) return;
  out.emplace_back(best_t, score);
  segment(y, lo, best_t, noise, threshold, p, out);
  segment(y, best_t, hi, noise, threshold, p, out);
}

// Noise from first differences: a step moves one difference only, an outlier two. The RMS of
// the smallest 90% of |differences| is robust to those few and, unlike the MAD (37% efficient),
// is nearly as efficient as the SD: an underestimated noise is what causes false alarms.
// 0.7894 = sqrt(E[Z^2 | |Z| < z_0.95]) for a standard normal; sqrt(2): a difference has two draws.
// (In place: it reorders `diffs`.)
std::size_t diffs_kept(std::size_t m) { return std::max<std::size_t>(1, m * 9 / 10); }
double rms_to_sigma(double ss, std::size_t keep) { return std::sqrt(ss / static_cast<double>(keep)) / 0.7894 / std::sqrt(2.0); }
double diff_sigma_in_place(std::vector<double>& diffs) {
  if (diffs.empty()) return 0;
  for (double& d : diffs) d = std::fabs(d);
  const std::size_t keep = diffs_kept(diffs.size());
  if (keep < diffs.size()) std::nth_element(diffs.begin(), diffs.begin() + static_cast<std::ptrdiff_t>(keep), diffs.end());
  double ss = 0;
  for (std::size_t i = 0; i < keep; ++i) ss += diffs[i] * diffs[i];
  return rms_to_sigma(ss, keep);
}
// The same over |differences| already sorted.
double trimmed_rms_sigma(const std::vector<double>& sorted_abs) {
  const std::size_t keep = diffs_kept(sorted_abs.size());
  double ss = 0;
  for (std::size_t i = 0; i < keep; ++i) ss += sorted_abs[i] * sorted_abs[i];
  return rms_to_sigma(ss, keep);
}
double diff_sigma(std::vector<double> diffs) { return diff_sigma_in_place(diffs); }

// The best "flat, then a straight line from t0" fit of y in the least-squares sense: y = a + b * max(0,
// i - t0). Returns {sse, t0, a, b}.
struct TrendFit {
  double sse = std::numeric_limits<double>::infinity();
  std::size_t t0 = 0;
  double a = 0, b = 0, sxx = 0;
};
TrendFit fit_trend(const std::vector<double>& y, std::size_t min_segment) {
  TrendFit best;
  const std::size_t n = y.size();
  for (std::size_t t0 = 0; t0 + min_segment < n; ++t0) {
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const double x = i > t0 ? static_cast<double>(i - t0) : 0.0;
      sx += x, sy += y[i], sxx += x * x, sxy += x * y[i];
    }
    const double dn = static_cast<double>(n), vxx = sxx - sx * sx / dn;
    if (vxx <= 0) continue;
    const double b = (sxy - sx * sy / dn) / vxx, a = (sy - b * sx) / dn;
    double sse = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const double r = y[i] - a - b * (i > t0 ? static_cast<double>(i - t0) : 0.0);
      sse += r * r;
    }
    if (sse < best.sse) best = {sse, t0, a, b, vxx};
  }
  return best;
}

// Whether the steps found are better told as one drift: two or more steps (a lone step near the end is
// fitted well by a steep line too), all the same way, a straight line from one start at least 2 *
// min_segment runs back fitting the window as well as the steps do for its fewer parameters, its slope far beyond its
// standard error and its total change beyond the floor. Then the drift as one change point, with its
// stage-2 test.
// `before` holds the series' points before the window (for the stage-2 test's runs before the drift).
std::optional<ChangePoint> as_trend(const std::vector<double>& before, const std::vector<double>& y,
                                    const std::vector<std::pair<std::size_t, double>>& cps,
                                    const std::vector<double>& seg_level, const std::vector<std::size_t>& bounds,
                                    double sigma, double threshold, double floor, const Params& p) {
  if (cps.size() < 2) return std::nullopt;
  for (std::size_t s = 1; s + 1 < seg_level.size(); ++s)
    if ((seg_level[s] - seg_level[s - 1] > 0) != (seg_level[1] - seg_level[0] > 0)) return std::nullopt;
  double sse_steps = 0;
  for (std::size_t s = 0; s + 1 < bounds.size(); ++s)
    for (std::size_t i = bounds[s]; i < bounds[s + 1]; ++i) sse_steps += (y[i] - seg_level[s]) * (y[i] - seg_level[s]);
  const std::size_t n = y.size();
  const TrendFit fit = fit_trend(y, p.min_segment);
  // The steps spend two parameters each (a place and a level) where the line spends two in all: each extra
  // parameter must earn twice the noise variance of fit (Akaike's criterion), or the line is the better account.
  const double extra = 2.0 * static_cast<double>(cps.size()) - 2.0;
  if (fit.sse > sse_steps + 2.0 * extra * sigma * sigma || n - 1 - fit.t0 < 2 * p.min_segment) return std::nullopt;
  const double span = static_cast<double>(n - 1 - fit.t0);
  if (std::fabs(fit.b) / (sigma / std::sqrt(fit.sxx)) < threshold || std::fabs(fit.b) * span < floor) return std::nullopt;
  ChangePoint cp;
  cp.trend = true;
  cp.index = fit.t0 + 1;  // the first run off the old level
  cp.n_before = cp.index;
  cp.n_after = n - cp.index;
  cp.before = std::exp(fit.a);
  cp.after = std::exp(fit.a + fit.b * span);
  cp.delta_rel = std::expm1(fit.b * span);
  cp.rate_rel = std::expm1(fit.b);
  cp.floor_rel = floor;
  cp.score = std::fabs(fit.b) / (sigma / std::sqrt(fit.sxx));
  // Stage 2 as for steps, on run values: the runs before the drift (reaching back before the window)
  // against the latest ones.
  std::vector<double> left(before);
  left.insert(left.end(), y.begin(), y.begin() + static_cast<std::ptrdiff_t>(cp.index));
  if (left.size() > p.utest_points) left.erase(left.begin(), left.end() - static_cast<std::ptrdiff_t>(p.utest_points));
  std::vector<double> right;
  for (std::size_t i = n - std::min(cp.n_after, p.min_segment); i < n; ++i) right.push_back(y[i]);
  cp.p_value = stats::mann_whitney_u(left, right).p;
  cp.outcome = cp.p_value >= p.alpha ? ChangeKind::Ambiguous : cp.delta_rel > 0 ? ChangeKind::Regression : ChangeKind::Improvement;
  return cp;
}

// Runs in a slow (or fast) mode of their own: a run far from the median of the runs around it (a Hampel
// filter) is left out of detection: it says nothing about the level. The window reaches min_segment - 1
// runs either side, so min_segment runs on a new level are always its majority and a real level is never
// touched, while up to min_segment - 1 slow runs among 2 min_segment - 1 are: a few slow runs are not a
// level. Left in, two of them in six runs made a segment, and they inflated the noise estimate, hiding
// real steps. 8 scale units: a Gaussian run is never one.
constexpr double kHampelK = 8.0;
std::vector<char> outlier_runs(const std::vector<double>& y, std::size_t half_window, const double* gpu_noise) {
  const std::size_t n = y.size();
  std::vector<char> outlier(n, 0);
  std::vector<double> resid(n);
  SortedWindow around;  // y[i - half_window, i + half_window], clipped to the series
  for (std::size_t j = 0; j < std::min(n, half_window); ++j) around.insert(y[j]);
  for (std::size_t i = 0; i < n; ++i) {
    if (i + half_window < n) around.insert(y[i + half_window]);
    if (i > half_window) around.erase(y[i - half_window - 1]);
    resid[i] = y[i] - around.median();
  }
  // Scale: the median absolute first difference (each outlier moves two of them; the median survives
  // a quarter of the runs being outliers), not the MAD of the residuals: a run is the median of its own
  // window often enough that their MAD is far too small.
  const double scale = std::max(stats::kMinSigma, stats::diff_mad_sigma(y));
  for (std::size_t i = 0; i < n; ++i)
    outlier[i] = std::fabs(resid[i]) > kHampelK * scale * (gpu_noise ? std::max(1.0, gpu_noise[i]) : 1.0);
  return outlier;
}

// The runs after a tail split, [t, n), grown one run back at a time as ever older splits are tried, kept sorted for
// their median.
class TailRuns {
 public:
  explicit TailRuns(const std::vector<double>& y) : y_(y), t_(y.size()) {}
  void grow_to(std::size_t t) {
    for (; t_ > t; --t_) values_.insert(y_[t_ - 1]);
  }
  double median() const { return values_.median(); }

 private:
  const std::vector<double>& y_;
  std::size_t t_;
  SortedWindow values_;
};

// Sums of squares of the latest segment's runs about any level, in constant time: prefix sums of the runs' and their
// squares' deviations from the segment's mean (small numbers, so the squares lose no precision).
class SegmentSums {
 public:
  SegmentSums(const std::vector<double>& y, std::size_t lo) : lo_(lo), sum_(y.size() - lo + 1, 0.0), sq_(sum_) {
    for (std::size_t i = lo; i < y.size(); ++i) ref_ += y[i];
    ref_ /= static_cast<double>(y.size() - lo);
    for (std::size_t i = lo; i < y.size(); ++i) {
      const double d = y[i] - ref_;
      sum_[i - lo + 1] = sum_[i - lo] + d;
      sq_[i - lo + 1] = sq_[i - lo] + d * d;
    }
  }
  // The sum of (y[i] - c)^2 over [a, b).
  double squares_about(std::size_t a, std::size_t b, double c) const {
    const double s1 = sum_[b - lo_] - sum_[a - lo_], s2 = sq_[b - lo_] - sq_[a - lo_], e = c - ref_;
    return std::max(0.0, s2 - 2 * e * s1 + static_cast<double>(b - a) * e * e);
  }

 private:
  std::size_t lo_;
  double ref_ = 0;
  std::vector<double> sum_, sq_;
};

// The newest split is tested on its kept runs alone where at most this many of its min_segment runs were left out.
constexpr std::size_t kMostLeftOut = 2;

// The new runs of a tail test scatter as the old ones do unless a chi-square test of their spread rejects it here.
constexpr double kSameScatterZ = 2.326;  // one-sided 1%

// Stage 1b, the tail test. Segmentation searches every split of the window at every run, so its threshold
// pays for ~40 positions and every look; the one split that is new at each run is the one with exactly
// min_segment runs after it. Tested alone, at a threshold for one test per run (tail_threshold(), a t quantile
// for the noise estimate), a 3-sigma step is a change point as soon as min_segment runs sit on it far more
// often. The latest segment only: a step found earlier already splits the window. Stage 1c tests the split `age`
// runs back the same way (Params::tail_ages). Returns whether it added a split.
// `lo`: the latest segment's start; `before[t - lo]`: the level of [lo, t). `z`: the normal tail the test is held
// to, made a t quantile for its noise estimate's degrees of freedom; `n_all`: the runs the series' noise is from.
//
// The noise: where the latest segment's noise is steady and it holds Params::residual_runs or more, the RMS of its
// runs' residuals around the split's two levels. On normal noise that is the most efficient estimate there is, with
// n - lo - 2 degrees of freedom; the series' noise (the first differences' trimmed RMS, robust to steps anywhere)
// has about 0.8 (n_all - 1), and the wider spread of the score with it cost a 3% step after 50 runs one confirmation
// by its sixth run in ten, where a t-test at the true split misses one in 40. Heavy tails and slow runs that the
// outlier filter kept make it larger, never smaller. Elsewhere (a noisier stretch, the GPU's noise up, a short
// segment, new runs that scatter more than the old ones) the noise profile, as before.
// `steady_without(t, shift)`: whether [lo, n) is steady once the runs from t on are moved back by `shift`.
bool tail_split(const std::vector<double>& y, std::size_t lo, const std::vector<double>& before_level,
                const NoiseProfile& noise, TailRuns& runs, const SegmentSums& sums, double z, std::size_t n_all,
                const Params& p, std::vector<std::pair<std::size_t, double>>& cps, std::size_t age,
                const std::function<bool(std::size_t, double)>& steady_without) {
  const std::size_t n = y.size();
  if (n < lo + age + p.min_segment) return false;
  const std::size_t t = n - age;
  runs.grow_to(t);
  const double sigma_new = noise.mean_sd(t, n);
  // The new level's mean with every run clamped to 2.5 sigma of the runs' median: as efficient as the mean
  // on normal noise (a run is clamped once in 80), while one heavy-tailed run cannot make a level alone.
  const double m = runs.median();
  double clamped_sum = 0;
  for (std::size_t i = t; i < n; ++i) clamped_sum += std::clamp(y[i], m - 2.5 * sigma_new, m + 2.5 * sigma_new);
  const double before = before_level[t - lo], after = clamped_sum / static_cast<double>(age);
  const double nl = static_cast<double>(t - lo), nr = static_cast<double>(age);
  double se = std::sqrt(kTrimSe * kTrimSe * noise.var(lo, t) / (nl * nl) + noise.var(t, n) / (nr * nr));
  const double threshold = stats::tail_threshold(z, n_all);  // also the recursion's, either side of the split
  double passes_at = threshold;
  // (At least 12 runs: the t quantile's expansion holds from 10 degrees of freedom.)
  const bool newest = age <= p.min_segment;
  // A step in the newest runs raises the local noise of the runs around it, and at the series' end, where the local
  // windows are short, that alone can make the stretch look unsteady: so it is judged again without the tested step.
  // (detect() alone, a 3% step after 50 runs of 1% noise, 4,000 a noise model: found by its sixth run 93.2 -> 93.8%
  // gauss, 91.3 -> 92.1% heavy, 85.8 -> 86.2% twomode; no A/A alert more in 2,000 series of 60 runs.)
  if (p.residual_runs > 0 && n - lo >= std::max<std::size_t>(p.residual_runs, 12) &&
      (noise.steady(lo, n) || (newest && steady_without(t, after - before)))) {
    const double ss_old = sums.squares_about(lo, t, before), ss_new = sums.squares_about(t, n, after);
    // Only where the new runs scatter as the old ones do: a runner turned noisier shows in its first few runs'
    // own spread (a chi-square test of it against the old runs' variance, 1%), long before it makes the stretch
    // unsteady, and pooled with the quiet history its noise would be taken for far less than it is.
    if (ss_new / (ss_old / (nl - 1)) <= stats::chi2_quantile(kSameScatterZ, nr - 1)) {
      const double df = static_cast<double>(n - lo - 2);
      se = std::sqrt((ss_old + ss_new) / df) * std::sqrt(kTrimSe * kTrimSe / nl + 1 / nr);
      passes_at = stats::t_quantile(z, df);
    }
  }
  const double score = std::fabs(after - before) / se;
  if (score < passes_at) return false;
  if (newest) {
    // A step fewer than min_segment runs old shows here too, its first run clearly (by a sigma) nearer the old
    // level than the rest: not yet. (The first run of a real 3-sigma step is that near in 2% of cases.)
    const double rest = stats::median(slice(y, t + 1, n));
    if (std::fabs(y[t] - before) + sigma_new < std::fabs(y[t] - rest)) return false;
  }
  // An older split is placed either way around `t` (a younger step than `age` shows in its test too).
  const std::size_t found = cps.size();
  add_split(y, lo, n, t, score, noise, threshold, p, cps, newest, std::min(age, p.min_segment));
  return cps.size() != found;
}

// Each point's run-to-run noise: the series' own (`sigma`, from all its runs), or where the runs around the point
// are clearly noisier, theirs: the first differences within kLocalDiffs runs either side, when they are kNoisierBy
// times the typical such local noise of the window (the median over its points) or more. Measured against the
// typical local noise rather than `sigma`, which the noisy runs themselves inflate: a runner 4x noisier stands out
// from its first runs until it is most of the window (by then `sigma` is its noise). Runs that are not noisier
// keep the series' noise, so an unlucky quiet stretch never lowers it (too low a noise is what false alarms are).
constexpr std::size_t kLocalDiffs = 6;
constexpr double kNoisierBy = 1.75;
// Points whose local noise is this many times the typical one make a stretch unsteady (NoiseProfile::steady): a
// clear change of runner (4x the noise shows 3-4x). At kNoisierBy, a local estimate from 6-12 differences reaches
// it by chance somewhere in 23% (normal noise) to 45% (Student-t) of 56-run A/A windows, and in 2.5: 1-7%.
constexpr double kUnsteadyBy = 2.5;
// A run whose whole GPU is kGpuNoisierBy times noisier than usual (`gpu_noise`, see gpu_noise.h; empty: unknown) has at
// least that multiple of the series' typical noise (`typical_sd`), and makes its stretch unsteady: measured on a
// GPU's hundreds of series, a runner's noise is known from its first run, where the series' own few runs say little.
// 2: a driver update that moves a third of the series by 3 sigma raises the median to about 1.7.
constexpr double kGpuNoisierBy = 2.0;
NoiseProfile noise_profile(const std::vector<double>& y, double sigma, const double* gpu_noise, double typical_sd) {
  const std::size_t n = y.size();
  std::vector<double> local(n, 0.0);
  // Difference j is |y[j] - y[j - 1]|: point i's are those touching points i - kLocalDiffs + 1 .. i + kLocalDiffs,
  // j in [i + 1 - kLocalDiffs, i + kLocalDiffs] within [1, n - 1].
  const auto diff = [&](std::size_t j) { return std::fabs(y[j] - y[j - 1]); };
  SortedWindow diffs;
  for (std::size_t j = 1; j < std::min(n, kLocalDiffs); ++j) diffs.insert(diff(j));
  for (std::size_t i = 0; i < n; ++i) {
    if (i + kLocalDiffs < n) diffs.insert(diff(i + kLocalDiffs));
    if (i + 1 > kLocalDiffs + 1) diffs.erase(diff(i - kLocalDiffs));
    local[i] = diffs.sorted().size() >= 4 ? trimmed_rms_sigma(diffs.sorted()) : 0;
  }
  const double typical = stats::median(local);
  NoiseProfile np;
  np.var_sum.assign(n + 1, 0.0);
  np.unsteady_sum.assign(n + 1, 0);
  for (std::size_t i = 0; i < n; ++i) {
    double sd = local[i] >= kNoisierBy * typical ? std::max(local[i], sigma) : sigma;
    const bool gpu_noisier = gpu_noise && gpu_noise[i] >= kGpuNoisierBy;
    if (gpu_noisier) sd = std::max(sd, gpu_noise[i] * typical_sd);
    np.var_sum[i + 1] = np.var_sum[i] + sd * sd;
    np.unsteady_sum[i + 1] = np.unsteady_sum[i] + (local[i] >= kUnsteadyBy * typical || gpu_noisier);
  }
  return np;
}

}  // namespace

KeptRuns kept_runs(const std::vector<Point>& all, const Params& p, const std::vector<double>& gpu_noise) {
  std::vector<double> y_given(all.size());
  for (std::size_t i = 0; i < all.size(); ++i) y_given[i] = log_value(all[i].value);
  return kept_runs_of_logs(y_given, p, gpu_noise);
}

KeptRuns kept_runs_of_logs(const std::vector<double>& y_given, const Params& p, const std::vector<double>& gpu_noise) {
  const bool known = gpu_noise.size() == y_given.size();
  const std::vector<char> outlier =
      outlier_runs(y_given, p.min_segment > 0 ? p.min_segment - 1 : 0, known ? gpu_noise.data() : nullptr);
  KeptRuns k;
  k.given = y_given.size();
  k.y.reserve(y_given.size());
  k.at.reserve(y_given.size());
  if (known) k.gpu_noise.reserve(y_given.size());
  for (std::size_t i = 0; i < y_given.size(); ++i) {
    if (outlier[i]) continue;
    k.y.push_back(y_given[i]);
    k.at.push_back(i);
    if (known) k.gpu_noise.push_back(gpu_noise[i]);
  }
  return k;
}

double diff_noise(const std::vector<double>& values) {
  std::vector<double> diffs;
  for (std::size_t i = 1; i < values.size(); ++i) diffs.push_back(values[i] - values[i - 1]);
  return diff_sigma(std::move(diffs));
}

double run_noise(const std::vector<double>& values) { return std::max(stats::mad_sigma(values), diff_noise(values)); }

std::vector<ChangePoint> detect(const std::vector<Point>& all, const Params& p) {
  return detect(kept_runs(all, p), p);
}

std::vector<ChangePoint> detect(const KeptRuns& kept, const Params& p) {
  std::vector<ChangePoint> result;
  if (p.min_segment == 0) return result;
  // Every statistic below is over the runs kept (outlier runs left out); `at` maps them back.
  const std::vector<double>& y_all = kept.y;
  const std::vector<std::size_t>& at = kept.at;
  const std::size_t n_all = y_all.size();
  // Fewer points than min_history give noise estimates too loose to trust (a MAD over a dozen
  // points is off by a third easily), and short-window estimates were the source of false alarms.
  if (n_all < std::max(2 * p.min_segment, p.min_history)) return result;
  // Noise from every point given (up to noise_window), segmentation on the last `window`: a
  // noise estimate from more points is rarely far too low, and too low is what false alarms are.
  std::vector<double> diffs(n_all - 1);
  for (std::size_t i = 1; i < n_all; ++i) diffs[i - 1] = y_all[i] - y_all[i - 1];
  const double sigma = std::max(stats::kMinSigma, diff_sigma(diffs));
  const std::size_t off = n_all > p.window ? n_all - p.window : 0;
  const std::vector<double> y(y_all.begin() + static_cast<std::ptrdiff_t>(off), y_all.end());
  const std::size_t n = y.size();

  // The noise is estimated from the series itself and an estimate that is too low inflates
  // every score. Raise the threshold by the estimate's uncertainty: the relative s.e. of the
  // trimmed-RMS sigma is about 1/sqrt(1.6 (m-1)) for m points; allow p.noise_sd_margin of them.
  const double se_rel = 1.0 / std::sqrt(1.6 * static_cast<double>(n_all - 1));
  const double threshold = p.cp_threshold / std::max(0.5, 1.0 - p.noise_sd_margin * se_rel);
  // The GPU's noise counts only where it is clearly up (and the series' typical noise is needed only then).
  const double* gpu_noise = kept.gpu_noise.size() == n_all ? kept.gpu_noise.data() + off : nullptr;
  if (gpu_noise && std::none_of(gpu_noise, gpu_noise + n, [](double g) { return g >= kGpuNoisierBy; })) gpu_noise = nullptr;
  const double typical_sd = gpu_noise ? stats::diff_mad_sigma(y_all) : 0.0;
  const NoiseProfile noise_now = noise_profile(y, sigma, gpu_noise, typical_sd);
  std::vector<std::pair<std::size_t, double>> cps;
  const std::vector<double> window_levels = growing_levels(y, 0, n, false);
  segment(y, 0, n, noise_now, threshold, p, cps, &window_levels);
  std::size_t lo = 0;  // the latest segment's start
  for (const auto& c : cps) lo = std::max(lo, c.first);
  const std::vector<double> before_level = lo == 0 ? window_levels : growing_levels(y, lo, n, false);
  TailRuns tail_runs(y);
  const SegmentSums sums(y, lo);
  const std::function<bool(std::size_t, double)> steady_without = [&](std::size_t t, double shift) {
    std::vector<double> moved = y;
    for (std::size_t i = t; i < n; ++i) moved[i] -= shift;
    return noise_profile(moved, sigma, gpu_noise, typical_sd).steady(lo, n);
  };
  const auto tail = [&](double z, std::size_t age) {
    return tail_split(y, lo, before_level, noise_now, tail_runs, sums, z, n_all, p, cps, age, steady_without);
  };
  // Where the latest segment's noise is steady, the newest split's min_segment runs are runs rather than runs kept
  // (one or two of them left out as a slow mode's, the kept ones are its new level at once: below), and the older
  // splits are tried too. Not while a runner's noise changes: the outlier filter then leaves out the noisier
  // runs' wide ones, and the local noise estimates lag the change; the more splits are tried on such a stretch,
  // the likelier one is judged against too small a noise (a 4x noisier runner raised 1.6x the level alerts).
  const bool steady = noise_now.steady(lo, n);
  // The runs kept among the newest min_segment runs (given: the one left out may be the newest). With one or two of
  // them left out, the kept ones are the newest split's new level at once: a slow mode (5% of runs) puts one or two
  // among a 3% step's first six in 26% of steps, and waiting for six kept ones, or counting from the newest kept
  // run, found 78% and 13% of those by the sixth run (detect() alone, 4,000 series of 50 runs then +3%, twomode
  // noise), where a step without one was found in 94%.
  const std::size_t runs_given = std::max(kept.given, at[n_all - 1] + 1);
  std::size_t fewer = 0;
  while (fewer < n_all && at[n_all - 1 - fewer] + p.min_segment >= runs_given) ++fewer;
  const bool left_out = fewer > 0 && fewer < p.min_segment && fewer + kMostLeftOut >= p.min_segment && n > fewer + 1;
  if (!(steady && left_out && tail(p.tail_threshold, fewer)) && !tail(p.tail_threshold, p.min_segment) && steady) {
    for (const std::size_t age : p.tail_ages)
      if (tail(p.older_tail_threshold, age)) break;
  }
  if (cps.empty()) return result;
  std::sort(cps.begin(), cps.end());

  // Residual noise around segment levels: the series' own noise for the effect floor.
  std::vector<std::size_t> bounds{0};
  for (const auto& c : cps) bounds.push_back(c.first);
  bounds.push_back(n);
  std::vector<double> seg_level(bounds.size() - 1), resid;
  resid.reserve(n);
  for (std::size_t s = 0; s + 1 < bounds.size(); ++s) {
    seg_level[s] = level(y, bounds[s], bounds[s + 1]);
    for (std::size_t i = bounds[s]; i < bounds[s + 1]; ++i) resid.push_back(y[i] - seg_level[s]);
  }
  // Both estimates of the series' noise; the larger one sets the floor (conservative). A change between
  // stretches of different noise is held to the noisier one's.
  const double noise = std::max(stats::mad_sigma(resid), sigma);
  const auto floor_at = [&](double sd) { return std::max(p.min_rel_effect, p.noise_k * std::max(noise, sd)); };

  const std::vector<double> before_window(y_all.begin(), y_all.begin() + static_cast<std::ptrdiff_t>(off));
  const double window_sd = noise_now.mean_sd(0, n);
  if (auto drift = as_trend(before_window, y, cps, seg_level, bounds, window_sd, threshold, floor_at(window_sd), p)) {
    drift->noise_rel = std::max(noise, window_sd);
    drift->index = at[drift->index + off];
    result.push_back(*drift);
    return result;
  }

  for (std::size_t s = 1; s + 1 < bounds.size(); ++s) {
    ChangePoint cp;
    cp.index = bounds[s];
    cp.n_before = bounds[s] - bounds[s - 1];
    cp.n_after = bounds[s + 1] - bounds[s];
    cp.before = std::exp(seg_level[s - 1]);
    cp.after = std::exp(seg_level[s]);
    cp.delta_rel = std::expm1(seg_level[s] - seg_level[s - 1]);
    const double sd = std::max(noise_now.mean_sd(bounds[s - 1], bounds[s]), noise_now.mean_sd(bounds[s], bounds[s + 1]));
    cp.noise_rel = std::max(noise, sd);
    cp.floor_rel = floor_at(sd);
    cp.score = cps[s - 1].second;
    if (std::fabs(seg_level[s] - seg_level[s - 1]) < cp.floor_rel) continue;  // too small to matter
    // One value per run (log, outlier runs left out; ranks are those of the times): pooled repetitions
    // made two slow runs look like dozens of slow samples.
    std::vector<double> left, right;
    const std::size_t lstart = cp.index - std::min(cp.n_before, p.utest_points);
    const std::size_t rend = cp.index + std::min(cp.n_after, p.utest_points);
    for (std::size_t i = lstart; i < cp.index; ++i) left.push_back(y[i]);
    for (std::size_t i = cp.index; i < rend; ++i) right.push_back(y[i]);
    cp.p_value = stats::mann_whitney_u(left, right).p;
    if (cp.p_value < p.alpha)
      cp.outcome = cp.delta_rel > 0 ? ChangeKind::Regression : ChangeKind::Improvement;
    else
      cp.outcome = ChangeKind::Ambiguous;
    cp.index = at[cp.index + off];  // relative to the points given
    result.push_back(cp);
  }
  return result;
}

namespace {

// Whether the median of the newest k of `recent` says the step is gone, at gone_z (see still_present).
bool gone_in_newest(const Step& step, const std::vector<double>& recent, std::size_t k, double gone_z) {
  const double now = stats::median({recent.end() - static_cast<std::ptrdiff_t>(k), recent.end()});
  if (now <= 0) return false;
  const double direction = step.after > step.before ? 1 : -1;
  const double half_step = 0.5 * std::fabs(step.after / step.before - 1);
  const double kn = static_cast<double>(k);
  // The median's own standard error (relative; 0: the noise unknown).
  const double se_now = std::max(step.noise_rel, 0.0) * std::sqrt(stats::median_variance_factor(k) / kn);
  // Back on the old level: beyond it in the step's direction by less than the step's floor, or than two of the
  // median's standard errors where those are wider, and never half the step. A median of few runs on the old level
  // sits two of its standard errors above it in 2.3% of cases; a lone run, a floor of one sigma above it in 16%.
  const double floor = std::min(half_step, std::max(step.floor_rel > 0 ? step.floor_rel : half_step, 2 * se_now));
  if (direction * (now / step.before - 1) >= floor) return false;
  if (step.noise_rel <= 0) return true;
  const double se = step.noise_rel * std::sqrt(stats::median_variance_factor(k) / kn +
                                               1.0 / static_cast<double>(std::max<std::size_t>(step.n_after, 1)));
  return direction * std::log(step.after / now) >= gone_z * se;
}

bool no_evidence(const Step& step, const std::vector<double>& recent) {
  return recent.empty() || step.before <= 0 || step.after <= 0 || step.after == step.before;
}

}  // namespace

Step remeasured(const Step& step, const std::vector<double>& level_runs, const Params& p) {
  if (level_runs.size() <= step.n_after || level_runs.size() < p.min_segment) return step;
  std::vector<double> logs;
  for (const double v : level_runs) logs.push_back(log_value(v));
  Step s = step;
  s.after = std::exp(level(logs, 0, logs.size()));
  s.n_after = logs.size();
  return s;
}

bool still_present(const Step& step, const std::vector<double>& recent, double gone_z, const Params& p) {
  if (no_evidence(step, recent)) return true;  // keep it
  return !gone_in_newest(step, recent, std::min(recent.size(), std::max<std::size_t>(1, p.present_points)), gone_z);
}

bool present_in_newest(const Step& step, const std::vector<double>& recent, const Params& p,
                       const std::vector<double>& since) {
  if (no_evidence(step, recent)) return true;
  const std::size_t most = std::min(recent.size(), std::max<std::size_t>(1, p.present_points));
  const auto measured = [&](std::size_t k) {
    return since.size() > k ? remeasured(step, {since.begin(), since.end() - static_cast<std::ptrdiff_t>(k)}, p) : step;
  };
  if (gone_in_newest(measured(most), recent, most, p.present_z)) return false;
  for (std::size_t k = 1; k < most; ++k)
    if (gone_in_newest(measured(k), recent, k, p.present_newest_z)) return false;
  return true;
}

Presence presence(const Step& step, const std::vector<double>& since, const Params& p) {
  Presence out{PresenceState::Carried, step};
  if (no_evidence(step, since)) return out;
  if (p.present_points > 0 && since.size() >= p.present_points) {
    const auto newest = since.end() - static_cast<std::ptrdiff_t>(p.present_points);
    out.level = remeasured(step, {since.begin(), newest}, p);
    if (!still_present(out.level, {newest, since.end()}, p.fixed_z, p)) {
      out.state = PresenceState::Fixed;
      return out;
    }
  }
  if (!present_in_newest(step, since, p, since)) out.state = PresenceState::Back;
  return out;
}

}  // namespace shaderwatch::detect
