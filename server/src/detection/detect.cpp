#include "detection/detect.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <numeric>

namespace shaderwatch::detect {

const char* to_string(ChangeKind o) {
  switch (o) {
    case ChangeKind::Regression: return "regression";
    case ChangeKind::Improvement: return "improvement";
    case ChangeKind::Ambiguous: return "ambiguous";
    case ChangeKind::None: break;
  }
  return "none";
}

const char* to_string(AlertKind k) {
  switch (k) {
    case AlertKind::CorrectnessRegression: return "correctness_regression";
    case AlertKind::CorrectnessFailure: return "correctness_failure";
    case AlertKind::Regression: return "regression";
    case AlertKind::Ambiguous: return "ambiguous";
    case AlertKind::Improvement: return "improvement";
  }
  return "ambiguous";
}

std::optional<AlertKind> parse_alert_kind(std::string_view text) {
  for (AlertKind k : kAlertKinds)
    if (text == to_string(k)) return k;
  return std::nullopt;
}

int severity(AlertKind k) {
  switch (k) {
    case AlertKind::CorrectnessRegression: return 4;
    case AlertKind::CorrectnessFailure: return 3;
    case AlertKind::Regression: return 2;
    case AlertKind::Ambiguous: return 1;
    case AlertKind::Improvement: return 0;
  }
  return 0;
}

std::optional<AlertKind> alert_kind(ChangeKind o) {
  switch (o) {
    case ChangeKind::Regression: return AlertKind::Regression;
    case ChangeKind::Improvement: return AlertKind::Improvement;
    case ChangeKind::Ambiguous: return AlertKind::Ambiguous;
    case ChangeKind::None: break;
  }
  return std::nullopt;
}

const char* to_string(Cause c) {
  switch (c) {
    case Cause::Driver: return "driver";
    case Cause::Commit: return "commit";
    case Cause::Both: return "both";
    case Cause::Machine: return "machine";
    case Cause::Neither: break;
  }
  return "neither";
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  const std::size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid), v.end());
  const double hi = v[mid];
  if (v.size() % 2 == 1) return hi;
  const double lo = *std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid));
  return (lo + hi) / 2;
}

double mad_sigma(const std::vector<double>& v) {
  if (v.empty()) return 0;
  const double m = median(v);
  std::vector<double> dev(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) dev[i] = std::fabs(v[i] - m);
  return 1.4826 * median(std::move(dev));
}

namespace {

// Number of arrangements giving each U value, for samples of size m and n without ties:
// f(i, j, u) = f(i-1, j, u-j) + f(i, j-1, u). Doubles, as the counts overflow 64 bits fast.
std::vector<double> u_distribution(std::size_t m, std::size_t n) {
  const std::size_t umax = m * n;
  // prev[j][u] holds f(i-1, j, u); cur[j][u] holds f(i, j, u).
  std::vector<std::vector<double>> prev(n + 1, std::vector<double>(umax + 1, 0.0)), cur = prev;
  for (std::size_t j = 0; j <= n; ++j) prev[j][0] = 1;  // i = 0
  for (std::size_t i = 1; i <= m; ++i) {
    for (auto& row : cur) std::fill(row.begin(), row.end(), 0.0);
    cur[0][0] = 1;
    for (std::size_t j = 1; j <= n; ++j) {
      for (std::size_t u = 0; u <= umax; ++u) {
        double v = cur[j - 1][u];
        if (u >= j) v += prev[j][u - j];
        cur[j][u] = v;
      }
    }
    std::swap(prev, cur);
  }
  return prev[n];
}

// The exact distribution depends only on (m, n) and costs O(m n^2 mn) to build: built once per pair
// and kept (it was 43% of ingest time when every ingest rebuilt it for every change point).
const std::vector<double>& cached_u_distribution(std::size_t m, std::size_t n) {
  static std::mutex mutex;
  static std::map<std::pair<std::size_t, std::size_t>, std::vector<double>> cache;
  const std::lock_guard lock(mutex);
  auto it = cache.find({m, n});
  if (it == cache.end()) it = cache.emplace(std::make_pair(m, n), u_distribution(m, n)).first;
  return it->second;  // map nodes never move: the reference outlives the lock
}

}  // namespace

