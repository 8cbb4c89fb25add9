// The shaderwatch-server binary itself: --help, token management, post, serve and its shutdown.
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <fstream>
#include <thread>

#include "shaderwatch/upload.h"
#include "test_util.h"

using namespace swt;

namespace {

struct Out {
  int rc = -1;
  std::string out, err;
};

// `limit_s`: stop it after that long (a server that should have refused to start).
Out run(const std::string& args, const TempDir& dir, int limit_s = 0) {
  const std::string errf = dir.file("stderr.txt");
  const std::string cmd = cat(limit_s > 0 ? cat("timeout ", std::to_string(limit_s), " ") : "", SW_SERVER_BIN, " ", args, " 2>", errf);
  FILE* f = popen(cmd.c_str(), "r");
  Out o;
  if (!f) return o;
  char buf[4096];
  std::size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) o.out.append(buf, n);
  const int st = pclose(f);
  o.rc = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  std::ifstream e(errf);
  o.err.assign(std::istreambuf_iterator<char>(e), {});
  return o;
}

std::string trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
  return s;
}

}  // namespace

TEST(Cli, HelpTellsTheSubcommandsAndOptions) {
  TempDir dir;
  auto h = run("--help", dir);
  EXPECT_EQ(h.rc, 0);
  for (const char* w : {"serve", "token", "post"}) EXPECT_NE(h.out.find(w), std::string::npos) << w;
  auto s = run("serve --help", dir);
  for (const char* w : {"--db", "--port", "--bind", "--max-body-bytes", "--read-token-required"})
    EXPECT_NE(s.out.find(w), std::string::npos) << w;
  auto p = run("post --help", dir);
  for (const char* w : {"--url", "--token", "--run-id", "--commit", "--branch", "--runner", "--job-url", "--started-at", "FILE"})
    EXPECT_NE(p.out.find(w), std::string::npos) << w;
  EXPECT_NE(run("", dir).rc, 0) << "a subcommand is required";
}

