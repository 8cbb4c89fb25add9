#include "common/text_wrap.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <sstream>

namespace shaderwatch {

std::vector<std::string> wrap_words(const std::string& text, size_t width) {
  const size_t room = std::max<size_t>(width, 20);
  std::vector<std::string> lines;
  std::istringstream paragraphs(text);
  std::string paragraph;
  while (std::getline(paragraphs, paragraph)) {
    std::istringstream words(paragraph);
    std::string word, line;
    bool any = false;
    while (words >> word) {
      while (word.size() > room) {  // a path or a hash longer than the line: cut it
        if (!line.empty()) lines.push_back(std::move(line));
        lines.push_back(word.substr(0, room));
        word.erase(0, room);
        line.clear();
      }
      if (!line.empty() && line.size() + 1 + word.size() > room) {
        lines.push_back(std::move(line));
        line.clear();
      }
      if (!line.empty()) line.push_back(' ');
      line.append(word);
      any = true;
    }
    if (!line.empty() || !any) lines.push_back(std::move(line));
  }
  return lines;
}

size_t terminal_columns() {
  size_t columns = 100;
  winsize size{};
  if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) {
    columns = size.ws_col;
  } else if (const char* env = std::getenv("COLUMNS")) {
    const long value = std::strtol(env, nullptr, 10);
    if (value > 0) columns = static_cast<size_t>(value);
  }
  return std::clamp<size_t>(columns, 60, 120);
}

}  // namespace shaderwatch