UTest mann_whitney_u(const std::vector<double>& a, const std::vector<double>& b) {
  UTest r;
  const std::size_t n1 = a.size(), n2 = b.size();
  if (n1 == 0 || n2 == 0) return r;
  const std::size_t n = n1 + n2;
  std::vector<std::pair<double, int>> all;
  all.reserve(n);
  for (double x : a) all.emplace_back(x, 0);
  for (double x : b) all.emplace_back(x, 1);
  std::sort(all.begin(), all.end(),
            [](const auto& l, const auto& rr) { return l.first < rr.first; });
  double r1 = 0, tie_term = 0;
  bool ties = false;
  for (std::size_t i = 0; i < n;) {
    std::size_t j = i;
    while (j < n && all[j].first == all[i].first) ++j;
    const double avg_rank = (static_cast<double>(i + 1) + static_cast<double>(j)) / 2;
    const double t = static_cast<double>(j - i);
    if (t > 1) {
      ties = true;
      tie_term += t * t * t - t;
    }
    for (std::size_t k = i; k < j; ++k)
      if (all[k].second == 0) r1 += avg_rank;
    i = j;
  }
  const double dn1 = static_cast<double>(n1), dn2 = static_cast<double>(n2);
  r.u = r1 - dn1 * (dn1 + 1) / 2;
  const double mu = dn1 * dn2 / 2;
  if (!ties && n1 * n2 <= 2500) {
    const auto& dist = cached_u_distribution(n1, n2);
    const double total = std::accumulate(dist.begin(), dist.end(), 0.0);
    const auto ui = static_cast<std::size_t>(std::llround(r.u));
    double le = 0, ge = 0;
    for (std::size_t u = 0; u < dist.size(); ++u) {
      if (u <= ui) le += dist[u];
      if (u >= ui) ge += dist[u];
    }
    r.p = std::min(1.0, 2 * std::min(le, ge) / total);
    r.exact = true;
    return r;
  }
  const double dn = static_cast<double>(n);
  const double var = dn1 * dn2 / 12 * ((dn + 1) - tie_term / (dn * (dn - 1)));
  if (var <= 0) return r;  // every value equal: no evidence of a difference
  const double z = std::max(0.0, std::fabs(r.u - mu) - 0.5) / std::sqrt(var);
  r.p = std::min(1.0, std::erfc(z / std::sqrt(2.0)));
  return r;
}

