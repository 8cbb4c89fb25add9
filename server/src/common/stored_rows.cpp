#include "common/stored_rows.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>

#include "common/gbench_statistics.h"
#include "common/number_codec.h"

namespace shaderwatch {

namespace {

using codec::Corrupt;
using nlohmann::json;

constexpr unsigned char kShapeVersion = 1;
// A row's flags in its shape.
constexpr unsigned char kAggregate = 1, kHasAggregateName = 2, kError = 4;
// How a column of numbers is kept: nowhere (no row has it), once (every row that has it holds the same), once
// per row that has it, (CPU time only) not at all because it equals the real time on every row, or (times only)
// once per row in the row's posted unit: 13.536000000000001 us, a product number_codec keeps as 135360 in 4 bytes,
// is 13536.000000000002 ns, 1353600000 * 1e-5 in 6 (and many such times are no product in ns, 9 bytes raw); or
// (times only) so, with a derived value computed as Google Benchmark computes a time aggregate, from the repetitions'
// seconds (gbench_time_aggregate) rather than from their times.
enum class Mode : unsigned char { Absent = 0, Once = 1, PerRow = 2, AsReal = 3, PerRowInUnit = 4, PerRowBySeconds = 5 };
bool per_row(Mode m) { return m == Mode::PerRow || m == Mode::PerRowInUnit || m == Mode::PerRowBySeconds; }
bool in_unit(Mode m) { return m == Mode::PerRowInUnit || m == Mode::PerRowBySeconds; }

void put_zigzag(std::string& out, std::int64_t v) {
  codec::put_varint(out, (static_cast<std::uint64_t>(v) << 1) ^ static_cast<std::uint64_t>(v >> 63));
}
std::int64_t get_zigzag(std::string_view& in) {
  const auto u = codec::get_varint(in);
  return static_cast<std::int64_t>(u >> 1) ^ -static_cast<std::int64_t>(u & 1);
}
void put_text(std::string& out, std::string_view s) {
  codec::put_varint(out, s.size());
  out.append(s);
}
std::string_view get_view(std::string_view& in) {
  const auto n = codec::get_varint(in);
  if (n > in.size()) throw Corrupt("a packed text ends early");
  const std::string_view s = in.substr(0, n);
  in.remove_prefix(n);
  return s;
}
std::string get_text(std::string_view& in) { return std::string(get_view(in)); }
unsigned char get_byte(std::string_view& in) {
  if (in.empty()) throw Corrupt("a row shape ends early");
  const auto b = static_cast<unsigned char>(in.front());
  in.remove_prefix(1);
  return b;
}

// A column: which rows have a value (all of them, or the listed ones) and how the values are kept.
struct Column {
  Mode mode = Mode::Absent;
  std::vector<std::size_t> rows;  // the rows that have a value, in order
};

template <class Get, class Same>
Column column_of(std::size_t n_rows, Get has, Same same) {
  Column c;
  for (std::size_t i = 0; i < n_rows; ++i)
    if (has(i)) c.rows.push_back(i);
  if (c.rows.empty()) return c;
  c.mode = Mode::Once;
  for (std::size_t k = 1; k < c.rows.size(); ++k)
    if (!same(c.rows[0], c.rows[k])) c.mode = Mode::PerRow;
  return c;
}

void put_column(std::string& shape, const Column& c, std::size_t n_rows) {
  shape.push_back(static_cast<char>(c.mode));
  if (c.mode == Mode::Absent) return;
  if (c.rows.size() == n_rows) return codec::put_varint(shape, 0);  // every row
  codec::put_varint(shape, c.rows.size());
  for (const auto r : c.rows) codec::put_varint(shape, r);
}
Column get_column(std::string_view& shape, std::size_t n_rows) {
  Column c;
  const auto mode = get_byte(shape);
  if (mode > static_cast<unsigned char>(Mode::PerRowBySeconds)) throw Corrupt("a row shape has column mode " + std::to_string(mode));
  c.mode = static_cast<Mode>(mode);
  if (c.mode == Mode::Absent) return c;
  const auto n = codec::get_varint(shape);
  if (n > n_rows) throw Corrupt("a row shape's column names more rows than it has");
  if (n == 0) {
    for (std::size_t i = 0; i < n_rows; ++i) c.rows.push_back(i);
  } else {
    for (std::uint64_t k = 0; k < n; ++k) {
      const auto r = codec::get_varint(shape);
      if (r >= n_rows) throw Corrupt("a row shape's column names row " + std::to_string(r) + " of " + std::to_string(n_rows));
      c.rows.push_back(r);
    }
  }
  return c;
}

// Bitwise sameness: 0.0 and -0.0 differ, a NaN equals itself.
bool same_double(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// The rows whose numbers make an aggregate's sample, as Google Benchmark's are its runs without an error.
bool is_repetition(const StoredRow& r) { return !r.aggregate && !r.error; }

// The statistic an aggregate row's value would be if Google Benchmark computed it from `sample` (the column's
// repetitions before it); none for another row.
std::optional<double> derived_value(const StoredRow& r, const std::vector<double>& sample) {
  if (!r.aggregate || r.error || !r.aggregate_name) return std::nullopt;
  return gbench_statistic(*r.aggregate_name, sample);
}

// The same for a time column of mode PerRowBySeconds, in ns: the aggregate as Google Benchmark reports it in row r's
// unit, from the seconds of the column's repetitions before it, then in ns as ingest keeps it. One per column pass:
// it finds each repetition's seconds once, as the sample grows; none derive once a repetition's unit is unknown, no
// seconds give its time back, or its iterations differ from the first's.
class DerivedBySeconds {
 public:
  explicit DerivedBySeconds(const std::vector<StoredRow>& rows) : rows_(rows) {}
  std::optional<double> operator()(std::size_t r, const std::vector<double>& sample,
                                   const std::vector<std::size_t>& sample_rows) {
    const StoredRow& a = rows_[r];
    if (!a.aggregate || a.error || !a.aggregate_name || sample.empty()) return std::nullopt;
    for (std::size_t k = seconds_.size(); k < sample.size() && !failed_; ++k) {
      const StoredRow& rep = rows_[sample_rows[k]];
      const std::optional<double> scale = ns_per_posted_unit(rep);
      const std::optional<double> multiplier = gbench_unit_multiplier(rep.time_unit);
      const std::optional<double> s = scale && multiplier && rep.iterations == rows_[sample_rows.front()].iterations
                                          ? gbench_seconds(sample[k] / *scale, *multiplier, rep.iterations)
                                          : std::nullopt;
      if (s) seconds_.push_back(*s);
      else failed_ = true;
    }
    const std::optional<double> a_scale = ns_per_posted_unit(a);
    const std::optional<double> a_multiplier = gbench_unit_multiplier(a.time_unit);
    if (failed_ || !a_scale || !a_multiplier) return std::nullopt;
    const std::optional<double> reported =
        gbench_time_aggregate(*a.aggregate_name, seconds_, a.iterations, rows_[sample_rows.front()].iterations,
                              *a_multiplier, a.aggregate_unit == "percentage");
    if (!reported) return std::nullopt;
    return *reported * *a_scale;
  }

 private:
  const std::vector<StoredRow>& rows_;
  std::vector<double> seconds_;  // of the sample's first rows
  bool failed_ = false;
};

// Whether a column has an aggregate row, which alone needs the column's repetitions kept as a sample.
bool has_aggregate(const std::vector<StoredRow>& rows, const Column& c) {
  return std::any_of(c.rows.begin(), c.rows.end(), [&](std::size_t r) { return rows[r].aggregate; });
}

// Row r's counter of that name, or none.
const json* counter_of(const StoredRow& r, const std::string& name) {
  const auto it = r.counters.find(name);
  return it == r.counters.end() ? nullptr : &*it;
}

// A counter as a double: its number of either kind, for a sample; a float alone, for an aggregate's own value
// (a derived value is read back as a float, so an integer posted is kept as posted).
std::optional<double> counter_number(const json* v, bool float_only) {
  if (v == nullptr || !v->is_number() || (float_only && !v->is_number_float())) return std::nullopt;
  return v->get<double>();
}

// A rate counter's divisor before its step: the row's time in seconds (its real time in ns / 1e9, times its
// iterations), as Google Benchmark divides a rate's count by a run's seconds; none where the row has no measured
// time. The step then moves it by a double or two, as the seconds behind a posted time may differ from it by as
// much. Pure IEEE operations without a sum, so every build reads the same value back.
std::optional<double> rate_seconds(const StoredRow& r) {
  if (r.aggregate || r.error || !r.real_ns || r.iterations < 1 || r.iterations > (std::int64_t{1} << 53))
    return std::nullopt;
  const double seconds = *r.real_ns / 1e9 * static_cast<double>(r.iterations);
  if (!std::isfinite(seconds) || !(seconds > 0)) return std::nullopt;
  return seconds;
}
// A rate's count is a whole number a double holds exactly.
constexpr std::uint64_t kMaxRateCount = std::uint64_t{1} << 53;
// The divisor `step` doubles from the row's seconds.
double stepped(double seconds, int step) {
  for (; step > 0; --step) seconds = std::nextafter(seconds, std::numeric_limits<double>::infinity());
  for (; step < 0; ++step) seconds = std::nextafter(seconds, 0.0);
  return seconds;
}
double rate_value(double seconds, const codec::Rate& rate, std::uint64_t count) {
  return static_cast<double>(count) / stepped(seconds, rate.step);
}
// Row r's counter value v as a whole count over a divisor near its seconds, where one gives v bit for bit; else none.
std::optional<codec::Rate> rate_of(const StoredRow& r, double v) {
  const std::optional<double> seconds = rate_seconds(r);
  if (!seconds || !std::isfinite(v) || !(v > 0)) return std::nullopt;
  for (int i = 0; i <= 2 * codec::kMaxRateStep; ++i) {  // steps 0, 1, -1, 2, -2
    const int step = (i % 2 ? 1 : -1) * ((i + 1) / 2);
    const double divisor = stepped(*seconds, step);
    const double count = std::round(v * divisor);
    if (!(count >= 1 && count < static_cast<double>(kMaxRateCount))) continue;
    if (same_double(static_cast<double>(count) / divisor, v))
      return codec::Rate{step, static_cast<std::uint64_t>(count)};
  }
  return std::nullopt;
}

}  // namespace

PackedRows pack_rows(const std::vector<StoredRow>& rows) {
  if (rows.empty()) throw std::invalid_argument("pack_rows: no rows");
  PackedRows p;
  p.first_idx = rows.front().idx;
  const std::size_t n = rows.size();
  std::string& s = p.shape;
  s.push_back(static_cast<char>(kShapeVersion));
  codec::put_varint(s, n);
  for (const auto& r : rows) {
    put_zigzag(s, r.idx - p.first_idx);
    s.push_back(static_cast<char>((r.aggregate ? kAggregate : 0) | (r.aggregate_name ? kHasAggregateName : 0) |
                                  (r.error ? kError : 0)));
    if (r.aggregate_name) put_text(s, *r.aggregate_name);
    put_text(s, r.aggregate_unit);
    for (const auto v : {r.repetition_index, r.repetitions, r.threads, r.iterations}) put_zigzag(s, v);
    put_text(s, r.time_unit);
    put_text(s, r.label);
    put_text(s, r.error_message);
    put_text(s, contract::row_status_word(r.status));
  }
  // The numbers, a column at a time: real time, CPU time, then each counter by name. Per row, a value the same
  // as the row's before it in the column is a repeat byte (not after a computed one: a repeat reads the bytes
  // before it again), an aggregate's value that derived_value gives bit for bit is a derived byte, and a rate
  // (a count over the row's time, rate_of) is a rate where that is shorter than its digits.
  // number(r): row r's value as a double (for an aggregate, only where it can be read back as derived);
  // rate(r): row r's value as a rate, or none.
  // derive(r, sample, sample_rows): the value row r's derived byte stands for, from the column's repetitions before
  // it (their values and rows), or none.
  const auto put_values = [&](const Column& c, auto put_one, auto same, auto number, auto rate, auto derive) {
    if (c.mode == Mode::Once) put_one(c.rows.front());
    if (!per_row(c.mode)) return;
    const bool keep_sample = has_aggregate(rows, c);
    std::vector<double> sample;
    std::vector<std::size_t> sample_rows;
    bool after_computed = false;
    std::optional<std::uint64_t> rate_count;  // the column's previous rate's
    std::size_t repeating = 0;                // rows left of the last repeat byte's
    std::size_t deriving = 0;                 // rows left of the last derived byte's
    for (std::size_t k = 0; k < c.rows.size(); ++k) {
      const std::size_t r = c.rows[k];
      const std::optional<double> value = number(r);
      const auto derives = [&](std::size_t row) {
        const std::optional<double> v = number(row);
        const std::optional<double> derived = v ? derive(row, sample, sample_rows) : std::nullopt;
        return derived && same_double(*derived, *v);
      };
      if (deriving > 0) {
        --deriving;  // derived, as a derived byte written for a row before it says
        continue;
      }
      if (repeating > 0) {
        --repeating;  // held, as a repeat byte written for a row before it says
      } else if (k > 0 && !after_computed && same(c.rows[k - 1], r)) {
        // This row and the run of rows after it that each hold its value: one byte.
        std::size_t run = 1;
        while (run < codec::kMaxRepeat && k + run < c.rows.size() && same(c.rows[k + run - 1], c.rows[k + run])) ++run;
        codec::put_repeat(p.values, run);
        repeating = run - 1;
      } else if (derives(r)) {
        // This row and the run of rows after it whose values are derived too (a benchmark's aggregates: no
        // repetition among them, so the sample stays as it is): one byte.
        std::size_t run = 1;
        while (run < codec::kMaxDerived && k + run < c.rows.size() && derives(c.rows[k + run])) ++run;
        codec::put_derived(p.values, run);
        p.derived += run;
        deriving = run - 1;
        after_computed = true;
        continue;
      } else {
        const std::size_t start = p.values.size();
        put_one(r);
        after_computed = false;
        if (std::optional<codec::Rate> as_rate = rate(r)) {
          const std::uint64_t count = *as_rate->count;
          if (count == rate_count) as_rate->count.reset();
          std::string bytes;
          codec::put_rate(bytes, *as_rate);
          if (bytes.size() < p.values.size() - start) {
            p.values.resize(start);
            p.values += bytes;
            rate_count = count;
            ++p.rates;
            after_computed = true;
          }
        }
      }
      if (keep_sample && value && is_repetition(rows[r])) {
        sample.push_back(*value);
        sample_rows.push_back(r);
      }
    }
  };
  const auto by_times = [&](std::size_t r, const std::vector<double>& sample, const std::vector<std::size_t>&) {
    return derived_value(rows[r], sample);
  };
  const auto no_rate = [](std::size_t) { return std::optional<codec::Rate>(); };
  // A time column: kept in each row's posted unit where every row's time reads back from it bit for bit. A repeat
  // byte then also needs the unit of the row before, as the reader multiplies the bytes again by its row's.
  std::vector<std::optional<double>> units(n);
  for (std::size_t r = 0; r < n; ++r) units[r] = ns_per_posted_unit(rows[r]);
  const auto put_times = [&](Column c, std::optional<double> StoredRow::*time) {
    const auto ns = [&](std::size_t r) { return *(rows[r].*time); };
    if (c.mode == Mode::PerRow && std::all_of(c.rows.begin(), c.rows.end(), [&](std::size_t r) {
          return units[r] && same_double(ns(r) / *units[r] * *units[r], ns(r));
        }))
      c.mode = Mode::PerRowInUnit;
    const bool kept_in_unit = in_unit(c.mode);
    const auto put_all = [&](const Column& column, auto derive) {
      put_values(
          column, [&](std::size_t r) { codec::put_double(p.values, kept_in_unit ? ns(r) / *units[r] : ns(r)); },
          [&](std::size_t a, std::size_t b) { return same_double(ns(a), ns(b)) && (!kept_in_unit || units[a] == units[b]); },
          [&](std::size_t r) { return rows[r].*time; }, no_rate, derive);
    };
    // Whether the repetitions' seconds derive an aggregate row's value that their times do not.
    const auto seconds_derive_more = [&] {
      std::vector<double> sample;
      std::vector<std::size_t> sample_rows;
      DerivedBySeconds by_seconds(rows);
      for (const auto r : c.rows) {
        if (rows[r].aggregate) {
          const std::optional<double> from_seconds = by_seconds(r, sample, sample_rows);
          const std::optional<double> from_times = derived_value(rows[r], sample);
          if (from_seconds && same_double(*from_seconds, ns(r)) && !(from_times && same_double(*from_times, ns(r))))
            return true;
        } else if (is_repetition(rows[r])) {
          sample.push_back(ns(r));
          sample_rows.push_back(r);
        }
      }
      return false;
    };
    const std::size_t start = p.values.size(), derived_before = p.derived;
    put_all(c, by_times);
    // Aggregates derived from the repetitions' seconds, where that takes fewer bytes (a harness that times on a clock).
    if (c.mode == Mode::PerRowInUnit && has_aggregate(rows, c) && seconds_derive_more()) {
      const std::string by_times_bytes = p.values.substr(start);
      const std::size_t by_times_derived = p.derived;
      p.values.resize(start);
      p.derived = derived_before;
      Column by_seconds_column = c;
      by_seconds_column.mode = Mode::PerRowBySeconds;
      put_all(by_seconds_column, DerivedBySeconds(rows));
      if (p.values.size() - start < by_times_bytes.size()) {
        c.mode = Mode::PerRowBySeconds;
      } else {
        p.values.resize(start);
        p.values += by_times_bytes;
        p.derived = by_times_derived;
      }
    }
    put_column(s, c, n);
  };
  const auto same_real = [&](std::size_t a, std::size_t b) { return same_double(*rows[a].real_ns, *rows[b].real_ns); };
  const auto same_cpu = [&](std::size_t a, std::size_t b) { return same_double(*rows[a].cpu_ns, *rows[b].cpu_ns); };
  const Column real = column_of(n, [&](std::size_t i) { return rows[i].real_ns.has_value(); }, same_real);
  Column cpu = column_of(n, [&](std::size_t i) { return rows[i].cpu_ns.has_value(); }, same_cpu);
  if (cpu.mode != Mode::Absent && cpu.rows == real.rows) {
    bool as_real = true;
    for (const auto r : cpu.rows) as_real = as_real && same_double(*rows[r].cpu_ns, *rows[r].real_ns);
    if (as_real) cpu.mode = Mode::AsReal;
  }
  put_times(real, &StoredRow::real_ns);
  put_times(cpu, &StoredRow::cpu_ns);
  // Counter names: the union over the rows, sorted (the rows' objects are sorted maps).
  std::vector<std::string> names;
  for (const auto& r : rows)
    for (auto it = r.counters.begin(); it != r.counters.end(); ++it) names.push_back(it.key());
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  codec::put_varint(s, names.size());
  for (const auto& name : names) {
    const auto value = [&](std::size_t i) { return counter_of(rows[i], name); };
    const auto same = [&](std::size_t a, std::size_t b) {
      const json &x = *value(a), &y = *value(b);
      if (x.type() != y.type()) return false;
      return x.is_number_float() ? same_double(x.get<double>(), y.get<double>()) : x == y;
    };
    const Column c = column_of(n, [&](std::size_t i) { return value(i) != nullptr; }, same);
    put_text(s, name);
    put_column(s, c, n);
    put_values(c, [&](std::size_t r) { codec::put_json_number(p.values, *value(r)); }, same,
               [&](std::size_t r) { return counter_number(value(r), rows[r].aggregate); },
               [&](std::size_t r) {  // a float alone: a rate is read back as one
                 const std::optional<double> v = counter_number(value(r), true);
                 return v ? rate_of(rows[r], *v) : std::nullopt;
               },
               by_times);
  }
  return p;
}

namespace {
// The rows a shape describes, their numbers left at their defaults, reading `shape` up to its columns.
std::vector<StoredRow> read_shape(std::int64_t first_idx, std::string_view& shape) {
  const auto version = get_byte(shape);
  if (version != kShapeVersion) throw Corrupt("a row shape of version " + std::to_string(version) + ", not " +
                                              std::to_string(kShapeVersion));
  const auto n = codec::get_varint(shape);
  if (n == 0 || n > shape.size()) throw Corrupt("a row shape of " + std::to_string(n) + " rows");
  std::vector<StoredRow> rows(n);
  for (auto& r : rows) {
    r.idx = first_idx + get_zigzag(shape);
    const auto flags = get_byte(shape);
    r.aggregate = flags & kAggregate;
    r.error = flags & kError;
    if (flags & kHasAggregateName) r.aggregate_name = get_text(shape);
    r.aggregate_unit = get_text(shape);
    for (auto* v : {&r.repetition_index, &r.repetitions, &r.threads, &r.iterations}) *v = get_zigzag(shape);
    r.time_unit = get_text(shape);
    r.label = get_text(shape);
    r.error_message = get_text(shape);
    const auto status = contract::row_status_from_word(get_view(shape));
    if (!status) throw Corrupt("a row shape names an unknown row status");
    r.status = *status;
  }
  return rows;
}
}  // namespace

std::vector<StoredRow> shape_rows(std::string_view shape) { return read_shape(0, shape); }

std::vector<StoredRow> unpack_rows(std::int64_t first_idx, std::string_view shape, std::string_view values,
                                   bool counters) {
  std::vector<StoredRow> rows = read_shape(first_idx, shape);
  const std::size_t n = rows.size();
  // set(r, in): row r's value from the bytes at `in`; set_derived(r, v): row r's value v; number(r) as put_values'.
  // rates: whether the column may hold rates (a counter's; a time is never one).
  const auto get_values = [&](const Column& c, auto set, auto set_derived, auto number, bool rates, auto derive) {
    if (c.mode == Mode::Once) {
      const std::string_view start = values;
      set(c.rows.front(), values);  // read once, then again for each other row
      for (std::size_t k = 1; k < c.rows.size(); ++k) {
        std::string_view again = start;
        set(c.rows[k], again);
      }
    } else if (per_row(c.mode)) {
      std::string_view previous;
      const bool keep_sample = has_aggregate(rows, c);
      std::vector<double> sample;
      std::vector<std::size_t> sample_rows;
      std::optional<std::uint64_t> rate_count;  // the column's previous rate's
      std::size_t repeating = 0;                // rows left of a repeat byte's
      std::size_t deriving = 0;                 // rows left of a derived byte's
      for (const auto r : c.rows) {
        if (deriving == 0 && (repeating > 0 || (repeating = codec::take_repeat(values)) > 0)) {
          --repeating;
          if (previous.empty()) throw Corrupt("a pack repeats a value with no stored value before it");
          std::string_view again = previous;
          set(r, again);
        } else if (deriving > 0 || (deriving = codec::take_derived(values)) > 0) {
          --deriving;
          const std::optional<double> derived = derive(r, sample, sample_rows);
          if (!derived) throw Corrupt("a pack derives a value for a row that is no aggregate of repetitions");
          set_derived(r, *derived);
          previous = {};
          continue;
        } else if (const std::optional<codec::Rate> rate = codec::take_rate(values)) {
          if (!rates) throw Corrupt("a pack keeps a rate for a time");
          const std::optional<double> seconds = rate_seconds(rows[r]);
          if (!seconds) throw Corrupt("a pack keeps a rate for a row with no measured time");
          if (rate->count && (*rate->count < 1 || *rate->count >= kMaxRateCount))
            throw Corrupt("a pack keeps a rate of count " + std::to_string(*rate->count));
          if (rate->count) rate_count = rate->count;
          if (!rate_count) throw Corrupt("a pack's rate takes the count of a rate before it, and there is none");
          set_derived(r, rate_value(*seconds, *rate, *rate_count));
          previous = {};
        } else {
          previous = values;
          set(r, values);
        }
        if (keep_sample && is_repetition(rows[r]))
          if (const std::optional<double> value = number(r)) {
            sample.push_back(*value);
            sample_rows.push_back(r);
          }
      }
      if (repeating > 0) throw Corrupt("a pack repeats a value for more rows than its column has");
      if (deriving > 0) throw Corrupt("a pack derives values for more rows than its column has");
    }
  };
  const auto get_times = [&](const Column& c, std::optional<double> StoredRow::*time) {
    if (c.mode == Mode::AsReal) {
      if (time == &StoredRow::real_ns) throw Corrupt("a row shape keeps the real time as the real time");
      for (const auto r : c.rows) rows[r].cpu_ns = rows[r].real_ns;
      return;
    }
    DerivedBySeconds by_seconds(rows);
    get_values(
        c,
        [&](std::size_t r, std::string_view& in) {
          double v = codec::get_double(in);
          if (in_unit(c.mode)) {
            const std::optional<double> unit = ns_per_posted_unit(rows[r]);
            if (!unit) throw Corrupt("a pack keeps a time in the unknown unit '" + rows[r].time_unit + "'");
            v *= *unit;
          }
          rows[r].*time = v;
        },
        [&](std::size_t r, double v) { rows[r].*time = v; }, [&](std::size_t r) { return rows[r].*time; }, false,
        [&](std::size_t r, const std::vector<double>& sample, const std::vector<std::size_t>& sample_rows) {
          return c.mode == Mode::PerRowBySeconds ? by_seconds(r, sample, sample_rows) : derived_value(rows[r], sample);
        });
  };
  get_times(get_column(shape, n), &StoredRow::real_ns);
  get_times(get_column(shape, n), &StoredRow::cpu_ns);
  if (!counters) return rows;  // the counters come last
  const auto n_counters = codec::get_varint(shape);
  for (std::uint64_t k = 0; k < n_counters; ++k) {
    const std::string name = get_text(shape);
    const Column c = get_column(shape, n);
    get_values(
        c, [&](std::size_t r, std::string_view& in) { rows[r].counters[name] = codec::get_json_number(in); },
        [&](std::size_t r, double v) { rows[r].counters[name] = v; },
        [&](std::size_t r) { return counter_number(counter_of(rows[r], name), rows[r].aggregate); }, true,
        [&](std::size_t r, const std::vector<double>& sample, const std::vector<std::size_t>&) {
          return derived_value(rows[r], sample);
        });
  }
  if (!shape.empty() || !values.empty()) throw Corrupt("a pack has bytes past its rows");
  return rows;
}

std::vector<double> repetition_times(const std::vector<const StoredRow*>& rows) {
  std::vector<double> reps;
  bool has_iteration = false;
  const StoredRow *median = nullptr, *mean = nullptr;
  for (const StoredRow* r : rows) {
    if (!part_of_point(r->status)) continue;
    if (!r->aggregate) {
      has_iteration = true;
      if (!r->error && r->real_ns) reps.push_back(*r->real_ns);
    } else if (r->aggregate_unit == "time" && r->real_ns && !r->error && r->aggregate_name) {
      // The last of each, as a map keyed by name would keep.
      if (*r->aggregate_name == "median") median = r;
      if (*r->aggregate_name == "mean") mean = r;
    }
  }
  if (reps.empty() && !has_iteration) {
    if (median) reps.push_back(*median->real_ns);
    else if (mean) reps.push_back(*mean->real_ns);
  }
  return reps;
}

std::optional<double> ns_per_posted_unit(std::string_view time_unit, std::string_view aggregate_unit) {
  double ns;
  if (time_unit == "ns") ns = 1;
  else if (time_unit == "us") ns = 1e3;
  else if (time_unit == "ms") ns = 1e6;
  else if (time_unit == "s") ns = 1e9;
  else return std::nullopt;
  return aggregate_unit == "percentage" ? 1 : ns;
}

std::optional<double> ns_per_posted_unit(const StoredRow& r) {
  return ns_per_posted_unit(r.time_unit, r.aggregate ? r.aggregate_unit : "");
}

bool part_of_point(contract::RowStatus status) {
  const auto kind = contract::row_kind(status);
  return kind != contract::RowKind::ExpectedOutcome && kind != contract::RowKind::Unsupported;
}

std::string point_label(const std::vector<StoredRow>& rows) {
  for (const auto& r : rows)
    if (part_of_point(r.status) && !r.label.empty()) return r.label;
  return "";
}

std::vector<double> repetition_times(const std::vector<StoredRow>& rows) {
  std::vector<const StoredRow*> p;
  p.reserve(rows.size());
  for (const auto& r : rows) p.push_back(&r);
  return repetition_times(p);
}

}  // namespace shaderwatch
