// A run's rows packed per benchmark (common/stored_rows.h, number_codec.h): every field back bit for bit, bad
// bytes refused, and a database of schema 8 (a row each) packed by its migration with no answer changed.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include <benchmark/benchmark.h>

#include "common/gbench_statistics.h"
#include "common/number_codec.h"
#include "common/stored_rows.h"
#include "fixture_file.h"
#include "ingest/ingest_parse.h"
#include "ingest/point_grouping.h"
#include "test_util.h"

// Google Benchmark's own statistics (src/statistics.h of 1.7, exported by its library, not in its headers): the
// numbers its aggregate rows carry.
namespace benchmark {
double StatisticsMean(const std::vector<double>& v);
double StatisticsMedian(const std::vector<double>& v);
double StatisticsStdDev(const std::vector<double>& v);
double StatisticsCV(const std::vector<double>& v);
}  // namespace benchmark

namespace {

using nlohmann::json;
using shaderwatch::StoredRow;
using swt::cat;

std::uint64_t bits(double v) {
  std::uint64_t u;
  std::memcpy(&u, &v, sizeof u);
  return u;
}

// The bytes number_codec keeps v in, checking that they read back as v, bit for bit, to their end.
std::size_t codec_bytes(double v) {
  std::string out;
  shaderwatch::codec::put_double(out, v);
  std::string_view in = out;
  EXPECT_EQ(bits(shaderwatch::codec::get_double(in)), bits(v)) << v;
  EXPECT_TRUE(in.empty());
  return out.size();
}

TEST(NumberCodec, EveryFiniteDoubleAndJsonIntegerReadsBackBitForBit) {
  std::vector<double> values = {0.0, -0.0, 1.0, 0.1, 12.128000000000002, 12.16, 1.0 / 3, 1e-320, -5e-324,
                                std::numeric_limits<double>::max(), std::numeric_limits<double>::min(), 1e22, 1e23,
                                123456789012345678.0, 9007199254740993.0, 2.5e-30, 7e30,
                                std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(),
                                std::numeric_limits<double>::quiet_NaN()};
  std::mt19937_64 rng(7);
  for (int i = 0; i < 200000; ++i) {
    std::uint64_t u = rng();
    double v;
    std::memcpy(&v, &u, sizeof v);
    values.push_back(v);
    values.push_back(std::round(std::ldexp(static_cast<double>(u % 1000000000), -10) * 1e3) / 1e3);  // a few digits
  }
  std::string out;
  for (const double v : values) shaderwatch::codec::put_double(out, v);
  std::string_view in = out;
  for (const double v : values) ASSERT_EQ(bits(shaderwatch::codec::get_double(in)), bits(v)) << v;
  EXPECT_TRUE(in.empty());

  std::string ints;
  const std::vector<json> numbers = {json(0u), json(5u), json(std::numeric_limits<std::uint64_t>::max()), json(-1),
                                     json(std::numeric_limits<std::int64_t>::min()), json(2.0), json(-0.0)};
  for (const auto& n : numbers) shaderwatch::codec::put_json_number(ints, n);
  in = ints;
  for (const auto& n : numbers) {
    const json back = shaderwatch::codec::get_json_number(in);
    EXPECT_EQ(back.type(), n.is_number_integer() && n.get<std::int64_t>() >= 0 ? json::value_t::number_unsigned : n.type());
    EXPECT_EQ(back.dump(), n.dump());
  }
}

TEST(NumberCodec, ADecimalTimeCostsLessThanItsDouble) {
  EXPECT_EQ(codec_bytes(12345.678901), 6u);  // the loadtest's "%.6f"
  EXPECT_EQ(codec_bytes(12.16), 3u);         // a GPU time in microseconds
}

std::vector<StoredRow> sample_rows() {
  std::vector<StoredRow> rows;
  for (int i = 0; i < 5; ++i) {
    StoredRow r;
    r.idx = 40 + i;
    r.repetition_index = i;
    r.repetitions = 5;
    r.iterations = 1;
    r.real_ns = 12160.0 + i * 32.000000000000004;
    r.cpu_ns = i == 2 ? std::optional<double>(3.48) : r.real_ns;
    r.time_unit = "us";
    r.label = "spirv:7ee3f9057fc10a53 stop:stable-median";
    r.counters = {{"bytes_per_second", 1.2e12 / (1 + i)}, {"median_us", 12.16}, {"samples", 2468.0}, {"groups", 1u}};
    if (i == 3) r.counters.erase("groups");
    rows.push_back(r);
  }
  StoredRow err;
  err.idx = 45;
  err.error = true;
  err.error_message = "pixel (3, 4) channel 1: 0.5 != 0.25";
  err.status = shaderwatch::contract::RowStatus::Fail;
  err.time_unit = "us";
  err.counters = {{"err_bound_ratio", 7.5}, {"check_retries", -2}};
  rows.push_back(err);
  for (const char* name : {"mean", "median", "cv"}) {
    StoredRow a;
    a.idx = rows.back().idx + 1;
    a.aggregate = true;
    a.aggregate_name = name;
    a.aggregate_unit = std::string(name) == "cv" ? "percentage" : "time";
    a.repetitions = 5;
    a.iterations = 5;
    a.real_ns = std::string(name) == "cv" ? 0.0031 : 12224.0;
    a.cpu_ns = -0.0;
    a.time_unit = "us";
    rows.push_back(a);
  }
  return rows;
}

void expect_same(const std::vector<StoredRow>& got, const std::vector<StoredRow>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    const StoredRow &g = got[i], &w = want[i];
    EXPECT_EQ(g.idx, w.idx);
    EXPECT_EQ(g.aggregate, w.aggregate);
    EXPECT_EQ(g.aggregate_name, w.aggregate_name);
    EXPECT_EQ(g.aggregate_unit, w.aggregate_unit);
    EXPECT_EQ(std::tie(g.repetition_index, g.repetitions, g.threads, g.iterations),
              std::tie(w.repetition_index, w.repetitions, w.threads, w.iterations));
    for (const auto& [a, b] : {std::pair(g.real_ns, w.real_ns), std::pair(g.cpu_ns, w.cpu_ns)}) {
      ASSERT_EQ(a.has_value(), b.has_value()) << i;
      if (a) {
        EXPECT_EQ(bits(*a), bits(*b)) << i;
      }
    }
    EXPECT_EQ(g.time_unit, w.time_unit);
    EXPECT_EQ(g.label, w.label);
    EXPECT_EQ(g.error, w.error);
    EXPECT_EQ(g.error_message, w.error_message);
    EXPECT_EQ(g.status, w.status);
    EXPECT_EQ(g.counters.dump(), w.counters.dump()) << i;
  }
}

