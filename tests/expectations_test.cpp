// Expectations per device and driver without a device: parsing and its errors, matching, what each
// kind of entry does to a check's outcome, and the row text the results server classifies.
#include <gtest/gtest.h>

#include <shaderwatch/result_contract.h>

#include <stdexcept>
#include <string>

#include "catalog.h"
#include "suite/expectations.h"

using namespace shaderwatch;
namespace contract = shaderwatch::contract;

namespace {

DeviceInfo device(const std::string& name, const std::string& driver_name, const std::string& driver_info) {
  DeviceInfo d;
  d.name = name;
  d.driver_name = driver_name;
  d.driver_info = driver_info;
  return d;
}

CheckResult with(CheckStatus s) {
  CheckResult o;
  o.status = s;
  if (s == CheckStatus::Fail) o.first_failure = "element 3: expected 1, got 2";
  return o;
}

std::string parse_error(const std::string& text) {
  try {
    Expectations ex;
    ex.add_json(text, "runner.json");
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(Expectations, TheBuiltInFileHoldsTheNegativeControlForEveryDeviceAndLlvmpipesLoopLimit) {
  const Expectations ex = builtin_expectations();
  ASSERT_EQ(ex.entries().size(), 2u);
  const Expectation& e = ex.entries()[0];
  EXPECT_EQ(e.id, "negative control");
  EXPECT_EQ(e.expect, Expect::Fail);
  size_t matched = 0;
  for (const auto& k : catalog()) matched += glob_match(e.kernel, k.name);
  EXPECT_EQ(matched, 1u);
  const auto h200 = device("NVIDIA H200", "NVIDIA", "580.159.04");
  const auto llvmpipe = device("llvmpipe (LLVM 15.0.6, 256 bits)", "llvmpipe", "Mesa 22.3.6");
  for (const auto& d : {h200, llvmpipe}) EXPECT_EQ(ex.find("lum/unrolled_literal_256", d, 4096), &e) << d.name;
  EXPECT_EQ(ex.find("lum/unrolled_subgroup_256", h200, 4096), nullptr);
  // llvmpipe stops loops after 65,535 iterations: one invocation's sum of 65,536 positions is wrong there alone.
  const Expectation& loops = ex.entries()[1];
  EXPECT_EQ(ex.find("boids/single_invocation", llvmpipe, 65536), &loops);
  EXPECT_EQ(ex.find("boids/single_invocation", llvmpipe, 65535), nullptr);
  EXPECT_EQ(ex.find("boids/single_invocation", h200, 65537), nullptr);
  EXPECT_EQ(ex.find("boids/two_pass_rows", llvmpipe, 65537), nullptr);
}

TEST(Expectations, TheFirstEntryMatchingKernelDeviceAndDriverApplies) {
  Expectations ex;
  ex.add_json(R"({"expectations": [
    {"id": "h200 580 blur", "kernel": "postfx/blur_*", "device": "nvidia h200*", "driver": "NVIDIA 580.*",
     "expect": "flaky", "reruns": 3, "reason": "bug 1"},
    {"id": "all blur", "kernel": "postfx/blur_*", "expect": "skip", "reason": "bug 2"}]})",
              "runner.json");
  const auto h200_580 = device("NVIDIA H200", "NVIDIA", "580.159.04");
  const auto h200_590 = device("NVIDIA H200", "NVIDIA", "590.10");
  const auto h100_580 = device("NVIDIA H100 80GB HBM3", "NVIDIA", "580.159.04");
  const std::string blur = "postfx/blur_shared_r16";
  ASSERT_NE(ex.find(blur, h200_580, 1), nullptr);
  EXPECT_EQ(ex.find(blur, h200_580, 1)->id, "h200 580 blur") << "device glob is case-insensitive";
  EXPECT_EQ(ex.find(blur, h200_580, 1)->reruns, 3);
  EXPECT_EQ(ex.find(blur, h200_590, 1)->id, "all blur") << "another driver";
  EXPECT_EQ(ex.find(blur, h100_580, 1)->id, "all blur") << "another device";
  EXPECT_EQ(ex.find("lum/sequential_256", h200_580, 1), nullptr);
}

