// Numbers in few bytes, read back bit for bit: the codec of the packed rows (stored_rows.h).
// A double is kept as the shortest decimal that reads back as it (std::to_chars): a header byte (sign and a
// small exponent) and its digits as a varint, so a time posted as "12345.678901" costs 7 bytes, not 8 plus
// a row's worth of table. A double whose decimal is no shorter than 8 bytes but which is an integer times the double
// nearest 10^-d (d 1 to 16, the product rounded: the bench's times in microseconds are such, 135360 * 1e-4 =
// 13.536000000000001) is kept as that integer. A time read on a nanosecond clock as seconds and scaled to its unit,
// whose digits are the clock's rounding (Google Benchmark's CPU time, 0.47500000022182576 us), is kept as its whole
// nanoseconds where that is shorter (number_codec.cpp says how). Any other, or a NaN or infinity, is kept raw.
// JSON's integers keep their kind, so a counter posted as 5 is answered as 5, not 5.0.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace shaderwatch::codec {

// Damaged or foreign bytes: what was being read and where.
struct Corrupt : std::runtime_error {
  using std::runtime_error::runtime_error;
};

void put_varint(std::string& out, std::uint64_t v);
void put_double(std::string& out, double v);
// A JSON number (unsigned, integer or float), its kind kept.
void put_json_number(std::string& out, const nlohmann::json& v);

// One byte for "the same number as the one before it" in a column of numbers (stored_rows.cpp), for up to
// kMaxRepeat rows in a row: a counter that holds one value over a benchmark's repetitions and another on its
// aggregates costs a byte for all its repetitions but the first, not nine bytes each.
constexpr std::size_t kMaxRepeat = 64;
void put_repeat(std::string& out, std::size_t rows = 1);  // rows: 1 to kMaxRepeat
// How many rows the repeat byte at the front of `in` stands for (then consumed), or 0 where it is none.
std::size_t take_repeat(std::string_view& in);

// One byte for "the aggregate statistic of the column's repetitions before it" (stored_rows.cpp: an aggregate
// row's mean, median, stddev or cv that gbench_statistics.h gives bit for bit), for up to kMaxDerived rows in a row:
// a benchmark's four aggregates of a column cost a byte, not four.
constexpr std::size_t kMaxDerived = 5;
void put_derived(std::string& out, std::size_t rows = 1);  // rows: 1 to kMaxDerived
// How many rows the derived byte at the front of `in` stands for (then consumed), or 0 where it is none.
std::size_t take_derived(std::string_view& in);

// A rate counter (Google Benchmark's bytes_per_second, items_per_second: a count over the row's time) kept as the
// count and which double near the row's time in seconds it was divided by (stored_rows.cpp): a header byte, then
// the count, or no count where it is the column's previous rate's, so a benchmark's repetitions cost a byte each.
constexpr int kMaxRateStep = 2;  // the divisor is at most this many doubles from the row's time in seconds
struct Rate {
  int step = 0;                            // -kMaxRateStep..kMaxRateStep
  std::optional<std::uint64_t> count;      // none: the column's previous rate's count
};
void put_rate(std::string& out, const Rate& rate);
// Whether `in` starts with a rate (then consumed); throws Corrupt where its count ends early.
std::optional<Rate> take_rate(std::string_view& in);

// Reads from the front of `in`, advancing it; throws Corrupt past its end or on an unknown header.
std::uint64_t get_varint(std::string_view& in);
double get_double(std::string_view& in);
nlohmann::json get_json_number(std::string_view& in);

}  // namespace shaderwatch::codec