// Issue 13, finding 7: --db was refused before the subcommand, and the database (token hashes) was
// created readable by everyone.
TEST(Cli, DbBeforeTheSubcommandAndAPrivateDatabaseFile) {
  TempDir dir;
  const std::string db = dir.db("first.db");
  auto c = run(cat("--db ", db, " token create early"), dir);
  ASSERT_EQ(c.rc, 0) << c.err;
  auto l = run(cat("token list --db ", db), dir);
  EXPECT_NE(l.out.find("early"), std::string::npos) << "the same file either way: " << l.out;
  if (on_postgres()) return;  // the rest is about a file; PostgreSQL's own access rules apply there
  struct stat st {};
  ASSERT_EQ(stat(db.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  // Reliability II, finding 10: a file an older version created 0644 (and its -wal and -shm) stayed so.
  for (const std::string& file : {db, db + "-wal", db + "-shm"}) {
    if (stat(file.c_str(), &st) != 0) std::ofstream(file).flush();
    ASSERT_EQ(chmod(file.c_str(), 0644), 0) << file;
  }
  TestServer server(db, {}, false);  // holds the database open: its -wal and -shm stay
  for (const std::string& file : {db, db + "-wal", db + "-shm"}) {
    ASSERT_EQ(stat(file.c_str(), &st), 0) << file;
    EXPECT_EQ(st.st_mode & 0777, 0600u) << file;
  }
}

// Reliability II, finding 7: SQLite opens "" as a temporary file and ":memory:" as a memory database, each
// private to its connection: the server started healthy and answered 500s, a token was stored nowhere.
TEST(Cli, ADatabaseThatIsNoFileIsRefusedByName) {
  TempDir dir;
  for (const std::string db : {"''", "sqlite:", ":memory:", "sqlite::memory:"}) {
    auto t = run(cat("token create lost --db ", db), dir);
    EXPECT_NE(t.rc, 0) << db;
    EXPECT_NE(t.err.find("the database must be a file path or a postgresql:// URI"), std::string::npos) << db << ": " << t.err;
    auto s = run(cat("serve --port 0 --db ", db), dir, 20);
    EXPECT_NE(s.rc, 0) << db;
    EXPECT_NE(s.err.find("the database must be a file path"), std::string::npos) << db << ": " << s.err;
  }
}

TEST(Cli, AGateConfigurationThatIsWrongIsRefusedByItsFieldBeforeTheServerStarts) {
  TempDir dir;
  const auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream(dir.file(name)) << text;
    return dir.file(name);
  };
  const std::string bad = write("bad.json", R"({"overrides": [{"gpu": "*H100*", "set": {"z": 0.5}}]})");
  auto s = run(cat("serve --port 0 --db ", dir.file("g.db"), " --gate-config ", bad), dir, 20);
  EXPECT_NE(s.rc, 0);
  EXPECT_NE(s.err.find("overrides[0].set.z: 0.5 is not from 1 to 50"), std::string::npos) << s.err;
  EXPECT_EQ(s.out.find("listening"), std::string::npos) << s.out;
  s = run(cat("serve --port 0 --db ", dir.file("g.db"), " --gate-config ", dir.file("missing.json")), dir, 20);
  EXPECT_NE(s.rc, 0);
  EXPECT_NE(s.err.find("missing.json' cannot be read"), std::string::npos) << s.err;
  // A good one: the server starts and says what it took (stopped by timeout).
  const std::string good = write("good.json", R"({"defaults": {"z": 5.5}, "overrides": [{"branch": "release/*", "set": {"min_effect": 0.5}}]})");
  s = run(cat("serve --port 0 --db ", dir.file("g.db"), " --gate-config ", good), dir, 2);
  EXPECT_NE(s.out.find("gate configuration: 1 default setting(s), 1 override(s) by branch and GPU"), std::string::npos) << s.out << s.err;
  EXPECT_NE(run("serve --help", dir).out.find("model.min_effect (0-100)"), std::string::npos) << "--help lists the parameters";
}

TEST(Cli, TokenCreateListRevokeAndPost) {
  TempDir dir;
  const std::string db = dir.db("cli.db");
  auto c = run(cat("token create ci-runner --db ", db), dir);
  ASSERT_EQ(c.rc, 0) << c.err;
  const std::string token = trim(c.out);
  ASSERT_EQ(token.rfind("swt_", 0), 0u) << token;
  EXPECT_EQ(token.size(), 4u + 64u);
  EXPECT_NE(run(cat("token create ci-runner --db ", db), dir).rc, 0) << "names are unique";
  auto l = run(cat("token list --db ", db), dir);
  EXPECT_NE(l.out.find("ci-runner"), std::string::npos);
  EXPECT_NE(l.out.find("active"), std::string::npos);
  EXPECT_EQ(l.out.find(token), std::string::npos) << "the plaintext is never shown again";

  const std::string file = dir.file("bench.json");
  {
    std::ofstream f(file);
    f << run_sample_bench();
  }
  TestServer s(db, {}, false);
  const std::string url = cat("http://127.0.0.1:", std::to_string(s.port));
  auto ok = run(cat("post --url ", url, " --token ", token, " ", file,
                    " --run-id cli-1 --commit abc123 --branch main --runner box1 --job-url https://ci/1"), dir);
  EXPECT_EQ(ok.rc, 0) << ok.err;
  EXPECT_EQ(json::parse(ok.out)["run"]["id"], "cli-1");
  EXPECT_EQ(json::parse(ok.out)["run"]["runner"], "box1");
  // Retrying the same post is harmless (start time from the file's context.date).
  auto retry = run(cat("post --url ", url, " --token ", token, " ", file,
                       " --run-id cli-1 --commit abc123 --branch main --runner box1 --job-url https://ci/1"), dir);
  EXPECT_EQ(retry.rc, 0) << retry.err;
  // Failures: exit non-zero with the server's error.
  auto conflict = run(cat("post --url ", url, " --token ", token, " ", file, " --run-id cli-1 --commit other"), dir);
  EXPECT_NE(conflict.rc, 0);
  EXPECT_NE(conflict.err.find("409"), std::string::npos) << conflict.err;
  EXPECT_NE(conflict.err.find("run.id"), std::string::npos) << conflict.err;
  auto wrong = run(cat("post --url ", url, " --token nope ", file, " --run-id cli-2 --commit abc"), dir);
  EXPECT_NE(wrong.rc, 0);
  EXPECT_NE(wrong.err.find("401"), std::string::npos) << wrong.err;
  const std::string junk = dir.file("junk.json");
  {
    std::ofstream f(junk);
    f << "not json";
  }
  auto bad = run(cat("post --url ", url, " --token ", token, " ", junk, " --run-id cli-3 --commit abc"), dir);
  EXPECT_NE(bad.rc, 0);
  EXPECT_NE(bad.err.find("not valid JSON"), std::string::npos) << bad.err;
  s.stop();
  auto down = run(cat("post --url ", url, " --token ", token, " ", file, " --run-id cli-4 --commit abc"), dir);
  EXPECT_NE(down.rc, 0) << "server gone";

  auto r = run(cat("token revoke ci-runner --db ", db), dir);
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(run(cat("token list --db ", db), dir).out.find("revoked"), std::string::npos);
  EXPECT_NE(run(cat("token revoke ci-runner --db ", db), dir).rc, 0);
}

TEST(Cli, TokenScopesAreChosenCheckedAndListed) {
  TempDir dir;
  const std::string db = dir.db("scopes.db");
  auto bogus = run(cat("token create x --scope bogus --db ", db), dir);
  EXPECT_NE(bogus.rc, 0);
  EXPECT_NE(bogus.err.find("--scope 'bogus' is not one of upload, triage, admin"), std::string::npos) << bogus.err;
  ASSERT_EQ(run(cat("token create ci --db ", db), dir).rc, 0) << "upload by default";
  ASSERT_EQ(run(cat("token create alice --scope triage --db ", db), dir).rc, 0);
  ASSERT_EQ(run(cat("token create ops --scope admin --db ", db), dir).rc, 0);
  const auto l = run(cat("token list --db ", db), dir);
  EXPECT_EQ(l.rc, 0) << l.err;
  EXPECT_EQ(std::count(l.out.begin(), l.out.end(), '\n'), 3) << "nothing made by the refused create: " << l.out;
  for (const char* line : {"alice\tscope triage\tcreated ", "ci\tscope upload\tcreated ", "ops\tscope admin\tcreated "})
    EXPECT_NE(l.out.find(line), std::string::npos) << line << " in " << l.out;
  const auto h = run("token create --help", dir);
  for (const char* w : {"--scope", "upload", "triage", "admin"}) EXPECT_NE(h.out.find(w), std::string::npos) << w;
}

TEST(Cli, ServePrintsItsPortAndStopsOnSigterm) {
  TempDir dir;
  int pipefd[2];
  ASSERT_EQ(pipe(pipefd), 0);
  const std::string db = dir.db("serve.db");
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    dup2(pipefd[1], 1);
    close(pipefd[0]);
    execl(SW_SERVER_BIN, SW_SERVER_BIN, "serve", "--db", db.c_str(), "--port", "0", "--bind", "127.0.0.1",
          static_cast<char*>(nullptr));
    _exit(127);
  }
  close(pipefd[1]);
  std::string line;
  char ch;
  while (read(pipefd[0], &ch, 1) == 1 && ch != '\n') line += ch;
  const auto colon = line.rfind(':', line.find(" (database"));
  ASSERT_NE(colon, std::string::npos) << line;
  const int port = std::stoi(line.substr(colon + 1));
  httplib::Client c("127.0.0.1", port);
  auto r = c.Get("/api/v1/health");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  // A second server on the same port is refused (issue 13: with SO_REUSEPORT it started and the kernel
  // split the connections between the two databases).
  const auto second = run(cat("serve --db ", dir.db("second.db"), " --port ", std::to_string(port)), dir);
  EXPECT_EQ(second.rc, 1) << second.out;
  EXPECT_NE(second.err.find("Address already in use (is another server on that port?)"), std::string::npos) << second.err;
  kill(pid, SIGTERM);
  int st = 0;
  waitpid(pid, &st, 0);
  close(pipefd[0]);
  EXPECT_TRUE(WIFEXITED(st));
  EXPECT_EQ(WEXITSTATUS(st), 0);
  if (!on_postgres()) {
    EXPECT_TRUE(std::filesystem::exists(db));
  }
}

TEST(UploadLibrary, PostRunWrapsAndReportsErrors) {
  TempDir dir;
  TestServer s(dir.db("up.db"));
  const std::string doc = run_sample_bench();
  shaderwatch::upload::RunMeta m;
  m.run_id = "lib-1";
  m.commit = "abc";
  m.runner = "box";
  // The body is the documented wrapper, with the start time left to the document's date.
  const json body = json::parse(shaderwatch::upload::make_body(doc, m));
  EXPECT_EQ(body["run"]["id"], "lib-1");
  EXPECT_FALSE(body["run"].contains("started_at"));
  EXPECT_EQ(body["benchmark"], json::parse(doc));
  EXPECT_THROW(shaderwatch::upload::make_body("[1,2]", m), std::invalid_argument);
  // Around a document the bench made and wrote: the same body, its text in it as it is.
  const std::string around = shaderwatch::upload::make_body_around(doc, /*dated=*/true, m);
  EXPECT_EQ(json::parse(around), body);
  EXPECT_NE(around.find(doc), std::string::npos) << "the document's text goes in unchanged";
  EXPECT_TRUE(json::parse(shaderwatch::upload::make_body_around(doc, /*dated=*/false, m))["run"].contains("started_at"))
      << "an undated document's run starts now";

  const std::string url = cat("http://127.0.0.1:", std::to_string(s.port), "/");
  auto r = shaderwatch::upload::post_run(url, s.token, doc, m);
  EXPECT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.status, 201);
  r = shaderwatch::upload::post_run(url, s.token, doc, m);
  EXPECT_TRUE(r.ok);
  EXPECT_EQ(r.status, 200);
  r = shaderwatch::upload::post_run(url, "bad", doc, m);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.status, 401);
  EXPECT_NE(r.error.find("invalid or revoked token"), std::string::npos) << r.error;
  m.run_id = "has space";
  r = shaderwatch::upload::post_run(url, s.token, doc, m);
  EXPECT_EQ(r.status, 400);
  EXPECT_NE(r.error.find("run.id"), std::string::npos) << r.error;
  EXPECT_FALSE(shaderwatch::upload::post_run("127.0.0.1:1", s.token, doc, m).ok) << "no scheme";
}

