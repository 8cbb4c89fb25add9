#include "common/number_codec.h"

#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <utility>
#include <stdexcept>
#include <string>
#include <system_error>

namespace shaderwatch::codec {

namespace {

// Header bytes. Below kRaw: a decimal, 0x40 its sign, the low six bits its exponent + kExpBias.
constexpr unsigned char kSign = 0x40, kExpMask = 0x3F;
constexpr int kExpBias = 32;
constexpr unsigned char kRaw = 0x80, kUnsigned = 0x81, kNegative = 0x82, kRepeat = 0x83, kDerived = 0x84;
// Rates: kRateWithCount + step + kMaxRateStep, then the count; kRateAgain + step + kMaxRateStep alone.
constexpr unsigned char kRateWithCount = 0x85, kRateAgain = kRateWithCount + 2 * kMaxRateStep + 1;
constexpr unsigned char kRateEnd = kRateAgain + 2 * kMaxRateStep + 1;
// Repeats of 2 to kMaxRepeat rows: kRepeatRows + rows - 2 (one row: kRepeat, as packs had it first).
constexpr unsigned char kRepeatRows = 0x90;
// A product of an integer and a power of ten below one, as the bench's times and durations come (135360 * 1e-4 is
// 13.536000000000001 us, whose shortest decimal has 17 digits): kScaled + its power - 1, kScaled + kMaxScale +
// its power - 1 where negative, then the integer.
constexpr int kMaxScale = 16;
constexpr unsigned char kScaled = 0xD0, kScaledEnd = kScaled + 2 * kMaxScale;
// A time read on a nanosecond clock as seconds, then scaled to its unit (Google Benchmark's CPU time is the
// difference of two process-clock readings, each tv_sec + tv_nsec * 1e-9, times 1e6 in microseconds): its digits are
// the clocks' rounding, 0.47500000022182576 us, but it is n * 2^q seconds for an integer n within one of the nearest
// multiple of 2^q to its whole nanoseconds. Kept as kClock + 3 * unit + (that offset + 1), a byte q + kClockExpBias,
// then the nanoseconds: 4 to 5 bytes for a benchmark's CPU time, not 9.
constexpr unsigned char kClock = kScaledEnd;
constexpr double kClockUnits[] = {1e0, 1e3, 1e6, 1e9};  // seconds to s, ms, us, ns
constexpr int kClockOffsets = 3, kClockExpBias = 128;
constexpr unsigned char kClockEnd = kClock + kClockOffsets * (sizeof kClockUnits / sizeof kClockUnits[0]);
// Derived values of 2 to kMaxDerived rows: kDerivedRows + rows - 2 (one row: kDerived, as packs had it first).
constexpr unsigned char kDerivedRows = kClockEnd;
static_assert(kRateEnd <= kRepeatRows && kRepeatRows + kMaxRepeat - 2 < kScaled &&
              kDerivedRows + kMaxDerived - 2 < 0x100);

std::size_t varint_size(std::uint64_t v) {
  std::size_t n = 1;
  while (v >= 0x80) v >>= 7, ++n;
  return n;
}

void put_raw(std::string& out, double v) {
  out.push_back(static_cast<char>(kRaw));
  char b[8];
  std::memcpy(b, &v, 8);  // little-endian on every target (x86-64, aarch64)
  out.append(b, 8);
}

// Powers of ten a double holds exactly: digits * or / one of them is rounded once, so correctly (Clinger's fast path).
constexpr double kExactPow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                  1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

double decimal_value(bool negative, std::uint64_t digits, int exp) {
  double v;
  if (digits < (std::uint64_t{1} << 53) && exp >= -22 && exp <= 22) {
    v = static_cast<double>(digits);
    v = exp >= 0 ? v * kExactPow10[exp] : v / kExactPow10[-exp];
  } else {
    std::string text = std::to_string(digits);
    text += 'e';
    text += std::to_string(exp);
    const auto parsed = std::from_chars(text.data(), text.data() + text.size(), v);
    if (parsed.ec != std::errc()) throw Corrupt("a stored decimal does not read as a double");
  }
  return negative ? -v : v;
}

// The doubles nearest 10^-1 .. 10^-kMaxScale, the factors a product is taken with: kNegPow10[d] is 10^-d.
constexpr double kNegPow10[] = {1e0, 1e-1, 1e-2,  1e-3,  1e-4,  1e-5,  1e-6,  1e-7, 1e-8,
                                1e-9, 1e-10, 1e-11, 1e-12, 1e-13, 1e-14, 1e-15, 1e-16};
static_assert(sizeof kNegPow10 / sizeof kNegPow10[0] == kMaxScale + 1);

// The smallest power d and integer k with k * 10^-d == |v| (the rounded product), where k's varint and header take
// fewer than a raw double's 9 bytes; none where no such pair exists.
std::optional<std::pair<int, std::uint64_t>> as_product(double magnitude) {
  for (int d = 1; d <= kMaxScale; ++d) {
    const double near = magnitude * kExactPow10[d];
    if (!(near < 0x1p53)) break;
    const auto k = static_cast<std::uint64_t>(std::llround(near));
    for (const std::uint64_t candidate : {k, k - 1, k + 1}) {
      if (candidate == 0 || candidate >= (std::uint64_t{1} << 53)) continue;
      if (static_cast<double>(candidate) * kNegPow10[d] != magnitude) continue;
      if (1 + varint_size(candidate) >= 9) return std::nullopt;
      return std::pair{d, candidate};
    }
  }
  return std::nullopt;
}

// 2^e for e in -1022..1023, built from its bits: a product by it is exact, or rounded once where it leaves the normal
// doubles, as std::ldexp's would be, but without a library call.
double power_of_two(int e) {
  const std::uint64_t b = static_cast<std::uint64_t>(1023 + e) << 52;
  double v;
  std::memcpy(&v, &b, sizeof v);
  return v;
}

// The multiple of 2^q nearest `nanoseconds` (in seconds), in units of 2^q. Every step is one rounding or none (the
// product by the double nearest 1e-9; a product by a power of two; a round to an integer).
double clock_units(std::uint64_t nanoseconds, int q) {
  return std::rint(static_cast<double>(nanoseconds) * kNegPow10[9] * power_of_two(-q));
}

// The clock form's seconds: those units plus offset, times 2^q.
double clock_seconds(std::uint64_t nanoseconds, int q, int offset) {
  return (clock_units(nanoseconds, q) + offset) * power_of_two(q);
}

// The clock form of a positive v: its unit, binary exponent, offset and nanoseconds, where they read back as v in
// fewer than `bytes`; none elsewhere.
struct ClockTime {
  int unit, q, offset;
  std::uint64_t nanoseconds;
};
std::optional<ClockTime> as_clock_time(double v, std::size_t bytes) {
  if (!(v > 0) || !std::isfinite(v)) return std::nullopt;
  // From ns to s: v read in a smaller unit than its own gives more nanoseconds, where it gives any.
  for (int unit = static_cast<int>(sizeof kClockUnits / sizeof kClockUnits[0]) - 1; unit >= 0; --unit) {
    const double near = v / kClockUnits[unit];
    const double ns = std::round(near * 1e9);
    if (!(ns >= 1 && ns < 0x1p53)) continue;
    const auto nanoseconds = static_cast<std::uint64_t>(ns);
    if (2 + varint_size(nanoseconds) >= bytes) continue;
    // The seconds that scale to v are among the doubles nearest v / unit: that quotient and three on each side (a
    // positive double's neighbours are its bits plus and minus one).
    std::uint64_t near_bits;
    std::memcpy(&near_bits, &near, sizeof near);
    for (const int step : {0, -1, 1, -2, 2, -3, 3}) {
      const std::uint64_t b = near_bits + static_cast<std::uint64_t>(static_cast<std::int64_t>(step));
      const int biased = static_cast<int>(b >> 52);
      if (biased == 0 || biased >= 0x7FF) continue;  // subnormal, or not finite
      double seconds;
      std::memcpy(&seconds, &b, sizeof seconds);
      if (seconds * kClockUnits[unit] != v) continue;
      const std::uint64_t mantissa = (b & ((std::uint64_t{1} << 52) - 1)) | (std::uint64_t{1} << 52);
      const int zeros = __builtin_ctzll(mantissa);
      const int q = biased - 1075 + zeros;  // the exponent of the last bit the seconds hold
      if (q < -kClockExpBias || q >= 256 - kClockExpBias) continue;
      const double units = static_cast<double>(mantissa >> zeros);
      const double nearest = clock_units(nanoseconds, q);
      if (!(std::fabs(units - nearest) <= 1)) continue;
      const int offset = static_cast<int>(units - nearest);
      if (clock_seconds(nanoseconds, q, offset) * kClockUnits[unit] == v) return ClockTime{unit, q, offset, nanoseconds};
    }
  }
  return std::nullopt;
}

unsigned char get_byte(std::string_view& in) {
  if (in.empty()) throw Corrupt("packed numbers end early");
  const auto b = static_cast<unsigned char>(in.front());
  in.remove_prefix(1);
  return b;
}

}  // namespace

void put_varint(std::string& out, std::uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7F) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}