namespace {

constexpr double kMedianSe = 1.2533141373155001;  // sqrt(pi/2): s.e. of a median vs a mean
constexpr double kMinSigma = 1e-5;                // keeps constant synthetic series finite

std::vector<double> slice(const std::vector<double>& y, std::size_t lo, std::size_t hi) {
  return {y.begin() + static_cast<std::ptrdiff_t>(lo), y.begin() + static_cast<std::ptrdiff_t>(hi)};
}

// Level of a stretch of points: the 20% trimmed mean. A lone outlier among 5 or more points is
// trimmed away, as with the median, but it is 94% as efficient as the mean on normal noise
// where the median is 64%: steps of 3 sigma are found runs earlier.
double level(const std::vector<double>& y, std::size_t lo, std::size_t hi) {
  auto v = slice(y, lo, hi);
  std::sort(v.begin(), v.end());
  const std::size_t k = v.size() >= 5 ? std::max<std::size_t>(1, v.size() / 5) : 0;
  double sum = 0;
  for (std::size_t i = k; i + k < v.size(); ++i) sum += v[i];
  return sum / static_cast<double>(v.size() - 2 * k);
}
constexpr double kTrimSe = 1.03;  // s.e. of a 20% trimmed mean relative to a mean (normal)

double l1_cost(const std::vector<double>& y, std::size_t lo, std::size_t hi) {
  const auto v = slice(y, lo, hi);
  const double m = median(v);
  double c = 0;
  for (double x : v) c += std::fabs(x - m);
  return c;
}

// Trimmed mean of a sorted buffer (see level()).
double trimmed_sorted(const std::vector<double>& v) {
  const std::size_t k = v.size() >= 5 ? std::max<std::size_t>(1, v.size() / 5) : 0;
  double sum = 0;
  for (std::size_t i = k; i + k < v.size(); ++i) sum += v[i];
  return sum / static_cast<double>(v.size() - 2 * k);
}

void add_split(const std::vector<double>& y, std::size_t lo, std::size_t hi, std::size_t cand, double score,
               double sigma, double threshold, const Params& p, std::vector<std::pair<std::size_t, double>>& out,
               bool latest_only = false);

// Stage 1, binary segmentation. The candidate split is where the shift between the segments'
// trimmed means scores highest (robust to outliers); it is then placed exactly where the L1
// cost around the segment medians is least, searched within min_segment of the candidate (the
// score is flat near a step). A split leaving fewer than min_segment points on a side is not
// yet a change point: a lone outlier never is, and a new level must hold min_segment runs
// first. Known limit: two steps closer than 2*min_segment may be merged into one.
void segment(const std::vector<double>& y, std::size_t lo, std::size_t hi, double sigma,
             double threshold, const Params& p, std::vector<std::pair<std::size_t, double>>& out) {
  if (hi - lo < 2 * p.min_segment) return;
  // Levels of every prefix [lo, t) and suffix [t, hi), kept sorted incrementally: O(n^2) with
  // no allocation per split (this runs for every series of every ingested run).
  std::vector<double> pre(hi - lo + 1, 0.0), suf(hi - lo + 1, 0.0), buf;
  buf.reserve(hi - lo);
  for (std::size_t t = lo + 1; t <= hi; ++t) {
    buf.insert(std::upper_bound(buf.begin(), buf.end(), y[t - 1]), y[t - 1]);
    pre[t - lo] = trimmed_sorted(buf);
  }
  buf.clear();
  for (std::size_t t = hi; t-- > lo;) {
    buf.insert(std::upper_bound(buf.begin(), buf.end(), y[t]), y[t]);
    suf[t - lo] = trimmed_sorted(buf);
  }
  std::size_t cand = 0;
  double best_score = -1;
  for (std::size_t t = lo + p.min_segment; t + p.min_segment <= hi; ++t) {
    const double se = sigma * kTrimSe *
                      std::sqrt(1.0 / static_cast<double>(t - lo) + 1.0 / static_cast<double>(hi - t));
    const double s = std::fabs(suf[t - lo] - pre[t - lo]) / se;
    if (s > best_score) {
      best_score = s;
      cand = t;
    }
  }
  if (best_score < threshold) return;
  add_split(y, lo, hi, cand, best_score, sigma, threshold, p, out);
}

// Places a split found at `cand` (see segment()) and recurses on both sides. With latest_only (the tail test,
// whose first run after the split is on the new level), it is placed no later than `cand`.
void add_split(const std::vector<double>& y, std::size_t lo, std::size_t hi, std::size_t cand, double score,
               double sigma, double threshold, const Params& p, std::vector<std::pair<std::size_t, double>>& out,
               bool latest_only) {
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
  if (best_t < lo + p.min_segment || best_t + p.min_segment > hi) return;
  out.emplace_back(best_t, score);
  segment(y, lo, best_t, sigma, threshold, p, out);
  segment(y, best_t, hi, sigma, threshold, p, out);
}

// Noise from first differences: a step moves one difference only, an outlier two. The RMS of
// the smallest 90% of |differences| is robust to those few and, unlike the MAD (37% efficient),
// is nearly as efficient as the SD: an underestimated noise is what causes false alarms.
// 0.7894 = sqrt(E[Z^2 | |Z| < z_0.95]) for a standard normal; sqrt(2): a difference has two draws.
double diff_sigma(std::vector<double> diffs) {
  if (diffs.empty()) return 0;
  for (double& d : diffs) d = std::fabs(d);
  std::sort(diffs.begin(), diffs.end());
  const std::size_t keep = std::max<std::size_t>(1, diffs.size() * 9 / 10);
  double ss = 0;
  for (std::size_t i = 0; i < keep; ++i) ss += diffs[i] * diffs[i];
  return std::sqrt(ss / static_cast<double>(keep)) / 0.7894 / std::sqrt(2.0);
}

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
// min_segment runs back fitting the window at least as well as the steps do, its slope far beyond its
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
  if (fit.sse > sse_steps || n - 1 - fit.t0 < 2 * p.min_segment) return std::nullopt;
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
  cp.p_value = mann_whitney_u(left, right).p;
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
std::vector<char> outlier_runs(const std::vector<double>& y, std::size_t half_window) {
  const std::size_t n = y.size();
  std::vector<char> outlier(n, 0);
  std::vector<double> resid(n);
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t lo = i > half_window ? i - half_window : 0;
    const std::size_t hi = std::min(n, i + half_window + 1);
    resid[i] = y[i] - median(slice(y, lo, hi));
  }
  // Scale: the median absolute first difference (each outlier moves two of them; the median survives
  // a quarter of the runs being outliers), not the MAD of the residuals: a run is the median of its own
  // window often enough that their MAD is far too small.
  std::vector<double> diffs;
  for (std::size_t i = 1; i < n; ++i) diffs.push_back(std::fabs(y[i] - y[i - 1]));
  const double scale = std::max(kMinSigma, 1.4826 * median(std::move(diffs)) / std::sqrt(2.0));
  for (std::size_t i = 0; i < n; ++i) outlier[i] = std::fabs(resid[i]) > kHampelK * scale;
  return outlier;
}

