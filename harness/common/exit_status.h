#pragma once
// shaderwatch-bench's exit status: one meaning each, the same in ci/gpu-runner.sh (which adds 2, the
// server's verdict). A CI system tells a broken kernel from a broken machine or a wrong command by it.
#include <stdexcept>
#include <string>

namespace shaderwatch {

enum ExitStatus : int {
  kExitPass = 0,            // every benchmark or check ran and gave the right answer
  kExitWrongAnswer = 1,     // a wrong answer, a kernel that failed to run, or a validation-layer message
  kExitRegression = 2,      // the server's verdict failed the run (ci/gpu-runner.sh, shaderwatch-bench --post --gate)
  kExitInfrastructure = 3,  // the device or the machine failed (no Vulkan device, device lost), or the
                            // results server could not be reached or could not store the results
  kExitUsage = 4,           // a bad flag or value, an unknown device, a filter or sizes that select
                            // nothing, an output file that cannot be written, a token the server refuses
};

// What the status means, for the last line of the report.
inline std::string exit_status_meaning(int status) {
  switch (status) {
    case kExitPass: return "every benchmark ran and gave the right answer";
    case kExitWrongAnswer: return "a wrong answer or a kernel that failed (see the rows marked above)";
    case kExitRegression: return "the results server's verdict failed the run on a regression";
    case kExitInfrastructure: return "infrastructure: the device or the results server failed (see above)";
    case kExitUsage: return "usage or configuration: nothing was measured";
  }
  return "unknown";
}

// A mistake in the command or the configuration (kExitUsage), found before any GPU work.
class UsageError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

}  // namespace shaderwatch