TEST(PackedRows, EveryFieldOfEveryRowComesBack) {
  const auto rows = sample_rows();
  const auto p = shaderwatch::pack_rows(rows);
  EXPECT_EQ(p.first_idx, 40);
  expect_same(shaderwatch::unpack_rows(p.first_idx, p.shape, p.values), rows);
  // Without counters: the same rows, their counters empty.
  auto no_counters = rows;
  for (auto& r : no_counters) r.counters = json::object();
  expect_same(shaderwatch::unpack_rows(p.first_idx, p.shape, p.values, false), no_counters);
  // Another run of the suite, other times, the same everything else: the same shape, so stored once.
  auto again = rows;
  for (auto& r : again)
    if (r.real_ns && !r.aggregate) r.real_ns = *r.real_ns * 1.01, r.cpu_ns = r.cpu_ns == rows[0].cpu_ns ? r.real_ns : r.cpu_ns;
  again[2].cpu_ns = 3.5;
  for (auto& r : again) r.idx += 100;
  const auto q = shaderwatch::pack_rows(again);
  EXPECT_EQ(q.shape, p.shape);
  EXPECT_NE(q.values, p.values);
  expect_same(shaderwatch::unpack_rows(q.first_idx, q.shape, q.values), again);
}

// A shape alone gives every row but its numbers: what the verdict's skipped kernels and an alert's error read.
TEST(PackedRows, AShapeAloneGivesEveryRowButItsNumbers) {
  const auto rows = sample_rows();
  const auto p = shaderwatch::pack_rows(rows);
  auto numberless = rows;
  for (auto& r : numberless) {
    r.idx -= p.first_idx;
    r.real_ns.reset();
    r.cpu_ns.reset();
    r.counters = json::object();
  }
  ASSERT_TRUE(std::any_of(rows.begin(), rows.end(), [](const StoredRow& r) { return r.error; })) << "the sample has an error";
  expect_same(shaderwatch::shape_rows(p.shape), numberless);
  EXPECT_THROW(shaderwatch::shape_rows(p.shape.substr(0, 3)), shaderwatch::codec::Corrupt);
}

TEST(PackedRows, BytesThatAreNotAPackAreRefused) {
  const auto p = shaderwatch::pack_rows(sample_rows());
  using shaderwatch::codec::Corrupt;
  EXPECT_THROW(shaderwatch::unpack_rows(0, p.shape, p.values.substr(0, p.values.size() - 1)), Corrupt);
  EXPECT_THROW(shaderwatch::unpack_rows(0, p.shape, p.values + "x"), Corrupt);
  EXPECT_THROW(shaderwatch::unpack_rows(0, p.shape.substr(0, p.shape.size() / 2), p.values), Corrupt);
  std::string newer = p.shape;
  newer[0] = 2;
  EXPECT_THROW(shaderwatch::unpack_rows(0, newer, p.values), Corrupt);
  EXPECT_THROW(shaderwatch::pack_rows({}), std::invalid_argument);
}

TEST(PackedRows, APointsRepetitionsAreItsMeasuredIterationsOrElseItsMedianAggregate) {
  const auto rows = sample_rows();
  const auto reps = shaderwatch::repetition_times(rows);
  ASSERT_EQ(reps.size(), 5u) << "the error row and the aggregates are no repetitions";
  EXPECT_EQ(reps[1], *rows[1].real_ns);
  std::vector<StoredRow> aggregates_only(rows.begin() + 6, rows.end());
  EXPECT_EQ(shaderwatch::repetition_times(aggregates_only), std::vector<double>{12224.0}) << "the median";
  auto skipped = rows;
  for (auto& r : skipped) r.status = shaderwatch::contract::RowStatus::Xfail;
  EXPECT_TRUE(shaderwatch::repetition_times(skipped).empty()) << "expected outcomes make no point";
}

TEST(GbenchStatistics, AreGoogleBenchmarksOwnBitForBit) {
  std::mt19937_64 rng(55);
  int compared = 0;
  for (int t = 0; t < 20000; ++t) {
    const std::size_t n = 1 + rng() % (t % 10 == 0 ? 60 : 12);
    const double scale = std::ldexp(t % 3 == 0 ? -1.0 : 1.0, static_cast<int>(rng() % 80) - 40);
    std::vector<double> v(n);
    for (auto& x : v) x = scale * std::uniform_real_distribution<double>(t % 5 == 0 ? -1 : 1, 1.01)(rng);
    if (t % 7 == 0) v.back() = v.front();  // ties
    if (t % 11 == 0) v[rng() % n] = 0.0;   // zeros
    const std::pair<const char*, double (*)(const std::vector<double>&)> stats[] = {
        {"mean", benchmark::StatisticsMean}, {"median", benchmark::StatisticsMedian},
        {"stddev", benchmark::StatisticsStdDev}, {"cv", benchmark::StatisticsCV}};
    for (const auto& [name, theirs] : stats) {
      const auto ours = shaderwatch::gbench_statistic(name, v);
      ASSERT_TRUE(ours.has_value()) << name;
      ASSERT_EQ(bits(*ours), bits(theirs(v))) << name << " of " << n << " values";
      ++compared;
    }
  }
  EXPECT_EQ(compared, 80000);
  // A NaN (only a damaged pack's raw bytes hold one) sorts above every number: a median all the same, not a sort
  // with no order.
  EXPECT_EQ(*shaderwatch::gbench_statistic("median", {std::nan(""), 1.0, 2.0}), 2.0);
  EXPECT_EQ(*shaderwatch::gbench_statistic("median", {-std::nan(""), 1.0, 2.0}), 1.0);
  EXPECT_EQ(bits(*shaderwatch::gbench_statistic("median", {0.0, -0.0, 0.0, -0.0})), bits(0.0));
  EXPECT_FALSE(shaderwatch::gbench_statistic("p90", {1.0, 2.0}).has_value());
  EXPECT_FALSE(shaderwatch::gbench_statistic("mean", {}).has_value());
}