// Stage 1b, the tail test. Segmentation searches every split of the window at every run, so its threshold
// pays for ~40 positions and every look; the one split that is new at each run is the one with exactly
// min_segment runs after it. Tested alone, at a threshold for one test per run (tail_threshold(), a t quantile
// for the noise estimate), a 3-sigma step is a change point as soon as min_segment runs sit on it far more
// often. The latest segment only: a step found earlier already splits the window.
void tail_split(const std::vector<double>& y, double sigma, double threshold, const Params& p,
                std::vector<std::pair<std::size_t, double>>& cps) {
  std::size_t lo = 0;
  for (const auto& c : cps) lo = std::max(lo, c.first);
  const std::size_t n = y.size();
  if (n - lo < 2 * p.min_segment) return;
  const std::size_t t = n - p.min_segment;
  // The new level's mean with every run clamped to 2.5 sigma of the runs' median: as efficient as the mean
  // on normal noise (a run is clamped once in 80), while one heavy-tailed run cannot make a level alone.
  auto clamped_mean = [&](std::size_t a, std::size_t b) {
    const double m = median(slice(y, a, b));
    double s = 0;
    for (std::size_t i = a; i < b; ++i) s += std::clamp(y[i], m - 2.5 * sigma, m + 2.5 * sigma);
    return s / static_cast<double>(b - a);
  };
  const double before = level(y, lo, t);
  const double se = sigma * std::sqrt(kTrimSe * kTrimSe / static_cast<double>(t - lo) + 1.0 / static_cast<double>(p.min_segment));
  const double score = std::fabs(clamped_mean(t, n) - before) / se;
  if (score < threshold) return;
  // A step fewer than min_segment runs old shows here too, its first run clearly (by a sigma) nearer the old
  // level than the rest: not yet. (The first run of a real 3-sigma step is that near in 2% of cases.)
  const double rest = median(slice(y, t + 1, n));
  if (std::fabs(y[t] - before) + sigma < std::fabs(y[t] - rest)) return;
  add_split(y, lo, n, t, score, sigma, threshold, p, cps, true);
}

}  // namespace

