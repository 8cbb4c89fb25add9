// Basic robust statistics every stage that reduces samples shares (ingest's run values, the detector, the
// judgements, the rankings): pure functions.
#pragma once

#include <cstddef>
#include <vector>

namespace shaderwatch::stats {

inline constexpr double kMedianSe = 1.2533141373155001;  // sqrt(pi/2): s.e. of a median vs a mean
inline constexpr double kMinSigma = 1e-5;                // keeps constant synthetic series finite

double median(std::vector<double> v);
// The median without a copy, reordering `v`: the upper middle value of an even count (for medians over hundreds of
// series, where the two middle values hardly differ); 0 for none.
double upper_median_in_place(std::vector<double>& v);
// The variance of the median of k normal values relative to their mean's: exact (Monte Carlo) for k = 1 .. 8, where
// it is 1 for one or two values and 1.19-1.47 after; pi/2 (kMedianSe squared, the large-k limit) beyond.
double median_variance_factor(std::size_t k);
// A normal distribution's interquartile range in sigmas: a p25..p75 spread over this is a sigma.
inline constexpr double kIqrSigmas = 1.349;
// A run's own spread, as a relative sigma: the interquartile range of its repetitions over kIqrSigmas, relative
// to its value; 0 with fewer than 4 repetitions. Kept with each point (points.spread) at ingest, so the single-run
// gate reads it without the repetitions, which pruning may remove.
double repetition_spread(std::vector<double> reps, double value);
// Median absolute deviation scaled by 1.4826 (consistent with sigma for normal data).
double mad_sigma(const std::vector<double>& v);
// Sigma of a series in time order from its median absolute first difference (1.4826 / sqrt(2) of it): a step in
// level moves one difference and a lone outlier two, so neither moves it.
double diff_mad_sigma(const std::vector<double>& y);

struct UTest {
  double u = 0;   // U statistic of the first sample
  double p = 1;   // two-sided p-value
  bool exact = false;
};
// Two-sided Mann-Whitney U test. Exact distribution for small samples without ties (what
// scipy.stats.mannwhitneyu does, as used by Google Benchmark's compare.py), otherwise the
// normal approximation with tie and continuity correction.
UTest mann_whitney_u(const std::vector<double>& a, const std::vector<double>& b);

// The chi-square quantile with `df` degrees of freedom at the normal quantile z (Wilson-Hilferty: within 1% of the
// exact one from 2 degrees of freedom).
double chi2_quantile(double z, double df);

// The Student-t quantile at the normal tail of z for `df` degrees of freedom (df >= 10: within 1%).
double t_quantile(double z, double df);
// The tail test's threshold for a series of n_points runs: t_quantile of z for the degrees of freedom of the noise
// estimate from those points (the first differences' trimmed RMS), 0.8 (n_points - 1), at least 10.
double tail_threshold(double z, std::size_t n_points);

}  // namespace shaderwatch::stats
