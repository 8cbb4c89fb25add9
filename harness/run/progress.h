#pragma once
// Progress of a long suite on stderr: on a terminal one line rewritten in place; in a log (CI) the first
// benchmark, then a line at most every 30 s, so a 350-benchmark run stays a few lines long.
#include <chrono>
#include <string>

namespace shaderwatch {

class Progress {
 public:
  explicit Progress(size_t total);
  ~Progress();  // clears the terminal line
  void at(size_t index, const std::string& what);  // index from 0

 private:
  size_t total_;
  bool terminal_;
  std::chrono::steady_clock::time_point last_{};
  bool shown_ = false;
};

}  // namespace shaderwatch