std::uint64_t get_varint(std::string_view& in) {
  std::uint64_t v = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    const unsigned char b = get_byte(in);
    v |= static_cast<std::uint64_t>(b & 0x7F) << shift;
    if (!(b & 0x80)) return v;
  }
  throw Corrupt("a packed varint is longer than 64 bits");
}

namespace {
// A byte standing for 1 to `max` rows in a row: `one` for a row, `many` + rows - 2 for more (repeats and derived
// values alike; `what` names it in the error).
void put_rows(std::string& out, std::size_t rows, unsigned char one, unsigned char many, std::size_t max,
              const char* what) {
  if (rows < 1 || rows > max) throw std::invalid_argument(std::string(what) + " of " + std::to_string(rows) + " rows");
  out.push_back(static_cast<char>(rows == 1 ? one : many + (rows - 2)));
}
// How many rows such a byte at the front of `in` stands for (then consumed), or 0 where it is none.
std::size_t take_rows(std::string_view& in, unsigned char one, unsigned char many, std::size_t max) {
  if (in.empty()) return 0;
  const auto h = static_cast<unsigned char>(in.front());
  std::size_t rows = 0;
  if (h == one) rows = 1;
  else if (h >= many && h - many + 2u <= max) rows = h - many + 2u;
  if (rows > 0) in.remove_prefix(1);
  return rows;
}
}  // namespace