// gbench_seconds and gbench_time_aggregate against Google Benchmark's own report of a run (BenchmarkReporter::Run's
// GetAdjustedRealTime): a repetition's seconds found from its reported time report the same, and an aggregate of
// seconds, rescaled as ComputeStats does, is reported as gbench_time_aggregate says.
TEST(GbenchStatistics, TimeAggregatesAreReportedAsGoogleBenchmarkReportsThem) {
  const std::pair<benchmark::TimeUnit, double> units[] = {
      {benchmark::kNanosecond, 1e9}, {benchmark::kMicrosecond, 1e6}, {benchmark::kMillisecond, 1e3}, {benchmark::kSecond, 1.0}};
  std::mt19937_64 rng(8);
  for (int t = 0; t < 20000; ++t) {
    const auto [unit, multiplier] = units[t % 4];
    const auto iterations = static_cast<benchmark::IterationCount>(1 + rng() % (t % 3 == 0 ? 1000 : 3));
    const int repetitions = 2 + static_cast<int>(rng() % 10);
    std::vector<double> seconds;
    for (int i = 0; i < repetitions; ++i) {
      benchmark::BenchmarkReporter::Run run;
      run.time_unit = unit;
      run.iterations = iterations;
      run.real_accumulated_time = std::ldexp(1.0 + static_cast<double>(rng() % 1000000) / 1e6, -static_cast<int>(rng() % 30));
      const double reported = run.GetAdjustedRealTime();
      const auto back = shaderwatch::gbench_seconds(reported, multiplier, iterations);
      ASSERT_TRUE(back.has_value()) << reported;
      run.real_accumulated_time = *back;
      ASSERT_EQ(bits(run.GetAdjustedRealTime()), bits(reported));
      seconds.push_back(*back);
    }
    for (const char* name : {"mean", "median", "stddev"}) {
      benchmark::BenchmarkReporter::Run aggregate;  // as ComputeStats makes it
      aggregate.time_unit = unit;
      aggregate.iterations = repetitions;
      aggregate.real_accumulated_time = *shaderwatch::gbench_statistic(name, seconds) *
                                        (static_cast<double>(repetitions) / static_cast<double>(iterations));
      const auto ours = shaderwatch::gbench_time_aggregate(name, seconds, repetitions, iterations, multiplier, false);
      ASSERT_EQ(bits(*ours), bits(aggregate.GetAdjustedRealTime())) << name;
    }
    EXPECT_EQ(bits(*shaderwatch::gbench_time_aggregate("cv", seconds, repetitions, iterations, multiplier, true)),
              bits(*shaderwatch::gbench_statistic("cv", seconds)));
  }
  EXPECT_EQ(shaderwatch::gbench_unit_multiplier("us"), 1e6);
  EXPECT_FALSE(shaderwatch::gbench_unit_multiplier("min").has_value());
  EXPECT_FALSE(shaderwatch::gbench_seconds(std::nan(""), 1e6, 1).has_value());
}

// A real run's aggregate rows come back bit for bit, most of their numbers kept as a byte each: the ones Google
// Benchmark computed from the repetitions (its counters'); the rest (its times, from seconds before the unit's
// conversion) as their digits.
// One H200 run of the bench's default suite (86de8e8), as ingest stores it: each benchmark's rows.
std::vector<std::vector<StoredRow>> real_run_benchmarks() {
  const json doc = swt::read_fixture("real/h200-86de8e8-r1.json.gz");
  const json body = {{"run", {{"id", "r1"}, {"commit", "86de8e8"}, {"started_at", "2026-12-01T00:00:00Z"}}}, {"benchmark", doc}};
  const auto parsed = shaderwatch::parse_body(body.dump(), 64);
  std::map<std::string, std::vector<StoredRow>> by_name;
  for (const auto& r : parsed.rows) by_name[r.series_name].push_back(shaderwatch::stored_row(r));
  std::vector<std::vector<StoredRow>> benchmarks;
  for (auto& [name, rows] : by_name) benchmarks.push_back(std::move(rows));
  return benchmarks;
}

TEST(PackedRows, ARealRunsAggregatesComputedFromItsRepetitionsAreAByteEach) {
  const auto benchmarks = real_run_benchmarks();
  std::size_t aggregate_numbers = 0, derived = 0, value_bytes = 0, bytes_underived = 0;
  for (auto rows : benchmarks) {
    const auto p = shaderwatch::pack_rows(rows);
    expect_same(shaderwatch::unpack_rows(p.first_idx, p.shape, p.values), rows);
    for (const auto& r : rows)
      if (r.aggregate) aggregate_numbers += r.counters.size() + 2;
    derived += p.derived;
    value_bytes += p.values.size();
    // The same rows with statistics of names Google Benchmark does not have: every number as its digits.
    for (auto& r : rows)
      if (r.aggregate_name) *r.aggregate_name += "?";
    const auto underived = shaderwatch::pack_rows(rows);
    EXPECT_EQ(underived.derived, 0u);
    bytes_underived += underived.values.size();
  }
  ASSERT_GT(benchmarks.size(), 300u);
  // Measured: 20,306 of 28,804 derived (18,617 before the time aggregates from seconds); 73,958 bytes against
  // 168,456 (-56%); before rates and repeats of several rows a byte, 222,143 bytes against 298,397 (-26%).
  EXPECT_GT(derived, aggregate_numbers * 6 / 10) << derived << " of " << aggregate_numbers << " derived";
  EXPECT_LT(value_bytes, bytes_underived * 8 / 10) << value_bytes << " bytes against " << bytes_underived;
}

