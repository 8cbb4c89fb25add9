#include "run/progress.h"

#include <unistd.h>

#include <cstdio>
#include <iostream>

namespace shaderwatch {

namespace {
constexpr auto kLogInterval = std::chrono::seconds(30);
constexpr size_t kTerminalColumns = 100;
}  // namespace

Progress::Progress(size_t total) : total_(total), terminal_(isatty(STDERR_FILENO) != 0) {}

Progress::~Progress() {
  if (terminal_ && shown_) std::cerr << "\r\033[K" << std::flush;
}

void Progress::at(size_t index, const std::string& what) {
  char count[48];
  std::snprintf(count, sizeof count, "[%zu/%zu] ", index + 1, total_);
  std::string line = count + what;
  const auto now = std::chrono::steady_clock::now();
  if (terminal_) {
    if (line.size() > kTerminalColumns) line.resize(kTerminalColumns);
    std::cerr << "\r\033[K" << line << std::flush;
  } else if (!shown_ || now - last_ >= kLogInterval) {
    std::cerr << line << std::endl;
    last_ = now;
  }
  shown_ = true;
}

}  // namespace shaderwatch