TEST(Cli, MigrateCopiesIntoAnEmptyDatabaseAndRefusesAFullOne) {
  TempDir dir;
  const std::string from = dir.file("old.db"), to = dir.db("new.db");
  {
    TestServer s(from);
    ASSERT_EQ(s.post(wrap(run_sample_bench(), "m-1", "c1"))->status, 201);
  }
  EXPECT_NE(run("--help", dir).out.find("migrate"), std::string::npos);
  const auto m = run(cat("migrate --from sqlite:", from, " --to ", to), dir);
  ASSERT_EQ(m.rc, 0) << m.err;
  EXPECT_NE(m.out.find("runs\t1\n"), std::string::npos) << m.out;
  EXPECT_NE(m.out.find("tokens\t1\n"), std::string::npos) << m.out;
  EXPECT_NE(m.err.find("result_sets: "), std::string::npos) << "progress on stderr: " << m.err;
  const auto again = run(cat("migrate --from sqlite:", from, " --to ", to), dir);
  EXPECT_EQ(again.rc, 1);
  EXPECT_NE(again.err.find("already holds 1 runs"), std::string::npos) << again.err;
  const auto same = run(cat("migrate --from ", from, " --to sqlite:", from), dir);
  EXPECT_EQ(same.rc, 1);
  EXPECT_NE(same.err.find("the same database"), std::string::npos) << same.err;
}

