#pragma once
// The memory roofline of a run: what the device's memory can do, measured at the start of the run with
// probes of the kernels' own access pattern, and the least time a kernel's traffic needs at those rates.
#include <algorithm>
#include <cstdint>

#include "catalog.h"

namespace shaderwatch {

// Bytes per second, each the median cold sample of a probe over two large buffers.
struct Bandwidths {
  uint64_t bytes = 0;      // per buffer
  double copy_kernel = 0;  // copy.comp, the faster access pattern, bytes read + written
  double copy_buffer = 0;  // vkCmdCopyBuffer, bytes read + written
  double read_only = 0;    // read_probe.comp, the faster access pattern
  double write = 0;        // copy.comp with WRITE_ONLY, the faster access pattern
  double copy() const { return std::max(copy_kernel, copy_buffer); }
};

// The least time `traffic` takes by the faster of two ways the probes show the memory can go: every
// byte read at the read-only rate and every byte written at the write rate, one after the other (a
// shared bus); or bytes read and written in pairs at the copy rate and the rest at the read-only or write
// rate. No probe is faster than its own measured time, so a kernel beats the roofline only by noise;
// a pure reduction is priced by reading alone.
double roofline_seconds(const Traffic& traffic, const Bandwidths& bandwidths);

// roofline_seconds as a percentage of a measured time: 100 is the roofline; above it only by the
// probes' and the measurement's noise. 0 where a bandwidth is unknown.
double pct_of_roofline(const Traffic& traffic, const Bandwidths& bandwidths, double seconds);

}  // namespace shaderwatch