TEST(PackedRows, ADerivedValueIsKeptOnlyWhereItIsTheStatisticBitForBit) {
  std::vector<StoredRow> rows;
  for (const double t : {10.5, 11.25, 12.0}) {
    StoredRow r;
    r.idx = rows.size();
    r.real_ns = t;
    r.counters = {{"rate", t * 3}, {"count", 7}};
    rows.push_back(r);
  }
  const auto aggregate = [&](const char* name, double real, json counters) {
    StoredRow a;
    a.idx = rows.size();
    a.aggregate = true;
    a.aggregate_name = name;
    a.real_ns = real;
    a.counters = std::move(counters);
    rows.push_back(a);
  };
  const double mean = *shaderwatch::gbench_statistic("mean", {10.5, 11.25, 12.0});
  aggregate("mean", mean, {{"rate", *shaderwatch::gbench_statistic("mean", {31.5, 33.75, 36.0})}, {"count", 7}});
  aggregate("p90", mean, {{"rate", 1.0}, {"count", 7.0}});  // the mean's time again, after a derived one: no repeat
  aggregate("p95", mean, {{"rate", 1.0}, {"count", 7.0}});  // after stored digits: a repeat
  aggregate("median", std::nextafter(11.25, 99.0), {{"rate", 33.75}, {"count", 7.0}});  // an ulp off: digits
  // An integer mean of integer repetitions (the third has none): kept as posted, an integer, though the statistic
  // gives its value.
  rows[0].counters["whole"] = 6;
  rows[1].counters["whole"] = 8;
  rows[3].counters["whole"] = 7;
  const auto p = shaderwatch::pack_rows(rows);
  EXPECT_EQ(p.derived, 3u) << "the mean's time and rate, the median's rate; not an integer, a p90 or a value an ulp off";
  const auto back = shaderwatch::unpack_rows(p.first_idx, p.shape, p.values);
  expect_same(back, rows);
  EXPECT_TRUE(back[3].counters["count"].is_number_integer()) << "an aggregate's integer stays an integer";
  EXPECT_TRUE(back[3].counters["rate"].is_number_float());
  EXPECT_TRUE(back[3].counters["whole"].is_number_integer());
  // A derived byte where the row is a repetition is no pack: two repetitions' times, the first made derived.
  StoredRow a, b;
  a.real_ns = 5.0;
  b.idx = 1;
  b.real_ns = 6.0;
  const auto two = shaderwatch::pack_rows({a, b});
  std::string stored, derived_first;
  shaderwatch::codec::put_double(stored, 5.0);
  shaderwatch::codec::put_double(stored, 6.0);
  ASSERT_EQ(two.values, stored);
  shaderwatch::codec::put_derived(derived_first);
  shaderwatch::codec::put_double(derived_first, 6.0);
  EXPECT_THROW(shaderwatch::unpack_rows(0, two.shape, derived_first), shaderwatch::codec::Corrupt);
}

// A benchmark's mean, median, stddev and cv, each Google Benchmark's statistic of its repetitions bit for bit, are one
// byte for the four. One that is not (the median an ulp off) splits them: a byte before it, its digits, a byte after.
TEST(PackedRows, AggregatesDerivedOneAfterAnotherAreOneByteForThemAll) {
  const std::vector<double> times = {10.5, 11.25, 12.0, 10.75, 11.5};
  std::vector<StoredRow> rows;
  for (const double t : times) {
    StoredRow r;
    r.idx = rows.size();
    r.real_ns = t;
    rows.push_back(r);
  }
  for (const char* name : {"mean", "median", "stddev", "cv"}) {
    StoredRow a;
    a.idx = rows.size();
    a.aggregate = true;
    a.aggregate_name = name;
    a.real_ns = *shaderwatch::gbench_statistic(name, times);
    rows.push_back(a);
  }
  std::string repetitions;
  for (const double t : times) shaderwatch::codec::put_double(repetitions, t);
  const auto together = shaderwatch::pack_rows(rows);
  EXPECT_EQ(together.derived, 4u);
  EXPECT_EQ(together.values.size(), repetitions.size() + 1);
  expect_same(shaderwatch::unpack_rows(together.first_idx, together.shape, together.values), rows);

  rows[6].real_ns = std::nextafter(*rows[6].real_ns, 99.0);
  std::string median;
  shaderwatch::codec::put_double(median, *rows[6].real_ns);
  const auto split = shaderwatch::pack_rows(rows);
  EXPECT_EQ(split.derived, 3u);
  EXPECT_EQ(split.values.size(), repetitions.size() + 1 + median.size() + 1);
  expect_same(shaderwatch::unpack_rows(split.first_idx, split.shape, split.values), rows);

  // A derived byte for more rows than the column has left, or reaching back over a repetition, is no pack.
  std::string past_the_end = repetitions, over_a_repetition;
  shaderwatch::codec::put_derived(past_the_end, 5);
  EXPECT_THROW(shaderwatch::unpack_rows(0, together.shape, past_the_end), shaderwatch::codec::Corrupt);
  for (std::size_t i = 0; i + 1 < times.size(); ++i) shaderwatch::codec::put_double(over_a_repetition, times[i]);
  shaderwatch::codec::put_derived(over_a_repetition, 2);
  shaderwatch::codec::put_derived(over_a_repetition, 3);
  EXPECT_THROW(shaderwatch::unpack_rows(0, together.shape, over_a_repetition), shaderwatch::codec::Corrupt);
}

