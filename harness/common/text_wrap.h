#pragma once
// Text for people at a terminal: words wrapped to a width, and the width of the terminal.
#include <string>
#include <vector>

namespace shaderwatch {

// The words of `text` in lines of at most `width` columns (a word longer than that is cut). Line breaks
// in `text` are kept; blank lines too.
std::vector<std::string> wrap_words(const std::string& text, size_t width);

// Columns of the terminal on standard output, else $COLUMNS, else 100; kept within 60-120 so that
// nothing printed for people is wider than 120.
size_t terminal_columns();

}  // namespace shaderwatch
