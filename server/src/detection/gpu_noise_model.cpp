#include "detection/gpu_noise_model.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <optional>

#include "common/statistics.h"

namespace shaderwatch::detect {

namespace {

constexpr double kMadToSigma = 1.4826;  // |N(0, s)| has its median at s / 1.4826
constexpr std::size_t kMinRunSeries = 20;  // a run position is judged an outlier only over this many series
constexpr std::size_t kExtremeRank = 3;    // a run's extreme: its third largest change

// Each series' |log changes|, newest last, and its duration (the median of its runs).
struct Changes {
  std::vector<double> abs;
  std::vector<std::size_t> pos;  // each change's run position, from the newest (0): the same run's across series
  double duration = 0;
  double own = 0;  // sd of one change from the series' own median |change| (0: too few)
};

// The tail's threshold at a two-sided probability p of one change, in scale units: inside the data, the empirical
// quantile, as long as it rests on `rank` changes or more; beyond it, the Weibull-type tail through the rank-k change,
// and the Pareto tail through the hill_rank-th where there is one, the larger.
double quantile(const GpuNoiseModel& model, double p) {
  if (model.sorted.empty() || model.rank == 0) return 0;
  const double m = static_cast<double>(model.changes);
  if (p * m >= static_cast<double>(model.rank))
    return model.sorted[static_cast<std::size_t>(std::ceil(p * m)) - 1];
  const double p1 = static_cast<double>(model.rank) / m;
  double q = model.sorted[model.rank - 1] * std::pow(std::log(1 / p) / std::log(1 / p1), 1 / model.shape);
  if (model.alpha > 0)
    q = std::max(q, model.sorted[model.hill_rank - 1] *
                        std::pow(static_cast<double>(model.hill_rank) / m / p, 1 / model.alpha));
  return q;
}

// The two-sided probability of one change the tail is read at: an unchanged run of `judged` benchmarks fails with
// probability false_fail_target.
double tail_probability(std::size_t judged, const NoiseModelParams& p) {
  return 2 * p.false_fail_target / static_cast<double>(std::max<std::size_t>(judged, 1));
}

// How many of the largest changes the tail is read from (GpuNoiseModel::sorted), of `m`: the ranks the tail runs
// through and the empirical quantiles, the tail's for any number of benchmarks judged (1 reads furthest in).
std::size_t changes_read(std::size_t m, std::size_t rank, const NoiseModelParams& p) {
  std::size_t most = 4 * rank;
  if (m >= p.hill_min_changes) most = std::max(most, std::max(p.hill_rank, m / p.hill_rank_per));
  for (const double q : {tail_probability(1, p), 2 * p.suspect_rate})
    if (q * static_cast<double>(m) >= static_cast<double>(rank))
      most = std::max(most, static_cast<std::size_t>(std::ceil(q * static_cast<double>(m))));
  return std::min(most, m);
}

// Pairs (|change|, series) in the order std::sort gives them, for non-negative values given in order of series: a
// stable radix sort on the values' bits (a non-negative double's bits order as the double does), 11 bits a pass,
// skipping the passes whose digit is the same everywhere. The changes of a GPU's series are ~33,000 a judgement.
void sort_by_value(std::vector<std::pair<double, std::size_t>>& v) {
  constexpr unsigned kDigit = 11;
  constexpr std::uint64_t kMask = (1u << kDigit) - 1;
  std::vector<std::pair<double, std::size_t>> tmp(v.size());
  std::vector<std::uint32_t> count(kMask + 2);
  const auto digit = [](double x, unsigned shift) {
    std::uint64_t b;
    std::memcpy(&b, &x, sizeof b);
    return (b >> shift) & kMask;
  };
  for (unsigned shift = 0; shift < 64; shift += kDigit) {
    std::fill(count.begin(), count.end(), 0);
    for (const auto& e : v) ++count[digit(e.first, shift) + 1];
    if (std::any_of(count.begin(), count.end(), [&](std::uint32_t c) { return c == v.size(); })) continue;
    for (std::size_t d = 1; d < count.size(); ++d) count[d] += count[d - 1];
    for (const auto& e : v) tmp[count[digit(e.first, shift)]++] = e;
    v.swap(tmp);
  }
}

// Counts by rank over the pooled changes, sorted: a change enters or leaves at one step, and the k-th smallest
// counted is found block by block. The neighbours' window moves every change in and out once (~66,000 moves) and
// reads ~350 medians.
class RankCounts {
 public:
  explicit RankCounts(std::size_t n) : in_(n, 0), block_((n >> kShift) + 1, 0) {}
  void move(std::size_t rank, bool in) {
    in_[rank] = in;
    in ? ++block_[rank >> kShift] : --block_[rank >> kShift];
  }
  // The rank of the want-th smallest counted (want from 1, at most as many as counted).
  std::size_t nth(std::size_t want) const {
    std::size_t b = 0;
    while (block_[b] < want) want -= block_[b++];
    std::size_t r = b << kShift;
    for (;; ++r)
      if (in_[r] && --want == 0) return r;
  }

