#pragma once
// The vendor's own spelling of VkPhysicalDeviceProperties::driverVersion: what the harness prints and
// writes, and what the server stores (it spells a run's raw version again, so runs written before this
// spelling compare equal to runs written after it).
#include <cstdint>
#include <cstdio>
#include <string>

namespace shaderwatch::contract {

inline constexpr std::uint32_t kVendorNvidia = 0x10DE;
inline constexpr std::uint32_t kVendorIntel = 0x8086;
inline constexpr std::uint32_t kDriverIdIntelWindows = 5;  // VK_DRIVER_ID_INTEL_PROPRIETARY_WINDOWS

inline std::string driver_version_text(std::uint32_t vendor_id, std::uint32_t driver_id, std::uint32_t v) {
  char s[48];
  if (vendor_id == kVendorNvidia) {
    // 10.8.8.6 bits; NVIDIA writes its releases major.minor.patch with a two-digit patch (580.159.04),
    // the fourth field only where a build sets it.
    const unsigned build = v & 0x3F;
    std::snprintf(s, sizeof s, build ? "%u.%u.%02u.%u" : "%u.%u.%02u", v >> 22, (v >> 14) & 0xFF, (v >> 6) & 0xFF,
                  build);
  } else if (vendor_id == kVendorIntel && driver_id == kDriverIdIntelWindows) {  // 18.14 bits
    std::snprintf(s, sizeof s, "%u.%u", v >> 14, v & 0x3FFF);
  } else {  // Mesa, AMD and the rest: VK_MAKE_API_VERSION's major.minor.patch
    std::snprintf(s, sizeof s, "%u.%u.%u", (v >> 22) & 0x7F, (v >> 12) & 0x3FF, v & 0xFFF);
  }
  return s;
}

}  // namespace shaderwatch::contract