// A Student-t quantile, as the tail test's score divides by a noise estimated from the series' own runs. Its
// degrees of freedom, 0.8 (n - 1), are those of a
// sigma whose relative s.e. is 1/sqrt(1.6 (n - 1)), the trimmed-RMS estimate's (diff_sigma). The Cornish-Fisher
// expansion of the t quantile to third order in 1/df (Abramowitz & Stegun 26.7.5); at df >= 10 it is within 1%.
// It holds the false-alarm rate per test near that of z at every history length, where the fixed margin was
// stricter than needed at 36 runs and above (5.51 against 5.63 at 36 runs, 4.83 against 5.1 at 96).
double tail_threshold(double z, std::size_t n_points) {
  const double df = std::max(10.0, 0.8 * static_cast<double>(n_points > 0 ? n_points - 1 : 0));
  const double z2 = z * z;
  const double g1 = (z2 + 1) * z / 4;
  const double g2 = ((5 * z2 + 16) * z2 + 3) * z / 96;
  const double g3 = (((3 * z2 + 19) * z2 + 17) * z2 - 15) * z / 384;
  return z + g1 / df + g2 / (df * df) + g3 / (df * df * df);
}

double run_noise(const std::vector<double>& values) {
  std::vector<double> diffs;
  for (std::size_t i = 1; i < values.size(); ++i) diffs.push_back(values[i] - values[i - 1]);
  return std::max(mad_sigma(values), diff_sigma(std::move(diffs)));
}

std::vector<ChangePoint> detect(const std::vector<Point>& all, const Params& p) {
  std::vector<ChangePoint> result;
  if (p.min_segment == 0) return result;
  // Log space: steps and noise become relative, so one threshold fits 1 us and 1 s kernels.
  std::vector<double> y_given(all.size());
  for (std::size_t i = 0; i < all.size(); ++i) y_given[i] = std::log(std::max(all[i].value, 1e-6));
  // Every statistic below is over the runs kept (outlier runs left out); `at` maps them back.
  const std::vector<char> outlier = outlier_runs(y_given, p.min_segment - 1);
  std::vector<double> y_all;
  std::vector<std::size_t> at;
  for (std::size_t i = 0; i < y_given.size(); ++i)
    if (!outlier[i]) y_all.push_back(y_given[i]), at.push_back(i);
  const std::size_t n_all = y_all.size();
  // Fewer points than min_history give noise estimates too loose to trust (a MAD over a dozen
  // points is off by a third easily), and short-window estimates were the source of false alarms.
  if (n_all < std::max(2 * p.min_segment, p.min_history)) return result;
  // Noise from every point given (up to noise_window), segmentation on the last `window`: a
  // noise estimate from more points is rarely far too low, and too low is what false alarms are.
  std::vector<double> diffs(n_all - 1);
  for (std::size_t i = 1; i < n_all; ++i) diffs[i - 1] = y_all[i] - y_all[i - 1];
  const double sigma = std::max(kMinSigma, diff_sigma(diffs));
  const std::size_t off = n_all > p.window ? n_all - p.window : 0;
  const std::vector<double> y(y_all.begin() + static_cast<std::ptrdiff_t>(off), y_all.end());
  const std::size_t n = y.size();

  // The noise is estimated from the series itself and an estimate that is too low inflates
  // every score. Raise the threshold by the estimate's uncertainty: the relative s.e. of the
  // trimmed-RMS sigma is about 1/sqrt(1.6 (m-1)) for m points; allow p.noise_sd_margin of them.
  const double se_rel = 1.0 / std::sqrt(1.6 * static_cast<double>(n_all - 1));
  const double threshold = p.cp_threshold / std::max(0.5, 1.0 - p.noise_sd_margin * se_rel);
  std::vector<std::pair<std::size_t, double>> cps;
  segment(y, 0, n, sigma, threshold, p, cps);
  tail_split(y, sigma, tail_threshold(p.tail_threshold, n_all), p, cps);
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
  // Both estimates of the series' noise; the larger one sets the floor (conservative).
  const double noise = std::max(mad_sigma(resid), sigma);
  const double floor = std::max(p.min_rel_effect, p.noise_k * noise);

  const std::vector<double> before_window(y_all.begin(), y_all.begin() + static_cast<std::ptrdiff_t>(off));
  if (auto drift = as_trend(before_window, y, cps, seg_level, bounds, sigma, threshold, floor, p)) {
    drift->noise_rel = noise;
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
    cp.noise_rel = noise;
    cp.floor_rel = floor;
    cp.score = cps[s - 1].second;
    if (std::fabs(seg_level[s] - seg_level[s - 1]) < floor) continue;  // too small to matter
    // One value per run (log, outlier runs left out; ranks are those of the times): pooled repetitions
    // made two slow runs look like dozens of slow samples.
    std::vector<double> left, right;
    const std::size_t lstart = cp.index - std::min(cp.n_before, p.utest_points);
    const std::size_t rend = cp.index + std::min(cp.n_after, p.utest_points);
    for (std::size_t i = lstart; i < cp.index; ++i) left.push_back(y[i]);
    for (std::size_t i = cp.index; i < rend; ++i) right.push_back(y[i]);
    cp.p_value = mann_whitney_u(left, right).p;
    if (cp.p_value < p.alpha)
      cp.outcome = cp.delta_rel > 0 ? ChangeKind::Regression : ChangeKind::Improvement;
    else
      cp.outcome = ChangeKind::Ambiguous;
    cp.index = at[cp.index + off];  // relative to the points given
    result.push_back(cp);
  }
  return result;
}

