// A driver is its build, not only its version number: lavapipe says 0.0.1 on every Mesa release and git
// builds of one release share a version, so a driver is known by its name, version, driver_info and the
// driver UUID the device gives. One place for what makes two runs' drivers the same and how one is shown.
#pragma once

#include <string>

namespace shaderwatch {

struct DriverIdentity {
  std::string name, version, info, uuid;

  // "NVIDIA 580.159.04", "llvmpipe 0.0.1 (Mesa 24.2.8-1~bpo12+1 (LLVM 15.0.6))": driver_info where it says
  // more than the version.
  std::string label() const;
  bool operator==(const DriverIdentity&) const = default;
};

// How a change from `a` to `b` reads: the two labels, and each build's UUID where only the build changed.
struct DriverChangeText {
  std::string before, after;
};
DriverChangeText driver_change_text(const DriverIdentity& a, const DriverIdentity& b);

// The vendor's spelling of a run's driver version (contract/shaderwatch/driver_version.h) from the context's
// vendor_id, driver_id and raw driverVersion (hex strings as the harness writes them). Returns `fallback`
// where the raw version is absent; throws std::invalid_argument naming the field that does not parse.
std::string spelled_driver_version(const std::string& vendor_id, const std::string& driver_id,
                                   const std::string& raw, const std::string& fallback);

}  // namespace shaderwatch
