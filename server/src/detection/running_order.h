// Order statistics of a series' values kept up to date one value at a time, for detect.cpp, which runs them on
// every series of every ingested run (inline: they are called per value): a sorted window for running medians and local noises, and the 20% trimmed
// mean (a stretch's level) of a set growing by one value at a time.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

namespace shaderwatch::detect {

// Values trimmed from each end of m sorted values for the 20% trimmed mean (none below 5 values).
inline std::size_t trimmed_count(std::size_t m) { return m >= 5 ? m / 5 : 0; }

// Level of a stretch of points: the 20% trimmed mean. A lone outlier among 5 or more points is trimmed away, as
// with the median, but it is 94% as efficient as the mean on normal noise where the median is 64%: steps of 3
// sigma are found runs earlier.
double level(const std::vector<double>& y, std::size_t lo, std::size_t hi);

// A small window of values kept sorted as values enter and leave it (running medians and local noises move it one
// value at a time instead of re-sorting a copy per point). Its values are shifted one by one: for a dozen values
// that beats a search and a call to memmove.
class SortedWindow {
 public:
  void insert(double x) {
    v_.push_back(x);
    std::size_t i = v_.size() - 1;
    for (; i > 0 && v_[i - 1] > x; --i) v_[i] = v_[i - 1];
    v_[i] = x;
  }
  void erase(double x) {  // x must be in the window
    std::size_t i = 0;
    while (v_[i] < x) ++i;
    for (; i + 1 < v_.size(); ++i) v_[i] = v_[i + 1];
    v_.pop_back();
  }
  const std::vector<double>& sorted() const { return v_; }
  double median() const {
    const std::size_t m = v_.size();
    return m % 2 ? v_[m / 2] : (v_[m / 2 - 1] + v_[m / 2]) / 2;
  }

 private:
  std::vector<double> v_;
};

// level() over a growing set of values, updated per value added: the sums of all values and of the k lowest and k
// highest (k = trimmed_count) follow each insertion, so every prefix's level costs one sorted insertion rather
// than a pass over the prefix.
class GrowingLevel {
 public:
  explicit GrowingLevel(std::size_t capacity = 0) { v_.reserve(capacity); }
  void add(double x) {
    const std::size_t m = v_.size(), k = trimmed_count(m);
    // Inserted by shifting the larger values up one by one: a search and a memmove cost more at these sizes.
    v_.push_back(x);
    std::size_t r = m;  // where x goes
    for (; r > 0 && v_[r - 1] > x; --r) v_[r] = v_[r - 1];
    v_[r] = x;
    if (r < k) low_ += x - v_[k];                         // x joins the lowest k, pushing their highest (now at k) out
    if (k > 0 && r >= m + 1 - k) high_ += x - v_[m - k];  // x joins the highest k, pushing their lowest out
    sum_ += x;
    if (trimmed_count(m + 1) > k) low_ += v_[k], high_ += v_[m - k];  // one more trimmed each side
  }
  double level() const {
    const std::size_t m = v_.size(), k = trimmed_count(m);
    return (sum_ - low_ - high_) / static_cast<double>(m - 2 * k);
  }

 private:
  std::vector<double> v_;
  double sum_ = 0, low_ = 0, high_ = 0;
};

// The level of every prefix [lo, t) of [lo, hi) (at t - lo, t in (lo, hi]), or with `suffixes` of every suffix
// [t, hi) (at t - lo, t in [lo, hi)).
std::vector<double> growing_levels(const std::vector<double>& y, std::size_t lo, std::size_t hi, bool suffixes);

}  // namespace shaderwatch::detect