bool still_present(double before, double after, double floor_rel, const std::vector<double>& recent,
                   const Params& p) {
  if (recent.empty() || before <= 0 || after <= 0 || after == before) return true;  // no evidence: keep it
  const std::size_t n = std::min(recent.size(), std::max<std::size_t>(1, p.present_points));
  const double now = median({recent.end() - static_cast<std::ptrdiff_t>(n), recent.end()});
  const double direction = after > before ? 1 : -1;
  const double half_step = 0.5 * std::fabs(after / before - 1);
  return direction * (now / before - 1) >= (floor_rel > 0 ? std::min(floor_rel, half_step) : half_step);
}

SiblingStep sibling_step(const std::vector<double>& before, const std::vector<double>& after,
                         double own_delta_rel, const Params& p) {
  SiblingStep s;
  constexpr std::size_t kMinSide = 3;
  if (before.size() < kMinSide || after.size() < kMinSide) return s;
  s.present = true;
  std::vector<double> lb, la;
  for (double v : before) lb.push_back(std::log(std::max(v, 1e-6)));
  for (double v : after) la.push_back(std::log(std::max(v, 1e-6)));
  const double mb = median(lb), ma = median(la);
  std::vector<double> resid;
  for (double v : lb) resid.push_back(v - mb);
  for (double v : la) resid.push_back(v - ma);
  const double sigma = std::max(kMinSigma, mad_sigma(resid));
  const double d = ma - mb;
  s.delta_rel = std::expm1(d);
  s.score = std::fabs(d) / (sigma * kMedianSe *
                            std::sqrt(1.0 / static_cast<double>(lb.size()) +
                                      1.0 / static_cast<double>(la.size())));
  // Same direction, at least half the size (and above the global floor), clearly not noise.
  s.stepped = (d > 0) == (own_delta_rel > 0) &&
              std::fabs(s.delta_rel) >= std::max(p.min_rel_effect, 0.5 * std::fabs(own_delta_rel)) &&
              s.score >= 3.0;
  return s;
}