void put_repeat(std::string& out, std::size_t rows) { put_rows(out, rows, kRepeat, kRepeatRows, kMaxRepeat, "a repeat"); }
std::size_t take_repeat(std::string_view& in) { return take_rows(in, kRepeat, kRepeatRows, kMaxRepeat); }

void put_derived(std::string& out, std::size_t rows) {
  put_rows(out, rows, kDerived, kDerivedRows, kMaxDerived, "a derived value");
}
std::size_t take_derived(std::string_view& in) { return take_rows(in, kDerived, kDerivedRows, kMaxDerived); }

void put_rate(std::string& out, const Rate& rate) {
  if (rate.step < -kMaxRateStep || rate.step > kMaxRateStep) throw std::invalid_argument("a rate's step out of range");
  const int offset = rate.step + kMaxRateStep;
  out.push_back(static_cast<char>((rate.count ? kRateWithCount : kRateAgain) + offset));
  if (rate.count) put_varint(out, *rate.count);
}

std::optional<Rate> take_rate(std::string_view& in) {
  if (in.empty()) return std::nullopt;
  const auto h = static_cast<unsigned char>(in.front());
  if (h < kRateWithCount || h >= kRateEnd) return std::nullopt;
  in.remove_prefix(1);
  Rate rate;
  if (h < kRateAgain) {
    rate.step = h - kRateWithCount - kMaxRateStep;
    rate.count = get_varint(in);
  } else {
    rate.step = h - kRateAgain - kMaxRateStep;
  }
  return rate;
}