// Google Benchmark computes a time aggregate from its repetitions' seconds, then reports it in the unit: its stddev
// of clock-timed repetitions is mostly not the stddev of the reported times, bit for bit, but is that of the seconds
// each reported time gives back. Such a column keeps its aggregates as one derived byte all the same.
TEST(PackedRows, ATimeAggregateIsDerivedFromItsRepetitionsSeconds) {
  const auto reading = [](std::int64_t ns) {  // benchmark's MakeTime(struct timespec)
    return static_cast<double>(ns / 1000000000) + static_cast<double>(ns % 1000000000) * 1e-9;
  };
  std::mt19937_64 rng(3);
  std::size_t seconds_only = 0;
  for (int trial = 0; trial < 50; ++trial) {
    const int repetitions = 10;
    const std::int64_t iterations = 1 + trial % 3;  // the seconds of several iterations, reported per iteration
    std::vector<double> seconds;
    std::vector<StoredRow> rows;
    for (int i = 0; i < repetitions; ++i) {
      const auto start = static_cast<std::int64_t>(rng() % 4000000000000ull);
      seconds.push_back(reading(start + 400 + static_cast<std::int64_t>(rng() % 300)) - reading(start));
      StoredRow r;
      r.idx = i;
      r.repetition_index = i;
      r.repetitions = repetitions;
      r.iterations = iterations;
      r.time_unit = "us";
      r.real_ns = seconds.back() * 1e6 / static_cast<double>(iterations) * 1e3;  // reported in us, kept in ns
      rows.push_back(r);
    }
    std::vector<double> times_ns;
    for (const auto& r : rows) times_ns.push_back(*r.real_ns);
    for (const char* name : {"mean", "median", "stddev", "cv"}) {
      const bool percentage = std::string(name) == "cv";
      StoredRow a;
      a.idx = static_cast<std::int64_t>(rows.size());
      a.aggregate = true;
      a.aggregate_name = name;
      a.aggregate_unit = percentage ? "percentage" : "time";
      a.repetitions = repetitions;
      a.iterations = repetitions;
      a.time_unit = "us";
      // statistics.cc's ComputeStats, then reporter.cc's GetAdjustedRealTime, as Google Benchmark reports it.
      const double statistic = *shaderwatch::gbench_statistic(name, seconds);
      a.real_ns = percentage ? statistic
                             : statistic * (static_cast<double>(repetitions) / static_cast<double>(iterations)) * 1e6 /
                                   static_cast<double>(repetitions) * 1e3;
      const std::optional<double> of_times = shaderwatch::gbench_statistic(name, times_ns);
      seconds_only += !percentage && bits(*of_times) != bits(*a.real_ns);
      rows.push_back(a);
    }
    const auto p = shaderwatch::pack_rows(rows);
    EXPECT_EQ(p.derived, 4u) << "trial " << trial;
    expect_same(shaderwatch::unpack_rows(p.first_idx, p.shape, p.values), rows);
  }
  // The statistics of the reported times miss many of them: the seconds are what derives them.
  EXPECT_GT(seconds_only, 50u);
}

// Google Benchmark's rate counters (SetBytesProcessed, SetItemsProcessed) are a count over the run's seconds;
// its real time is those seconds in the time unit. Each repetition's rates are a byte after the benchmark's first.
TEST(PackedRows, ARealRunsRatesAreAByteEachAfterTheFirst) {
  std::size_t rate_counters = 0, rates = 0, value_bytes = 0, bytes_without = 0;
  for (auto rows : real_run_benchmarks()) {
    const auto p = shaderwatch::pack_rows(rows);
    expect_same(shaderwatch::unpack_rows(p.first_idx, p.shape, p.values), rows);
    for (const auto& r : rows)
      if (!r.aggregate) rate_counters += r.counters.count("bytes_per_second") + r.counters.count("items_per_second");
    rates += p.rates;
    value_bytes += p.values.size();
    // The same rows with no iteration count: no time in seconds, so every rate as its digits.
    for (auto& r : rows) r.iterations = 0;
    const auto without = shaderwatch::pack_rows(rows);
    EXPECT_EQ(without.rates, 0u);
    bytes_without += without.values.size();
  }
  ASSERT_GT(rate_counters, 6000u);
  // Measured: 6,786 of the 6,800 repetitions' rates (the others repeat the value before them), 121,074 bytes
  // against 165,524 (-27%; before products of a power of ten, 125,382 against 169,890; before repeats of several
  // rows a byte, 177,455 against 222,143).
  EXPECT_GT(rates, rate_counters * 99 / 100) << rates << " of " << rate_counters;
  EXPECT_LT(value_bytes, bytes_without * 85 / 100) << value_bytes << " bytes against " << bytes_without;
}

// The bench's durations come as an integer times a power of ten (135360 * 1e-4 us is 13.536000000000001, 17
// digits): such a number is kept as the integer, a few bytes, not as a raw double's nine.
TEST(NumberCodec, AProductOfAnIntegerAndAPowerOfTenIsTheIntegersBytes) {
  EXPECT_EQ(bits(135360 * 1e-4), bits(13.536000000000001));  // a real run's GPU time in us
  EXPECT_EQ(codec_bytes(135360 * 1e-4), 4u);
  EXPECT_EQ(codec_bytes(-135360 * 1e-4), 4u);
  EXPECT_EQ(codec_bytes(9175370600 * 1e-8), 6u);  // 91.75370600000001 ms
  EXPECT_EQ(codec_bytes(10 * std::sqrt(2.0)), 9u);  // no product of an integer, no whole nanoseconds: raw
  std::mt19937_64 rng(11);
  const double powers[] = {1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10, 1e-11, 1e-12, 1e-13, 1e-14, 1e-15, 1e-16};
  for (int i = 0; i < 100000; ++i) {
    const auto k = static_cast<double>(rng() % 100000000000ull);
    const double v = (i % 2 ? -k : k) * powers[i % 16];
    EXPECT_LE(codec_bytes(v), 9u);
  }
}

// Google Benchmark's CPU time is the difference of two process-clock readings, each tv_sec + tv_nsec * 1e-9 in
// seconds, times the unit's 1e6 (us): 0.47500000022182576 us. Its digits are the clocks' rounding, but it is the
// multiple of its last bit nearest its whole nanoseconds, or one off it, and is kept as those nanoseconds.
TEST(NumberCodec, ATimeReadOnANanosecondClockIsItsNanoseconds) {
  EXPECT_EQ(codec_bytes(0.47500000022182576), 4u);  // a real run's CPU times in us (lum/interleaved_256/1280x720/hot)
  EXPECT_EQ(codec_bytes(3.480999999361245), 4u);
  const auto reading = [](std::int64_t sec, std::int64_t nsec) {  // benchmark's MakeTime(struct timespec)
    return static_cast<double>(sec) + static_cast<double>(nsec) * 1e-9;
  };
  std::mt19937_64 rng(5);
  std::size_t short_ones = 0, n = 0;
  for (const double unit : {1e0, 1e3, 1e6, 1e9}) {
    for (int i = 0; i < 25000; ++i, ++n) {
      const std::int64_t start = static_cast<std::int64_t>(rng() % 4000000000000ull);  // up to an hour in, in ns
      const std::int64_t took = 1 + static_cast<std::int64_t>(rng() % 100000000ull);   // up to 0.1 s
      const std::int64_t end = start + took;
      const double seconds = reading(end / 1000000000, end % 1000000000) - reading(start / 1000000000, start % 1000000000);
      const std::size_t bytes = codec_bytes(seconds * unit);
      EXPECT_LE(bytes, 9u);
      short_ones += bytes <= 2 + 4;  // a header, the exponent and up to 2^28 ns (0.27 s)
    }
  }
  EXPECT_GE(short_ones, n * 99 / 100);
  // A double near no whole nanosecond, and values of every sign and size, read back.
  EXPECT_EQ(codec_bytes(1.2345678901234567e-7), 9u);
  for (int i = 0; i < 100000; ++i) {
    double v;
    const std::uint64_t b = rng();
    std::memcpy(&v, &b, sizeof v);
    if (std::isfinite(v)) codec_bytes(v);
  }
}

