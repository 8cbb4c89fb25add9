#pragma once
// Runs a shell command as a user would and returns its exit code and output.
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

struct CommandResult {
  int exit_code;
  std::string output;
};

inline CommandResult run_command(const std::string& command) {
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return {-1, "popen failed: " + command};
  std::string out;
  std::array<char, 4096> buf;
  while (size_t n = fread(buf.data(), 1, buf.size(), pipe)) out.append(buf.data(), n);
  const int status = pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}
