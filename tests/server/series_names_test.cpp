// The series' names a process keeps (storage/series_names.h): a run's points named right, the names read once and
// kept, and a series that is not a point of the run refused rather than named wrong.
#include <stdexcept>

#include "storage/series_names.h"
#include "test_util.h"

namespace {

using swt::cat;

// The series of run `run_pk`'s points, as stored.
std::vector<std::int64_t> series_of(shaderwatch::sql::Conn& c, std::int64_t run_pk) {
  std::vector<std::int64_t> ids;
  auto& st = c.q("SELECT series_id FROM points WHERE run_id=? ORDER BY series_id DESC");
  st.bind(1, run_pk);
  while (st.step()) ids.push_back(st.i64(0));
  st.reset();
  return ids;
}

std::int64_t run_pk(shaderwatch::sql::Conn& c, const std::string& key) {
  auto& st = c.q("SELECT id FROM runs WHERE run_key=?");
  st.bind(1, key);
  EXPECT_TRUE(st.step()) << key;
  const auto pk = st.i64(0);
  st.reset();
  return pk;
}

TEST(SeriesNames, NamesARunsPointsReadsThemOnceAndRefusesASeriesNotOfTheRun) {
  swt::TempDir dir;
  const std::string db = dir.db("names.db");
  swt::TestServer s(db);
  const auto post = [&](const std::string& id, const std::vector<std::string>& names) {
    std::vector<std::pair<std::string, std::vector<double>>> benches;
    for (const auto& n : names) benches.push_back({n, {1e5, 1.01e5, 0.99e5}});
    auto r = s.post(swt::wrap(swt::make_doc({}, benches).dump(), id, cat("c-", id)));
    ASSERT_TRUE(r);
    ASSERT_EQ(r->status, 201) << r->body;
  };
  post("one", {"fam/a/1/cold", "fam/b/1/cold"});
  post("two", {"fam/a/1/cold", "fam/c/1/cold"});
  auto c = shaderwatch::sql::connect(shaderwatch::sql::Location::parse(db), shaderwatch::sql::Role::Writer);
  const auto one = run_pk(*c, "one"), two = run_pk(*c, "two");
  shaderwatch::SeriesNames names;
  const auto ids_one = series_of(*c, one);
  ASSERT_EQ(ids_one.size(), 2u);
  EXPECT_EQ(names.of_run(*c, one, ids_one), (std::vector<std::string>{"fam/b/1/cold", "fam/a/1/cold"}))
      << "in the order asked";
  // Renamed behind its back, a kept name stays: the first read was the only one. A series it does not hold (fam/c)
  // is read, with the rest of its run.
  c->exec("UPDATE benchmarks SET name=name || '-renamed'");
  EXPECT_EQ(names.of_run(*c, one, {ids_one[1]}), std::vector<std::string>{"fam/a/1/cold"});
  const auto ids_two = series_of(*c, two);
  EXPECT_EQ(names.of_run(*c, two, ids_two), (std::vector<std::string>{"fam/c/1/cold-renamed", "fam/a/1/cold"}));
  // fam/b is not a point of run two: no name is made up for it.
  shaderwatch::SeriesNames fresh;
  EXPECT_THROW(fresh.of_run(*c, two, {ids_one[0]}), std::logic_error);
}

}  // namespace