// A real run's durations that are products (most GPU times in us and ms that are not short decimals) cost their
// counts' bytes: the run's values took 125,382 bytes before, 121,074 with products (-3.4%), 118,424 with the times
// kept in their posted units as well (-5.5%), 99,480 with its CPU times, raw doubles before, kept as nanoseconds
// (-20.7%), 87,720 with a benchmark's derived aggregates a byte for all four (-30.0%), 73,958 with time aggregates
// derived from the repetitions' seconds as Google Benchmark computes them (-41.0%).
TEST(PackedRows, ARealRunsDurationsAreTheirCountsNotRawDoubles) {
  std::size_t value_bytes = 0;
  for (const auto& rows : real_run_benchmarks()) {
    const auto p = shaderwatch::pack_rows(rows);
    expect_same(shaderwatch::unpack_rows(p.first_idx, p.shape, p.values), rows);
    value_bytes += p.values.size();
  }
  EXPECT_LE(value_bytes, 73958u);
}

// A time is kept in its row's posted unit where every row's reads back from it bit for bit: 13.536000000000001 us
// (135360 * 1e-4, 4 bytes) rather than 13536.000000000002 ns (1353600000 * 1e-5, 6). Rows of other units in one column, a repeat
// across two units and a time that its unit does not give back each come back as they were.
TEST(PackedRows, ATimeIsKeptInItsRowsUnitWhereThatGivesItBack) {
  std::vector<StoredRow> rows;
  for (int i = 0; i < 6; ++i) {
    StoredRow r;
    r.idx = i;
    r.repetition_index = i;
    r.repetitions = 6;
    r.iterations = 1;
    r.time_unit = "us";
    r.real_ns = (135360 + 320 * (i % 4)) * 1e-4 * 1e3;  // as ingest turns posted microseconds into ns
    r.cpu_ns = (3000 + i) * 0.001 * 1e3;
    rows.push_back(r);
  }
  rows[5].time_unit = "ms";  // the same ns as row 4 (13536.000000000002) in another unit: no repeat of its bytes
  rows[5].real_ns = rows[4].real_ns;
  rows[5].cpu_ns = rows[4].cpu_ns;
  StoredRow cv;  // a ratio: its unit's scale is 1 whatever its time_unit
  cv.idx = 6;
  cv.aggregate = true;
  cv.aggregate_name = "cv?";  // no statistic Google Benchmark names: kept as its digits
  cv.aggregate_unit = "percentage";
  cv.repetitions = 6;
  cv.time_unit = "us";
  cv.real_ns = 0.0123;
  rows.push_back(cv);
  ASSERT_EQ(bits(*rows[0].real_ns), bits(13536.000000000002));
  const auto in_units = shaderwatch::pack_rows(rows);
  expect_same(shaderwatch::unpack_rows(in_units.first_idx, in_units.shape, in_units.values), rows);

  // The first five rows (in us): each time costs its number's bytes in us, not in ns (13.536000000000001 4 bytes,
  // 13536.000000000002 6, as 1353600000 * 1e-5).
  const std::vector<StoredRow> in_us(rows.begin(), rows.begin() + 5);
  auto as_ns = in_us;
  for (auto& r : as_ns) r.time_unit = "ns";
  const auto us_pack = shaderwatch::pack_rows(in_us), ns_pack = shaderwatch::pack_rows(as_ns);
  expect_same(shaderwatch::unpack_rows(ns_pack.first_idx, ns_pack.shape, ns_pack.values), as_ns);
  const auto bytes = [](double v) { return static_cast<long>(codec_bytes(v)); };
  long saved = 0;
  for (const auto& r : in_us) saved += bytes(*r.real_ns) - bytes(*r.real_ns / 1e3) + bytes(*r.cpu_ns) - bytes(*r.cpu_ns / 1e3);
  EXPECT_EQ(bytes(*in_us[0].real_ns / 1e3), 4);
  EXPECT_EQ(bytes(*in_us[0].real_ns), 6);
  EXPECT_EQ(static_cast<long>(ns_pack.values.size()) - static_cast<long>(us_pack.values.size()), saved);

  // A time that its unit does not give back (ns / 1e3 * 1e3 != ns): the whole column is kept in ns.
  const double odd = 16124.524647827;
  ASSERT_NE(bits(odd / 1e3 * 1e3), bits(odd));
  auto with_odd = rows;
  with_odd[2].real_ns = odd;
  const auto p = shaderwatch::pack_rows(with_odd);
  expect_same(shaderwatch::unpack_rows(p.first_idx, p.shape, p.values), with_odd);
}