Attribution attribute(const AttributionInput& in) {
  Attribution a;
  for (const auto& s : in.gpu_siblings) {
    if (!s.step.present) continue;
    ++a.gpu_siblings_checked;
    if (s.step.stepped) ++a.gpu_siblings_stepped;
  }
  for (const auto& s : in.kernel_siblings) {
    if (!s.step.present) continue;
    ++a.kernel_siblings_checked;
    if (s.step.stepped) ++a.kernel_siblings_stepped;
  }
  if (in.driver_changed)
    a.evidence.push_back("driver changed: " + in.driver_before + " -> " + in.driver_after);
  else
    a.evidence.push_back("driver unchanged: " + in.driver_after);
  if (in.commit_changed)
    a.evidence.push_back("commit changed: " + in.commit_before + " -> " + in.commit_after);
  else
    a.evidence.push_back("commit unchanged: " + in.commit_after);
  if (in.runner_changed)
    a.evidence.push_back("runner changed: " + in.runner_before + " -> " + in.runner_after);
  a.evidence.push_back("same benchmark on other GPUs at commit " + in.commit_after + ": " +
                       std::to_string(a.gpu_siblings_stepped) + " of " +
                       std::to_string(a.gpu_siblings_checked) + " stepped the same way");
  a.evidence.push_back("other benchmarks on this GPU at this run: " +
                       std::to_string(a.kernel_siblings_stepped) + " of " +
                       std::to_string(a.kernel_siblings_checked) + " stepped the same way");

  // Every piece of evidence, every time. The same SPIR-V runs on every GPU, so a code change shows on
  // the other GPUs at the same commit (code_sign) and, where they were checked and none stepped, the
  // code is cleared (code_cleared). The driver and the machine are shared by every kernel on this GPU:
  // most of them stepping together (gpu_wide) points at one of those.
  const bool code_sign = a.gpu_siblings_checked > 0 && 2 * a.gpu_siblings_stepped >= a.gpu_siblings_checked &&
                         a.gpu_siblings_stepped > 0;
  const bool code_cleared = a.gpu_siblings_checked > 0 && a.gpu_siblings_stepped == 0;
  const bool gpu_wide = a.kernel_siblings_checked > 0 && 2 * a.kernel_siblings_stepped >= a.kernel_siblings_checked &&
                        a.kernel_siblings_stepped > 0;

  if (in.runner_changed && !code_sign && (gpu_wide || (!in.driver_changed && !in.commit_changed))) {
    a.cause = Cause::Machine;
    a.summary = gpu_wide ? "the runner changed and most kernels on this GPU stepped together, other GPUs did not: "
                           "the machine"
                         : "neither commit nor driver changed; the runner did: the machine";
    if (in.driver_changed) a.summary += " (the driver changed too)";
  } else if (!in.driver_changed && !in.commit_changed) {
    a.cause = Cause::Neither;
    a.summary = "neither commit, driver nor runner changed: noise or an unrecorded change of the machine";
  } else if (in.driver_changed && !in.commit_changed) {
    a.cause = Cause::Driver;
    a.summary = "only the driver changed at the boundary";
  } else if (!in.driver_changed && in.commit_changed) {
    a.cause = Cause::Commit;
    a.summary = code_sign      ? "the commit changed and the same step shows on other GPUs: the code"
                : gpu_wide     ? "only the commit changed; most kernels on this GPU stepped, other GPUs did not"
                : code_cleared ? "only the commit changed; other GPUs at that commit did not step"
                               : "only the commit changed at the boundary";
  } else if (code_sign && !gpu_wide) {
    a.cause = Cause::Commit;
    a.summary = "commit and driver changed; the step shows on other GPUs at the same commit: the code";
  } else if (!code_sign && (gpu_wide || code_cleared)) {
    a.cause = Cause::Driver;
    a.summary = gpu_wide ? "commit and driver changed; most kernels on this GPU stepped at the driver update and "
                           "other GPUs did not: the driver"
                         : "commit and driver changed; the same code runs unchanged on other GPUs at that commit: "
                           "the driver";
  } else {
    a.cause = Cause::Both;
    a.summary = code_sign ? "commit and driver changed; siblings point at both"
                          : "commit and driver changed; no sibling evidence to tell them apart";
  }
  return a;
}

}  // namespace shaderwatch::detect