// backup while four posters store runs: the copy holds whole runs only (as of its start), and a server on it
// answers for each of them what the live one does. It refuses to overwrite a file, and names pg_dump for PostgreSQL.
TEST(Cli, ABackupTakenUnderFourPostersRestoresToAServerThatAnswersTheSame) {
  TempDir dir;
  const std::string db = dir.file("live.db"), copy = dir.file("copy.db");
  TestServer live(db);
  std::atomic<bool> stop{false};
  std::atomic<int> posted{0};
  std::vector<std::thread> posters;
  for (int p = 0; p < 4; ++p)
    posters.emplace_back([&, p] {
      for (int i = 0; !stop; ++i) {
        std::vector<std::pair<std::string, std::vector<double>>> benches;
        for (int b = 0; b < 40; ++b) benches.push_back({cat("fam/v", std::to_string(b), "/1/cold"), {1e5 + i, 1.001e5 + i, 0.999e5 + i}});
        const auto r = live.post(wrap(make_doc({cat("GPU ", std::to_string(p))}, benches).dump(),
                                      cat("p", std::to_string(p), "-", std::to_string(i)), cat("c", std::to_string(i))));
        if (r && r->status == 201) ++posted;
      }
    });
  while (posted < 20) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  const auto b = run(cat("backup --db ", db, " ", copy), dir);
  const int posted_at_end_of_backup = posted;
  while (posted < posted_at_end_of_backup + 20) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  stop = true;
  for (auto& t : posters) t.join();
  ASSERT_EQ(b.rc, 0) << b.err;
  EXPECT_NE(b.out.find("runs, "), std::string::npos) << b.out;
  EXPECT_FALSE(std::filesystem::exists(copy + ".partial"));

  TestServer restored(copy, {}, false);
  const json runs = restored.get("/api/v1/runs?limit=1000")["runs"];
  ASSERT_GE(runs.size(), 20u);
  EXPECT_LT(runs.size(), live.get("/api/v1/runs?limit=1000")["runs"].size()) << "posts went on during the backup";
  for (const auto& r : runs) {
    const std::string id = r["id"];
    for (const char* tail : {"", "/results"}) {
      const std::string path = cat("/api/v1/runs/", id, tail);
      EXPECT_TRUE(restored.get(path) == live.get(path)) << path;
    }
  }

  const auto again = run(cat("backup --db ", db, " ", copy), dir);
  EXPECT_EQ(again.rc, 1);
  EXPECT_NE(again.err.find("does not overwrite"), std::string::npos) << again.err;
  const auto pg = run(cat("backup --db postgresql://sw@localhost/x ", dir.file("pg.db")), dir);
  EXPECT_EQ(pg.rc, 1);
  EXPECT_NE(pg.err.find("pg_dump"), std::string::npos) << pg.err;
}