TEST(PackedRows, ARateIsKeptOnlyWhereItGivesTheCounterBitForBit) {
  // As Google Benchmark reports a repetition of manual time `seconds` in microseconds, which ingest keeps in ns.
  const double bytes = 33177600.0;
  std::vector<StoredRow> rows;
  for (const double ticks : {12192.0, 12128.0, 12160.0}) {
    const double seconds = ticks * 1e-9;
    StoredRow r;
    r.idx = rows.size();
    r.iterations = 1;
    r.real_ns = seconds * 1e6 * 1e3;
    r.counters = {{"bytes_per_second", bytes / seconds}, {"whole", 100}, {"near", bytes / seconds * (1 + 1e-9)}};
    rows.push_back(r);
  }
  // An aggregate and a repetition with an error, each holding the same count over its own seconds as the rates
  // before it (which would be a byte): an aggregate's own rate is its digits, and an error row has no measured time.
  const auto same_count = [&](const StoredRow& r) {
    return bytes / (*r.real_ns / 1e9 * static_cast<double>(r.iterations));
  };
  StoredRow p90;
  p90.idx = 3;
  p90.aggregate = true;
  p90.aggregate_name = "p90";  // no statistic derives it
  p90.real_ns = *rows[0].real_ns;
  p90.iterations = 3;
  p90.counters = {{"bytes_per_second", same_count(p90)}};
  rows.push_back(p90);
  StoredRow failed = rows[1];
  failed.idx = 4;
  failed.error = true;
  failed.counters["bytes_per_second"] = same_count(failed);
  rows.push_back(failed);
  auto p = shaderwatch::pack_rows(rows);
  EXPECT_EQ(p.rates, 3u) << "the repetitions' bytes_per_second; not an integer, a value near them, an aggregate or an error";
  auto back = shaderwatch::unpack_rows(p.first_idx, p.shape, p.values);
  expect_same(back, rows);
  EXPECT_TRUE(back[0].counters["whole"].is_number_integer());
  // Integers that are one whole count (2^41) over their rows' seconds (0.5 and 1 s), in fewer bytes as a rate than
  // as digits: never a rate, so still integers.
  std::vector<StoredRow> slow(2);
  for (std::size_t i = 0; i < 2; ++i) {
    slow[i].idx = static_cast<std::int64_t>(i);
    slow[i].iterations = 1;
    slow[i].real_ns = 5e8 * static_cast<double>(i + 1);
    slow[i].counters = {{"whole", (std::int64_t{1} << 42) >> i}};
  }
  const auto whole = shaderwatch::pack_rows(slow);
  EXPECT_EQ(whole.rates, 0u);
  const auto whole_back = shaderwatch::unpack_rows(whole.first_idx, whole.shape, whole.values);
  expect_same(whole_back, slow);
  EXPECT_TRUE(whole_back[1].counters["whole"].is_number_integer());
  // The same count again costs a byte: the repetitions with their rates alone are their times' digits, the
  // first rate with its count, and a byte each for the others.
  std::vector<StoredRow> reps(rows.begin(), rows.begin() + 3);
  std::string times, first_rate;
  for (auto& r : reps) {
    r.counters = {{"bytes_per_second", r.counters["bytes_per_second"]}};
    shaderwatch::codec::put_double(times, *r.real_ns);
  }
  shaderwatch::codec::put_rate(first_rate, {0, 33177600u});
  const auto alone = shaderwatch::pack_rows(reps);
  EXPECT_EQ(alone.rates, 3u);
  EXPECT_EQ(alone.values.size(), times.size() + first_rate.size() + 2);
  expect_same(shaderwatch::unpack_rows(alone.first_idx, alone.shape, alone.values), reps);

  // A rate that takes the count of a rate before it, with none before it, is no pack; nor a rate for a time.
  StoredRow a, b;
  a.iterations = b.iterations = 1;
  b.idx = 1;
  a.real_ns = 5000.0;
  b.real_ns = 6000.0;
  a.counters = {{"r", 1.0}};
  b.counters = {{"r", 2.0}};
  const auto two = shaderwatch::pack_rows({a, b});
  EXPECT_EQ(two.rates, 0u);
  std::string again_first, rate_for_time;
  shaderwatch::codec::put_double(again_first, 5000.0);
  shaderwatch::codec::put_double(again_first, 6000.0);
  shaderwatch::codec::put_rate(again_first, {0, std::nullopt});
  shaderwatch::codec::put_double(again_first, 2.0);
  EXPECT_THROW(shaderwatch::unpack_rows(0, two.shape, again_first), shaderwatch::codec::Corrupt);
  shaderwatch::codec::put_rate(rate_for_time, {0, 5u});
  shaderwatch::codec::put_double(rate_for_time, 6000.0);
  shaderwatch::codec::put_double(rate_for_time, 1.0);
  shaderwatch::codec::put_double(rate_for_time, 2.0);
  EXPECT_THROW(shaderwatch::unpack_rows(0, two.shape, rate_for_time), shaderwatch::codec::Corrupt);
  // Nor a rate of count 0, nor a CPU time kept as a rate (the times' columns hold none).
  std::string count_zero;
  for (const double v : {5000.0, 6000.0}) shaderwatch::codec::put_double(count_zero, v);
  shaderwatch::codec::put_rate(count_zero, {0, 0u});
  shaderwatch::codec::put_double(count_zero, 2.0);
  EXPECT_THROW(shaderwatch::unpack_rows(0, two.shape, count_zero), shaderwatch::codec::Corrupt);
  StoredRow c = a, d = b;
  c.cpu_ns = 1.0;
  d.cpu_ns = 2.0;
  const auto with_cpu = shaderwatch::pack_rows({c, d});
  std::string cpu_rate;
  for (const double v : {5000.0, 6000.0}) shaderwatch::codec::put_double(cpu_rate, v);
  shaderwatch::codec::put_rate(cpu_rate, {0, 1u});
  shaderwatch::codec::put_double(cpu_rate, 2.0);
  for (const double v : {1.0, 2.0}) shaderwatch::codec::put_double(cpu_rate, v);
  std::string cpu_digits;
  for (const double v : {5000.0, 6000.0, 1.0, 2.0, 1.0, 2.0}) shaderwatch::codec::put_double(cpu_digits, v);
  EXPECT_EQ(with_cpu.values, cpu_digits);
  EXPECT_THROW(shaderwatch::unpack_rows(0, with_cpu.shape, cpu_rate), shaderwatch::codec::Corrupt);
  std::string well_formed;  // the same bytes with the counter's digits read back: the hand-made packs are packs
  for (const double v : {5000.0, 6000.0, 1.0, 2.0}) shaderwatch::codec::put_double(well_formed, v);
  EXPECT_EQ(well_formed, two.values);
}

