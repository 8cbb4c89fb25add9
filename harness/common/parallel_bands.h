#pragma once
// Host work split into contiguous bands, one thread each: rows of an image (its reference, its check, the HDR test
// image) or blocks of bytes (a readback's copy). The one way the harness spreads such work over the cores.
#include <cstdint>
#include <thread>
#include <vector>

namespace shaderwatch {

// Calls fn(band, begin, end) for `bands` contiguous bands of [0, count) (band b: count * b / bands up to
// count * (b + 1) / bands), each on a thread of its own, and returns when all are done.
template <class Fn>
void parallel_bands(uint64_t count, unsigned bands, const Fn& fn) {
  std::vector<std::thread> pool;
  for (unsigned b = 0; b < bands; ++b) {
    pool.emplace_back([&, b] { fn(b, count * b / bands, count * (b + 1) / bands); });
  }
  for (auto& thread : pool) thread.join();
}

}  // namespace shaderwatch