TEST(Expectations, ABadFileIsRefusedNamingTheEntryAndWhatIsWrong) {
  const std::string entry = R"("id": "x", "kernel": "lum/sequential_256", "reason": "r")";
  auto doc = [&](const std::string& fields) { return R"({"expectations": [{)" + entry + ", " + fields + "}]}"; };
  EXPECT_EQ(parse_error(doc(R"("expect": "fail")")), "");
  const std::pair<std::string, std::string> cases[] = {
      {"{not json", "not valid JSON"},
      {R"({"expectations": {}})", "expected {\"expectations\": [ ... ]}"},
      {R"({"expectations": [], "extra": 1})", "nothing else"},
      {doc(R"("expect": "sometimes")"), "'expect' is 'sometimes', not one of fail|flaky|skip"},
      {doc(R"("expect": "fail", "colour": "red")"), "unknown key 'colour'"},
      {doc(R"("expect": "flaky")"), "needs 'reruns', a whole number from 1 to 10"},
      {doc(R"("expect": "flaky", "reruns": 0)"), "needs 'reruns'"},
      {doc(R"("expect": "flaky", "reruns": 11)"), "needs 'reruns'"},
      {doc(R"("expect": "flaky", "reruns": "2")"), "needs 'reruns'"},
      {doc(R"("expect": "skip", "reruns": 2)"), "'reruns' goes with"},
      {doc(R"("expect": "fail", "min_items": 0)"), "'min_items' must be a whole number of at least 1"},
      {doc(R"("expect": "fail", "min_items": "65536")"), "'min_items' must be a whole number"},
      {doc(R"("expect": "fail", "device": "")"), "'device' must be a non-empty string"},
      {R"({"expectations": [{"id": "x", "kernel": "lum/sequential_256", "expect": "fail"}]})", "'reason' is missing"},
      {R"({"expectations": [{"id": "x", "kernel": "lum/sequentail_256", "expect": "fail", "reason": "r"}]})",
       "kernel pattern 'lum/sequentail_256' matches no catalog kernel"},
      {R"({"expectations": [{"id": "a) b", "kernel": "lum/*", "expect": "fail", "reason": "r"}]})", "without ')'"},
      {std::string(R"({"expectations": [{"id": "a", "kernel": "lum/*", "expect": "fail", "reason": ")").append(1001, 'x').append(R"("}]})"),
       "'reason' is longer than 1000 characters"},
      {R"({"expectations": [{"id": "a", "kernel": "lum/*", "expect": "fail", "reason": "r"},
                            {"id": "a", "kernel": "boids/*", "expect": "skip", "reason": "r"}]})",
       "entry 2: id 'a' is already used"},
  };
  for (const auto& [text, want] : cases) {
    const std::string got = parse_error(text);
    EXPECT_NE(got.find(want), std::string::npos) << text << "\n  said: " << got;
    EXPECT_EQ(got.rfind("runner.json", 0), 0u) << "the message starts with the file: " << got;
  }
  Expectations ex = builtin_expectations();
  EXPECT_THROW(ex.add_json(R"({"expectations": [{"id": "negative control", "kernel": "lum/*", "expect": "skip",
                            "reason": "r"}]})", "runner.json"), std::invalid_argument)
      << "an id of the built-in file";
  EXPECT_THROW(ex.add_file("/nonexistent/expectations.json"), std::invalid_argument);
}

TEST(Expectations, AnExpectedFailureIsXfailWhenItFailsAndXpassWhenItPasses) {
  Expectation e;
  e.id = "bug";
  e.reason = "driver bug 42";
  int reruns = 0;
  const auto rerun = [&] { ++reruns; return with(CheckStatus::Pass); };
  const CheckResult xfail = apply_expectation(&e, with(CheckStatus::Fail), rerun);
  EXPECT_EQ(xfail.status, CheckStatus::ExpectedFail);
  EXPECT_FALSE(is_unexpected_failure(xfail.status));
  EXPECT_EQ(xfail.expectation, "bug");
  EXPECT_NE(xfail.message.find("driver bug 42"), std::string::npos);
  const CheckResult xpass = apply_expectation(&e, with(CheckStatus::Pass), rerun);
  EXPECT_EQ(xpass.status, CheckStatus::UnexpectedPass);
  EXPECT_EQ(status_name(xpass.status), "XPASS");
  // An error (a Vulkan failure) or an unsupported kernel is no wrong answer: the entry does not cover it.
  EXPECT_EQ(apply_expectation(&e, with(CheckStatus::Error), rerun).status, CheckStatus::Error);
  EXPECT_EQ(apply_expectation(&e, with(CheckStatus::Unsupported), rerun).status, CheckStatus::Unsupported);
  EXPECT_EQ(apply_expectation(nullptr, with(CheckStatus::Fail), rerun).status, CheckStatus::Fail);
  EXPECT_EQ(apply_expectation(&e, with(CheckStatus::Improbable), rerun).status, CheckStatus::ExpectedFail)
      << "a sum beyond its probabilistic bound is a wrong answer an entry may expect";
  EXPECT_EQ(reruns, 0);
}

TEST(Expectations, AFlakyKernelIsRerunUntilItPassesOrItsRerunsRunOut) {
  Expectation e;
  e.id = "flaky blur";
  e.expect = Expect::Flaky;
  e.reruns = 3;
  e.reason = "bug 7";
  int calls = 0;
  // Fails twice more, then passes: a flake after 3 failed checks in all.
  const CheckResult flake = apply_expectation(&e, with(CheckStatus::Fail), [&] { return with(++calls < 3 ? CheckStatus::Fail : CheckStatus::Pass); });
  EXPECT_EQ(calls, 3);
  EXPECT_EQ(flake.status, CheckStatus::Flake);
  EXPECT_EQ(flake.check_retries, 3);
  EXPECT_FALSE(is_unexpected_failure(flake.status));
  EXPECT_NE(flake.message.find("failed 3 of 4 checks"), std::string::npos) << flake.message;
  EXPECT_NE(flake.message.find("element 3"), std::string::npos) << "the first wrong element is kept: " << flake.message;

  calls = 0;
  const CheckResult real = apply_expectation(&e, with(CheckStatus::Fail), [&] { ++calls; return with(CheckStatus::Fail); });
  EXPECT_EQ(calls, 3) << "exactly `reruns` reruns";
  EXPECT_EQ(real.status, CheckStatus::Fail);
  EXPECT_TRUE(is_unexpected_failure(real.status));
  EXPECT_NE(real.message.find("all 4 checks failed"), std::string::npos) << real.message;

  calls = 0;
  const CheckResult pass = apply_expectation(&e, with(CheckStatus::Pass), [&] { ++calls; return with(CheckStatus::Pass); });
  EXPECT_EQ(pass.status, CheckStatus::Pass) << "a first check that passes is a plain pass";
  EXPECT_EQ(pass.check_retries, 0);
  EXPECT_EQ(calls, 0);
}

TEST(Expectations, TheRowTextNamesTheEntryAndTheServerReadsItsWord) {
  Expectation e;
  e.id = "skip on lavapipe";
  e.expect = Expect::Skip;
  e.reason = "too slow";
  const CheckResult skip = skipped_outcome(e);
  EXPECT_EQ(skip.status, CheckStatus::Skipped);
  EXPECT_EQ(status_name(skip.status), "SKIP");
  const std::string text = contract::expected_outcome_message(e.id, contract::kSkip, skip.message);
  EXPECT_EQ(text.rfind("EXPECTED (skip on lavapipe): SKIP, ", 0), 0u) << text;
  EXPECT_EQ(contract::expected_outcome_word(text), contract::kSkip);
  // A document from before the status field says the status with the message, read the same way.
  EXPECT_EQ(contract::row_status_of_message(true, text), contract::RowStatus::Skip);
  EXPECT_EQ(contract::row_kind(contract::RowStatus::Skip), contract::RowKind::ExpectedOutcome);
  // The negative control's rows as earlier benches wrote them (../shared/data) keep their meaning.
  EXPECT_EQ(contract::expected_outcome_word("EXPECTED (negative control): XPASS, right this time"), contract::kXpass);
  EXPECT_EQ(contract::row_status_of_message(true, "EXPECTED (negative control): XFAIL, race observed: tile 3"),
            contract::RowStatus::Xfail);
  EXPECT_EQ(contract::row_status_of_message(true, "UNSUPPORTED: no 64-bit atomics"), contract::RowStatus::Unsupported);
  // Anything else that starts the same way is a failure, not an excuse.
  EXPECT_EQ(contract::row_status_of_message(true, "EXPECTED (x) XFAIL"), contract::RowStatus::Fail);
  EXPECT_EQ(contract::row_status_of_message(true, "EXPECTED (x): PASS, fine"), contract::RowStatus::Fail);
  EXPECT_EQ(contract::row_status_of_message(true, "FAIL: EXPECTED (x): XFAIL"), contract::RowStatus::Fail);
  EXPECT_EQ(contract::row_status_of_message(false, ""), contract::RowStatus::Pass);
}
