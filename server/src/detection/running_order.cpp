#include "detection/running_order.h"

#include <algorithm>

namespace shaderwatch::detect {

double level(const std::vector<double>& y, std::size_t lo, std::size_t hi) {
  std::vector<double> v(y.begin() + static_cast<std::ptrdiff_t>(lo), y.begin() + static_cast<std::ptrdiff_t>(hi));
  std::sort(v.begin(), v.end());
  const std::size_t k = trimmed_count(v.size());
  double sum = 0;
  for (std::size_t i = k; i + k < v.size(); ++i) sum += v[i];
  return sum / static_cast<double>(v.size() - 2 * k);
}

void SortedWindow::insert(double x) { v_.insert(std::upper_bound(v_.begin(), v_.end(), x), x); }
void SortedWindow::erase(double x) { v_.erase(std::lower_bound(v_.begin(), v_.end(), x)); }
double SortedWindow::median() const {
  const std::size_t m = v_.size();
  return m % 2 ? v_[m / 2] : (v_[m / 2 - 1] + v_[m / 2]) / 2;
}

void GrowingLevel::add(double x) {
  const std::size_t m = v_.size(), k = trimmed_count(m);
  const auto pos = std::upper_bound(v_.begin(), v_.end(), x);
  const auto r = static_cast<std::size_t>(pos - v_.begin());
  if (r < k) low_ += x - v_[k - 1];                     // x joins the lowest k, pushing their highest out
  if (k > 0 && r >= m + 1 - k) high_ += x - v_[m - k];  // x joins the highest k, pushing their lowest out
  v_.insert(pos, x);
  sum_ += x;
  if (trimmed_count(m + 1) > k) low_ += v_[k], high_ += v_[m - k];  // one more trimmed each side
}
double GrowingLevel::level() const {
  const std::size_t m = v_.size(), k = trimmed_count(m);
  return (sum_ - low_ - high_) / static_cast<double>(m - 2 * k);
}

std::vector<double> growing_levels(const std::vector<double>& y, std::size_t lo, std::size_t hi, bool suffixes) {
  std::vector<double> out(hi - lo + 1, 0.0);
  GrowingLevel growing;
  if (suffixes) {
    for (std::size_t t = hi; t-- > lo;) growing.add(y[t]), out[t - lo] = growing.level();
  } else {
    for (std::size_t t = lo + 1; t <= hi; ++t) growing.add(y[t - 1]), out[t - lo] = growing.level();
  }
  return out;
}

}  // namespace shaderwatch::detect