// prune on the command line: --older-than-days is required (nothing is pruned unless told), and it says what it did.
TEST(Cli, PruneNeedsAnAgeAndSaysWhatItEmptied) {
  TempDir dir;
  const std::string db = dir.file("p.db");
  {
    TestServer s(db);
    for (int i = 0; i < 4; ++i)
      ASSERT_EQ(s.post(wrap(run_sample_bench(), cat("p-", std::to_string(i)), cat("c", std::to_string(i)),
                            cat("2026-01-0", std::to_string(i + 1), "T00:00:00Z")))->status, 201);
  }
  const auto none = run(cat("prune --db ", db), dir);
  EXPECT_NE(none.rc, 0);
  EXPECT_NE(none.err.find("--older-than-days"), std::string::npos) << none.err;
  const auto young = run(cat("prune --db ", db, " --older-than-days 100000"), dir);
  ASSERT_EQ(young.rc, 0) << young.err;
  EXPECT_NE(young.out.find("prune: 0 packs of 0 runs"), std::string::npos) << young.out;
  const auto old = run(cat("prune --db ", db, " --older-than-days 0 --keep-runs 1"), dir);
  ASSERT_EQ(old.rc, 0) << old.err;
  EXPECT_NE(old.out.find(" packs of 3 runs emptied"), std::string::npos) << old.out;
}