 private:
  static constexpr unsigned kShift = 8;
  std::vector<char> in_;
  std::vector<std::size_t> block_;
};


// The model but its tail (which depends on the benchmarks judged): see learn_noise_model.
GpuNoiseModel learn_untailed(const std::vector<SeriesRuns>& series, const NoiseModelParams& p) {
  GpuNoiseModel model;
  model.scale.assign(series.size(), 0);
  std::vector<Changes> ch(series.size());
  std::vector<std::size_t> usable;
  for (std::size_t i = 0; i < series.size(); ++i) {
    const auto& v = *series[i].values;
    if (v.empty()) continue;
    std::vector<double> sorted_v = v;
    ch[i].duration = stats::upper_median_in_place(sorted_v);
    const auto* code = series[i].code_changed;
    for (std::size_t j = 1; j < v.size(); ++j)
      if (v[j] > 0 && v[j - 1] > 0 && !(code && j < code->size() && (*code)[j])) {
        ch[i].abs.push_back(std::fabs(std::log(v[j] / v[j - 1])));
        ch[i].pos.push_back(v.size() - 1 - j);
      }
    if (ch[i].abs.size() >= p.own_min_changes) {
      std::vector<double> a = ch[i].abs;
      ch[i].own = kMadToSigma * stats::upper_median_in_place(a);
    }
    if (ch[i].duration > 0) usable.push_back(i);
  }
  if (usable.empty()) return model;

  // The scale by duration: the series nearest in duration (by rank), pooled, their median |change|.
  std::sort(usable.begin(), usable.end(), [&](std::size_t a, std::size_t b) { return ch[a].duration < ch[b].duration; });
  const std::size_t n = usable.size();
  const std::size_t half = std::max(kMinNeighbours, n / p.neighbours_per);
  // The window of neighbours slides along the durations: each series' changes enter it once and leave it once, kept
  // as counts by rank (over every change, sorted), and its upper median is read from the counts: the same value as
  // selecting it from the pooled changes anew for each series, at a fraction of the cost.
  std::vector<std::pair<double, std::size_t>> all;  // (|change|, series index)
  for (std::size_t k = 0; k < n; ++k)
    if (!series[usable[k]].excluded)
      for (const double a : ch[usable[k]].abs) all.emplace_back(a, k);
  sort_by_value(all);
  std::vector<std::vector<std::size_t>> ranks(n);  // each usable series' changes, as positions in `all`
  for (std::size_t r = 0; r < all.size(); ++r) ranks[all[r].second].push_back(r);
  RankCounts counts(all.size());
  std::size_t in_pool = 0;
  const auto move_series = [&](std::size_t k, bool in) {
    for (const std::size_t r : ranks[k]) counts.move(r, in);
    in ? in_pool += ranks[k].size() : in_pool -= ranks[k].size();
  };
  const auto upper_median = [&]() -> double { return in_pool == 0 ? 0 : all[counts.nth(in_pool / 2 + 1)].first; };
  std::vector<double> by_duration(series.size(), 0);
  const std::size_t width = std::min(n, 2 * half + 1);
  std::size_t lo = 0;
  for (std::size_t k = 0; k < width; ++k) move_series(k, true);
  for (std::size_t r = 0; r < n; ++r) {
    for (const std::size_t want_lo = std::min(r > half ? r - half : 0, n - width); lo < want_lo; ++lo) {
      move_series(lo, false);
      move_series(lo + width, true);
    }
    const std::size_t i = usable[r];
    by_duration[i] = std::max(kMadToSigma * upper_median(), stats::kMinSigma);
    model.scale[i] = std::max(by_duration[i], ch[i].own);
  }

  // The changes by run: by position from the newest run (the series of a GPU mostly share their runs).
  std::vector<std::vector<double>> by_position;
  std::vector<std::vector<std::size_t>> series_of;  // each change's series
  for (std::size_t i : usable) {
    if (series[i].excluded) continue;
    const auto& a = ch[i].abs;
    // Each change in units of the larger of its duration's scale and the series' own without it (the lower median of
    // its other changes, from own_unit_min_changes - 1 of them): a noisy series' changes are then not the GPU's tail, and
    // a lone far change is not hidden by a scale it made itself (six changes of x, y and x + y never reach 1.4 of a
    // scale read from all six).
    std::vector<double> sorted_a = a;
    std::sort(sorted_a.begin(), sorted_a.end());
    const bool own = a.size() >= p.own_unit_min_changes && p.own_unit_min_changes > 1;
    const std::size_t mid = a.size() >= 2 ? (a.size() - 2) / 2 : 0;  // the lower median's index among n - 1
    for (std::size_t j = 0; j < a.size(); ++j) {
      const std::size_t pos = ch[i].pos[j];
      if (by_position.size() <= pos) by_position.resize(pos + 1), series_of.resize(pos + 1);
      double unit = by_duration[i];
      if (own) {
        const auto at = static_cast<std::size_t>(std::lower_bound(sorted_a.begin(), sorted_a.end(), a[j]) - sorted_a.begin());
        unit = std::max(unit, kMadToSigma * sorted_a[at <= mid ? mid + 1 : mid]);
      }
      by_position[pos].push_back(a[j] / unit);
      series_of[pos].push_back(i);
    }
  }
  // Runs left out: one that moved every series (a whole-GPU step, a noisy run: its changes' median is
  // run_outlier_ratio times the typical run's); and, once three runs are there, any whose extremes (a few series
  // moved far: a slowdown the gate failed, a step, a revert) are run_outlier_ratio times the typical run's, the
  // typical taken without the most extreme run.
  std::vector<std::size_t> runs;
  std::vector<double> medians, extremes(by_position.size(), 0);
  std::vector<std::pair<double, std::size_t>> pooled;  // (change in scale units, series)
  for (std::size_t pos = 0; pos < by_position.size(); ++pos) {
    if (by_position[pos].size() < kMinRunSeries) continue;
    runs.push_back(pos);
    std::vector<double> c = by_position[pos];
    medians.push_back(stats::upper_median_in_place(c));
    std::nth_element(c.begin(), c.begin() + kExtremeRank - 1, c.end(), std::greater<>());
    extremes[pos] = c[kExtremeRank - 1];
  }
  std::vector<double> median_copy = medians, ex;
  const double typical_median = stats::upper_median_in_place(median_copy);
  std::size_t most = SIZE_MAX;
  if (runs.size() >= 3)
    for (std::size_t pos : runs)
      if (most == SIZE_MAX || extremes[pos] > extremes[most]) most = pos;
  // The typical run's extremes, without the most extreme run's.
  for (std::size_t pos : runs)
    if (pos != most) ex.push_back(extremes[pos]);
  const double typical_extreme = stats::upper_median_in_place(ex);
  const auto far = [&](std::size_t pos) { return extremes[pos] > p.run_outlier_ratio * typical_extreme; };
  for (std::size_t r = 0; r < runs.size(); ++r) {
    const std::size_t pos = runs[r];
    const bool moved_all = typical_median > 0 && medians[r] > p.run_outlier_ratio * typical_median;
    const bool extreme = most != SIZE_MAX && far(pos);
    if (moved_all || extreme) {
      model.left_out += by_position[pos].size();
      continue;
    }
    for (std::size_t k = 0; k < by_position[pos].size(); ++k) pooled.push_back({by_position[pos][k], series_of[pos][k]});
  }
  // At most a few of each series' changes in the tail (its 4k largest): three times the share a series has of it, at
  // least two. One series that keeps moving far (a bimodal kernel) raises its own scale, not every benchmark's floor.
  // Only the largest changes are read (changes_read()): sorted as far as the tail's zone and those reach, the rest
  // counted. The zone fills in order, largest first, skipping a capped series' changes.
  model.rank = std::max(p.tail_rank, pooled.size() / p.tail_rank_per);
  std::size_t with_changes = 0;
  for (std::size_t i : usable) with_changes += !series[i].excluded && !ch[i].abs.empty();
  const std::size_t zone = 4 * model.rank;
  const std::size_t cap = std::max<std::size_t>(2, (3 * zone + with_changes - 1) / std::max<std::size_t>(with_changes, 1));
  for (std::size_t sorted_to = std::min(pooled.size(), 2 * changes_read(pooled.size(), model.rank, p) + 256);;
       sorted_to = std::min(pooled.size(), 2 * sorted_to)) {
    std::partial_sort(pooled.begin(), pooled.begin() + static_cast<std::ptrdiff_t>(sorted_to), pooled.end(), std::greater<>());
    model.sorted.clear();
    std::vector<std::size_t> in_tail(series.size(), 0);
    std::size_t skipped = 0;
    for (std::size_t k = 0; k < sorted_to; ++k) {
      const auto& [u, i] = pooled[k];
      if (model.sorted.size() < zone) {
        if (in_tail[i] >= cap) {
          ++skipped;
          continue;
        }
        ++in_tail[i];
      }
      model.sorted.push_back(u);
    }
    model.changes = pooled.size() - skipped;  // every change past a full zone counts
    if (sorted_to == pooled.size() ||
        (model.sorted.size() >= zone && model.sorted.size() >= changes_read(model.changes, model.rank, p)))
      break;
  }
  if (model.changes < p.min_changes) return model;

  // The tail beyond the data, two ways. (1) A Weibull-type tail, S(q) = exp(-(q / c)^shape), through the changes
  // at ranks k and 4k (k = max(tail_rank, changes / tail_rank_per)): it follows a normal tail and the real H200
  // runs' from a few hundred changes, but is light for a t distribution's far tail. (2) From hill_min_changes on,
  // a Pareto tail, S(q) ~ q^-alpha (Hill's estimator over the hill_rank largest), which a t distribution of nu
  // degrees of freedom has with alpha = nu: the larger of the two is taken. Each exponent is taken lower by
  // shape_margin of its standard errors (1 / sqrt(k) of it).
  const std::size_t m = model.changes;
  const auto margin = [&](double x, std::size_t k) {
    return x / (1 + p.shape_margin / std::sqrt(static_cast<double>(k)));
  };
  const double q1 = model.sorted[model.rank - 1], q2 = model.sorted[4 * model.rank - 1];
  const double l1 = std::log(static_cast<double>(m) / static_cast<double>(model.rank));
  const double l2 = std::log(static_cast<double>(m) / static_cast<double>(4 * model.rank));
  const double shape = q1 > q2 && q2 > 0 ? std::log(l1 / l2) / std::log(q1 / q2) : p.max_shape;
  model.shape = std::clamp(margin(shape, model.rank), p.min_shape, p.max_shape);
  if (m >= p.hill_min_changes) {
    model.hill_rank = std::max(p.hill_rank, m / p.hill_rank_per);
    double sum = 0;
    for (std::size_t i = 0; i + 1 < model.hill_rank; ++i)
      sum += std::log(model.sorted[i] / model.sorted[model.hill_rank - 1]);
    model.alpha = std::clamp(margin(static_cast<double>(model.hill_rank - 1) / std::max(sum, 1e-12), model.hill_rank),
                             p.min_alpha, p.max_alpha);
  }
  model.suspect = quantile(model, 2 * p.suspect_rate);
  model.ready = true;
  return model;
}

// The inputs of the models learned last, with their models: the run's verdict and its detection learn from the
// same series, and detection learns the next run's model ahead of it (analysis::learn_next_noise_model). Compared
// value by value, so a model is reused only for the very input it was learned from.
class Remembered {
 public:
  static constexpr std::size_t kMost = 16;  // a few per GPU posting

