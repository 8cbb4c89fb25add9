#pragma once
// A kernel's output as read back to the host, and what every check asks of it beside the answer: nothing
// written past the end of an output or intermediate buffer (guard zones), the atomic counter back at zero.
// No Vulkan: the runner fills it, the checks read it, tests build it by hand.
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "check/check.h"

namespace shaderwatch {

inline constexpr uint32_t kNaNBits = 0x7FC00000u;  // poison and guard value: any read of it poisons the sum
// After the output and the intermediate buffer: poisoned with them, and still the poison after every
// run, or the kernel wrote past the end (an out-of-range write inside a buffer is no fault on a GPU).
inline constexpr uint64_t kOutputGuardBytes = 256;

// Memory a readback's bytes live in: the host's own (hand-built readbacks) or host memory the device copied
// the output into (KernelRun::read_outputs, which reuses a finished readback's when it is large enough).
class ReadbackMemory {
 public:
  virtual ~ReadbackMemory() = default;
  virtual unsigned char* data() = 0;
  virtual size_t capacity() const = 0;
};

struct Readback {
  std::span<unsigned char> bytes;             // the output, its guard zone after it, in `memory`
  std::shared_ptr<ReadbackMemory> memory;     // keeps `bytes` alive (shared by copies of the readback)
  size_t output_bytes = 0;                    // of `bytes`, the output's own (the rest is the guard zone)
  std::vector<unsigned char> partials_guard;  // the guard zone after the intermediate buffer, if any
  std::optional<uint32_t> counter;            // the kernel's atomic counter after the run, if it has one
  template <class T>
  std::vector<T> as(size_t count) const {
    if (count * sizeof(T) > bytes.size()) throw std::out_of_range("Readback: fewer bytes read back than the check needs");
    std::vector<T> out(count);
    std::memcpy(out.data(), bytes.data(), count * sizeof(T));
    return out;
  }
  // The first `count` values where they lie, not copied (an 8K image is 530 MB). The bytes are host memory the
  // device wrote or a vector's, aligned for any T.
  template <class T>
  std::span<const T> view(size_t count) const {
    if (count * sizeof(T) > bytes.size()) throw std::out_of_range("Readback: fewer bytes read back than the check needs");
    return {reinterpret_cast<const T*>(bytes.data()), count};
  }
  // A readback of these bytes, in host memory of its own.
  static Readback of(std::vector<unsigned char> bytes);
  // Moved, not copied (a copy would share the bytes): copy() is a copy with host memory of its own.
  Readback() = default;
  Readback(Readback&&) = default;
  Readback& operator=(Readback&&) = default;
  Readback copy() const;
};

// The guard zones and the counter: a problem turns a passing (or merely wrong) outcome into a failure
// naming it; an Error or Unsupported outcome is left alone.
void check_kernel_state(const Readback& got, CheckResult& o);

// Overwrites every word of a readback's output (not its guard zone) with a wrong value: --corrupt-output's
// fault, for proving that a wrong answer fails a CI job without a broken kernel.
void corrupt_readback(Readback& got);

// The first byte at which two readbacks' outputs differ, if any.
std::optional<size_t> first_difference(const Readback& a, const Readback& b);

}  // namespace shaderwatch
