#include "check/readback.h"

#include <algorithm>
#include <cstdio>
#include <thread>

#include "common/parallel_bands.h"

namespace shaderwatch {

namespace {

// The first guard word that is no longer the poison, as text; "" when the zone is intact.
std::string touched_guard(const unsigned char* zone, size_t bytes, const char* buffer) {
  for (size_t i = 0; i + 4 <= bytes; i += 4) {
    uint32_t word = 0;
    std::memcpy(&word, zone + i, 4);
    if (word != kNaNBits) {
      char text[160];
      std::snprintf(text, sizeof text, "wrote past the end of its %s: guard byte %zu after the end holds 0x%08x", buffer,
                    i, word);
      return text;
    }
  }
  return "";
}

class HostMemory final : public ReadbackMemory {
 public:
  explicit HostMemory(size_t size) : bytes_(new unsigned char[size]), size_(size) {}  // uninitialized
  unsigned char* data() override { return bytes_.get(); }
  size_t capacity() const override { return size_; }

 private:
  std::unique_ptr<unsigned char[]> bytes_;
  size_t size_;
};

// `from` into host memory of its own. A large one in bands on threads of their own, each faulting in its own
// pages: an 8K image's 530 MB on one core took about 0.3 s, while its device-copied memory waited to be reused.
Readback holding(std::span<const unsigned char> from) {
  Readback r;
  r.memory = std::make_shared<HostMemory>(from.size());
  r.bytes = {r.memory->data(), from.size()};
  constexpr size_t kLeastBand = size_t{32} << 20;  // smaller ones are not worth a thread
  const size_t bands = std::min<size_t>((from.size() + kLeastBand - 1) / kLeastBand, std::max(1u, std::thread::hardware_concurrency()));
  parallel_bands(from.size(), static_cast<unsigned>(bands), [&](unsigned, uint64_t begin, uint64_t end) {
    std::memcpy(r.bytes.data() + begin, from.data() + begin, end - begin);
  });
  return r;
}

}  // namespace

Readback Readback::of(std::vector<unsigned char> bytes) { return holding(bytes); }

Readback Readback::copy() const {
  Readback r = holding(bytes);
  r.output_bytes = output_bytes;
  r.partials_guard = partials_guard;
  r.counter = counter;
  return r;
}

// The harness zeroes the counter only once, at setup: the kernel itself must leave it at zero for the next
// dispatch.
void check_kernel_state(const Readback& got, CheckResult& o) {
  std::string problem;
  if (got.bytes.size() >= got.output_bytes + kOutputGuardBytes)
    problem = touched_guard(got.bytes.data() + got.output_bytes, kOutputGuardBytes, "output");
  if (problem.empty() && !got.partials_guard.empty())
    problem = touched_guard(got.partials_guard.data(), got.partials_guard.size(), "intermediate buffer");
  if (problem.empty() && got.counter && *got.counter != 0)
    problem = "left its atomic counter at " + std::to_string(*got.counter) +
              " after the run (it must reset it to 0 for the next dispatch)";
  if (problem.empty() || (o.status != CheckStatus::Pass && !is_wrong_answer(o.status))) return;
  if (o.status == CheckStatus::Pass) {
    o.message = problem;
    o.first_failure = problem;
  } else {
    o.message += "; " + problem;  // the wrong answer's diagnosis stays
  }
  o.status = CheckStatus::Fail;
}

void corrupt_readback(Readback& got) {
  // 1e30f in every 4-byte word: far outside every bound, and no count or index a check expects.
  constexpr uint32_t kWrong = 0x7149F2CAu;
  for (size_t i = 0; i + 4 <= std::min(got.output_bytes, got.bytes.size()); i += 4) std::memcpy(got.bytes.data() + i, &kWrong, 4);
}

std::optional<size_t> first_difference(const Readback& a, const Readback& b) {
  const size_t n = std::min(a.bytes.size(), b.bytes.size());
  for (size_t i = 0; i < n; ++i) {
    if (a.bytes[i] != b.bytes[i]) return i;
  }
  if (a.bytes.size() != b.bytes.size()) return n;
  return std::nullopt;
}

}  // namespace shaderwatch
