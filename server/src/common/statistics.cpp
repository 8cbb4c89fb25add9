#include "common/statistics.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <mutex>
#include <numeric>

namespace shaderwatch::stats {

double upper_median_in_place(std::vector<double>& v) {
  if (v.empty()) return 0;
  const auto mid = v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2);
  std::nth_element(v.begin(), mid, v.end());
  return *mid;
}

double repetition_spread(std::vector<double> reps, double value) {
  if (reps.size() < 4 || value <= 0) return 0;
  std::sort(reps.begin(), reps.end());
  const auto at = [&](double q) {
    const double x = q * static_cast<double>(reps.size() - 1);
    const auto i = static_cast<std::size_t>(x);
    return i + 1 < reps.size() ? reps[i] + (x - static_cast<double>(i)) * (reps[i + 1] - reps[i]) : reps[i];
  };
  return (at(0.75) - at(0.25)) / kIqrSigmas / value;
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

double median_variance_factor(std::size_t k) {
  // 4 million draws of k standard normal values each (s.e. under 0.1%).
  constexpr std::array<double, 8> kFactor{1.0, 1.0, 1.346, 1.193, 1.435, 1.290, 1.474, 1.345};
  return k >= 1 && k <= kFactor.size() ? kFactor[k - 1] : kMedianSe * kMedianSe;
}

double diff_mad_sigma(const std::vector<double>& y) {
  std::vector<double> diffs;
  for (std::size_t i = 1; i < y.size(); ++i) diffs.push_back(std::fabs(y[i] - y[i - 1]));
  return 1.4826 * median(std::move(diffs)) / std::sqrt(2.0);
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

// A Student-t quantile, as the tail test's score divides by a noise estimated from the series' own runs. Its
// degrees of freedom, 0.8 (n - 1), are those of a
// sigma whose relative s.e. is 1/sqrt(1.6 (n - 1)), the trimmed-RMS estimate's (diff_sigma). The Cornish-Fisher
// expansion of the t quantile to third order in 1/df (Abramowitz & Stegun 26.7.5); at df >= 10 it is within 1%.
// It holds the false-alarm rate per test near that of z at every history length, where the fixed margin was
// stricter than needed at 36 runs and above (5.51 against 5.63 at 36 runs, 4.83 against 5.1 at 96).
double tail_threshold(double z, std::size_t n_points) {
  return t_quantile(z, std::max(10.0, 0.8 * static_cast<double>(n_points > 0 ? n_points - 1 : 0)));
}

double chi2_quantile(double z, double df) {
  const double a = 2 / (9 * df);
  const double c = 1 - a + z * std::sqrt(a);
  return df * c * c * c;
}

double t_quantile(double z, double df) {
  const double z2 = z * z;
  const double g1 = (z2 + 1) * z / 4;
  const double g2 = ((5 * z2 + 16) * z2 + 3) * z / 96;
  const double g3 = (((3 * z2 + 19) * z2 + 17) * z2 - 15) * z / 384;
  return z + g1 / df + g2 / (df * df) + g3 / (df * df * df);
}

}  // namespace shaderwatch::stats