  std::optional<GpuNoiseModel> find(const std::vector<SeriesRuns>& series, const NoiseModelParams& p) {
    std::lock_guard l(mu_);
    for (auto& e : kept_)
      if (e.p == p && same(e, series)) {
        e.used = ++clock_;
        return e.model;
      }
    return std::nullopt;
  }
  void keep(const std::vector<SeriesRuns>& series, const NoiseModelParams& p, const GpuNoiseModel& model) {
    Entry e{p, {}, {}, {}, model, 0};
    for (const auto& s : series) {
      e.values.push_back(*s.values);
      e.excluded.push_back(s.excluded);
      e.code.push_back(s.code_changed ? *s.code_changed : std::vector<char>{});
    }
    std::lock_guard l(mu_);
    e.used = ++clock_;
    if (kept_.size() >= kMost)
      kept_.erase(std::min_element(kept_.begin(), kept_.end(), [](const Entry& a, const Entry& b) { return a.used < b.used; }));
    kept_.push_back(std::move(e));
  }

 private:
  struct Entry {
    NoiseModelParams p;
    std::vector<std::vector<double>> values;
    std::vector<char> excluded;
    std::vector<std::vector<char>> code;
    GpuNoiseModel model;
    std::uint64_t used = 0;
  };
  static bool same(const Entry& e, const std::vector<SeriesRuns>& series) {
    if (e.values.size() != series.size()) return false;
    for (std::size_t i = 0; i < series.size(); ++i) {
      const auto& code = series[i].code_changed;
      if (e.excluded[i] != series[i].excluded || e.values[i] != *series[i].values ||
          (code ? e.code[i] != *code : !e.code[i].empty()))
        return false;
    }
    return true;
  }
  std::mutex mu_;
  std::vector<Entry> kept_;
  std::uint64_t clock_ = 0;
};

std::atomic<std::size_t> learned{0};

}  // namespace

std::size_t noise_models_learned() { return learned; }

GpuNoiseModel learn_noise_model(const std::vector<SeriesRuns>& series, std::size_t judged, const NoiseModelParams& p) {
  static Remembered remembered;
  auto known = remembered.find(series, p);
  if (!known) {
    ++learned;
    known = learn_untailed(series, p);
    remembered.keep(series, p, *known);
  }
  GpuNoiseModel model = std::move(*known);
  if (model.ready) model.tail = quantile(model, tail_probability(judged, p));
  return model;
}

double run_spread(const std::vector<double>& deviations_in_scale) {
  if (deviations_in_scale.size() < kMinRunSeries) return 1;
  // Taken two standard errors high (a MAD's relative one is about 1 / sqrt(n)): a noisier runner's run of 24
  // benchmarks otherwise showed its spread 25% low one run in six, and failed.
  const double n = static_cast<double>(deviations_in_scale.size());
  return std::max(1.0, stats::mad_sigma(deviations_in_scale) * (1 + 2 / std::sqrt(n)));
}

}  // namespace shaderwatch::detect