void put_double(std::string& out, double v) {
  if (!std::isfinite(v)) return put_raw(out, v);
  // The shortest decimal that reads back as v, in scientific form: "-1.2128000000000002e+01".
  char text[64];
  const auto r = std::to_chars(text, text + sizeof text, v, std::chars_format::scientific);
  const char* p = text;
  const bool negative = *p == '-';
  if (negative) ++p;
  std::uint64_t digits = 0;
  int n = 0;
  for (; *p != 'e'; ++p) {
    if (*p == '.') continue;
    digits = digits * 10 + static_cast<std::uint64_t>(*p - '0');
    ++n;
  }
  int exp10 = 0;
  std::from_chars(p + (p[1] == '+' ? 2 : 1), r.ptr, exp10);
  const int exp = exp10 - (n - 1);
  const bool decimal = exp >= -kExpBias && exp <= kExpMask - kExpBias && 1 + varint_size(digits) < 9;
  std::size_t bytes = decimal ? 1 + varint_size(digits) : 9;
  std::optional<std::pair<int, std::uint64_t>> product;
  if (!decimal && (product = as_product(std::fabs(v)))) bytes = 1 + varint_size(product->second);
  // A clock's time whose decimal or product takes 7 bytes or more, or that is neither: its nanoseconds may be shorter.
  if (bytes >= 7) {
    if (const auto clock = as_clock_time(v, bytes)) {
      out.push_back(static_cast<char>(kClock + kClockOffsets * clock->unit + clock->offset + 1));
      out.push_back(static_cast<char>(clock->q + kClockExpBias));
      return put_varint(out, clock->nanoseconds);
    }
  }
  if (product) {
    out.push_back(static_cast<char>(kScaled + (negative ? kMaxScale : 0) + product->first - 1));
    return put_varint(out, product->second);
  }
  if (!decimal) return put_raw(out, v);
  out.push_back(static_cast<char>((negative ? kSign : 0) | (exp + kExpBias)));
  put_varint(out, digits);
}

double get_double(std::string_view& in) {
  const unsigned char h = get_byte(in);
  if (h == kRaw) {
    if (in.size() < 8) throw Corrupt("a packed double ends early");
    double v;
    std::memcpy(&v, in.data(), 8);
    in.remove_prefix(8);
    return v;
  }
  if (h >= kScaled && h < kScaledEnd) {
    const int d = (h - kScaled) % kMaxScale + 1;
    const double magnitude = static_cast<double>(get_varint(in)) * kNegPow10[d];
    return h - kScaled >= kMaxScale ? -magnitude : magnitude;
  }
  if (h >= kClock && h < kClockEnd) {
    const int unit = (h - kClock) / kClockOffsets, offset = (h - kClock) % kClockOffsets - 1;
    const int q = get_byte(in) - kClockExpBias;
    return clock_seconds(get_varint(in), q, offset) * kClockUnits[unit];
  }
  if (h > kRaw) throw Corrupt("a packed double has header " + std::to_string(h));
  return decimal_value(h & kSign, get_varint(in), (h & kExpMask) - kExpBias);
}

void put_json_number(std::string& out, const nlohmann::json& v) {
  if (v.is_number_unsigned()) {
    out.push_back(static_cast<char>(kUnsigned));
    put_varint(out, v.get<std::uint64_t>());
  } else if (v.is_number_integer()) {
    const auto i = v.get<std::int64_t>();
    if (i >= 0) {
      out.push_back(static_cast<char>(kUnsigned));
      put_varint(out, static_cast<std::uint64_t>(i));
    } else {
      out.push_back(static_cast<char>(kNegative));
      put_varint(out, static_cast<std::uint64_t>(-(i + 1)));
    }
  } else if (v.is_number_float()) {
    put_double(out, v.get<double>());
  } else {
    throw std::invalid_argument("not a JSON number: " + v.dump());
  }
}

nlohmann::json get_json_number(std::string_view& in) {
  if (in.empty()) throw Corrupt("packed numbers end early");
  const auto h = static_cast<unsigned char>(in.front());
  if (h == kUnsigned) {
    in.remove_prefix(1);
    return get_varint(in);
  }
  if (h == kNegative) {
    in.remove_prefix(1);
    return -static_cast<std::int64_t>(get_varint(in)) - 1;
  }
  return get_double(in);
}

}  // namespace shaderwatch::codec
