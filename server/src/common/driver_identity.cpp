#include "common/driver_identity.h"

#include <charconv>
#include <cstdint>
#include <stdexcept>

#include "shaderwatch/driver_version.h"

namespace shaderwatch {

std::string DriverIdentity::label() const {
  std::string s = name + " " + version;
  // Ingest stores "unknown" for a field a run did not carry.
  if (!info.empty() && info != "unknown" && info != version) s += " (" + info + ")";
  return s;
}

DriverChangeText driver_change_text(const DriverIdentity& a, const DriverIdentity& b) {
  auto before = a.label(), after = b.label();
  if (before == after && a.uuid != b.uuid) {
    before += ", build " + (a.uuid.empty() ? std::string("unknown") : a.uuid);
    after += ", build " + (b.uuid.empty() ? std::string("unknown") : b.uuid);
  }
  return {before, after};
}

namespace {

std::uint32_t parse_u32(const std::string& text, int base, const char* field) {
  std::string_view digits = text;
  if (base == 16 && (digits.starts_with("0x") || digits.starts_with("0X"))) digits.remove_prefix(2);
  std::uint32_t v = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v, base);
  if (digits.empty() || ec != std::errc() || end != digits.data() + digits.size())
    throw std::invalid_argument(std::string(field) + ": '" + text + "' is not a 32-bit " +
                                (base == 16 ? "hex number" : "number"));
  return v;
}

}  // namespace

std::string spelled_driver_version(const std::string& vendor_id, const std::string& driver_id,
                                   const std::string& raw, const std::string& fallback) {
  if (raw.empty()) return fallback;
  const auto v = parse_u32(raw, 16, "driver_version_raw");
  const auto vendor = vendor_id.empty() ? 0 : parse_u32(vendor_id, 16, "vendor_id");
  const auto driver = driver_id.empty() ? 0 : parse_u32(driver_id, 10, "driver_id");
  return shaderwatch::contract::driver_version_text(vendor, driver, v);
}

}  // namespace shaderwatch