// A counter that holds one value over a benchmark's repetitions (the clocks, the sample count, the error ratio)
// costs its digits once and one byte for every other row that holds it, up to codec::kMaxRepeat rows a byte.
TEST(PackedRows, AValueHeldOverRowsIsOneByteForThemAll) {
  // n repetitions holding 2.5, then an aggregate of another name holding 4.0 (a column of one value is kept once).
  const auto rows_holding = [](std::size_t n, bool with_counter) {
    std::vector<StoredRow> rows;
    for (std::size_t i = 0; i <= n; ++i) {
      StoredRow r;
      r.idx = static_cast<std::int64_t>(i);
      r.real_ns = 1000.0 + static_cast<double>(i);
      if (with_counter) r.counters = {{"held", i < n ? 2.5 : 4.0}};
      if (i == n) {
        r.aggregate = true;
        r.aggregate_name = "p90";
      }
      rows.push_back(r);
    }
    return rows;
  };
  std::string digits;
  shaderwatch::codec::put_double(digits, 2.5);
  shaderwatch::codec::put_double(digits, 4.0);
  for (const std::size_t n : {std::size_t{2}, std::size_t{10}, shaderwatch::codec::kMaxRepeat + 1,
                              shaderwatch::codec::kMaxRepeat + 6}) {
    const auto rows = rows_holding(n, true);
    const auto p = shaderwatch::pack_rows(rows);
    expect_same(shaderwatch::unpack_rows(p.first_idx, p.shape, p.values), rows);
    const auto without = shaderwatch::pack_rows(rows_holding(n, false));
    const std::size_t repeat_bytes = n - 1 > shaderwatch::codec::kMaxRepeat ? 2 : 1;
    EXPECT_EQ(p.values.size() - without.values.size(), digits.size() + repeat_bytes) << n << " rows";
  }
  // Between repetitions that hold it, a row of another value: the run stops there and starts again.
  auto rows = rows_holding(6, true);
  rows[3].counters["held"] = 3.0;
  const auto p = shaderwatch::pack_rows(rows);
  expect_same(shaderwatch::unpack_rows(p.first_idx, p.shape, p.values), rows);
  // A repeat byte for more rows than the column has left is no pack.
  const auto two = shaderwatch::pack_rows(rows_holding(2, true));
  std::string past_the_end;
  for (const double v : {1000.0, 1001.0, 1002.0, 2.5}) shaderwatch::codec::put_double(past_the_end, v);
  std::string well_formed = past_the_end;
  shaderwatch::codec::put_repeat(well_formed);
  shaderwatch::codec::put_double(well_formed, 4.0);
  EXPECT_EQ(well_formed, two.values);
  shaderwatch::codec::put_repeat(past_the_end, 3);
  EXPECT_THROW(shaderwatch::unpack_rows(0, two.shape, past_the_end), shaderwatch::codec::Corrupt);
  EXPECT_THROW(shaderwatch::codec::put_repeat(past_the_end, shaderwatch::codec::kMaxRepeat + 1), std::invalid_argument);
}

// A database written a row at a time (schema 8) is packed at start, and answers every query as before: runs of
// the bench's current format with its counters, an older format's, aggregates, alerts and verdicts.
TEST(PackedRows, TheMigrationFromRowsChangesNoAnswer) {
  swt::TempDir dir;
  const std::string db = dir.db("rows.db");
  std::vector<std::string> paths = {"/api/v1/runs?limit=1000", "/api/v1/alerts?limit=500", "/api/v1/summary",
                                    "/api/v1/correctness", "/api/v1/series?limit=1000"};
  std::map<std::string, json> before;
  {
    swt::TestServer s(db);
    std::vector<std::string> ids;
    for (const char* f : {"real/h200-86de8e8-r1.json.gz", "real/h200-86de8e8-r2.json.gz", "real/h200-run1.json"}) {
      const std::string id = cat("real-", std::to_string(ids.size()));
      auto r = s.post(swt::wrap(swt::read_fixture(f).dump(), id, cat("c", std::to_string(ids.size())),
                                cat("2026-01-0", std::to_string(ids.size() + 1), "T00:00:00Z")));
      ASSERT_TRUE(r);
      ASSERT_EQ(r->status, 201) << r->body;
      ids.push_back(id);
    }
    for (int i = 0; i < 12; ++i) {
      const double level = i < 8 ? 1e5 : 1.3e5;  // a regression at run 8
      const std::string id = cat("syn-", std::to_string(i));
      auto r = s.post(swt::wrap(swt::make_doc({}, {{"a/b/1/cold", {level, level * 1.001, level * 0.999}},
                                                   {"a/c/1/cold", {2e5, 2.001e5, 1.999e5}}}).dump(),
                                id, cat("s", std::to_string(i)), cat("2026-02-", i < 9 ? "0" : "", std::to_string(i + 1), "T00:00:00Z")));
      ASSERT_TRUE(r);
      ASSERT_EQ(r->status, 201) << r->body;
      ids.push_back(id);
    }
    for (const auto& id : ids)
      for (const char* tail : {"", "/results?limit=10000", "/results?run_type=aggregate", "/verdict?dashboard=http%3A%2F%2Fdash.example"})
        paths.push_back(cat("/api/v1/runs/", id, tail));
    paths.push_back("/api/v1/compare?base=real-0&contender=real-1");
    const json series = s.get("/api/v1/series?limit=1000")["series"];
    for (std::size_t i = 0; i < series.size(); i += 50)
      paths.push_back(cat("/api/v1/series/", std::to_string(series[i]["id"].get<std::int64_t>())));
    for (const auto& p : paths) before[p] = s.get(p);
    ASSERT_FALSE(before["/api/v1/alerts?limit=500"]["alerts"].empty()) << "the history has an alert";
  }
  {
    auto c = shaderwatch::sql::connect(shaderwatch::sql::Location::parse(db), shaderwatch::sql::Role::Writer);
    swt::set_back_to_schema(*c, 8);
    auto& st = c->q("SELECT COUNT(*) FROM results");
    ASSERT_TRUE(st.step());
    EXPECT_GT(st.i64(0), 9000) << "the rows are rows again";
    st.reset();
  }
  swt::TestServer s(db, {}, false);
  for (const auto& p : paths) EXPECT_TRUE(s.get(p) == before[p]) << p;
  auto c = shaderwatch::sql::connect(shaderwatch::sql::Location::parse(db), shaderwatch::sql::Role::Reader);
  EXPECT_THROW(c->q("SELECT COUNT(*) FROM results").run(), shaderwatch::sql::Error) << "the table of rows is gone";
}

}  // namespace
