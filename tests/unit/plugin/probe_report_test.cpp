// The host's reading of the plugin probe's report (core/src/plugin/probe_report.h): only a
// verdict that carries the nonce, sent once the probe asked for it, counts, and anything
// else on the channel is a forgery with what was wrong (issue 37).
#include "plugin/probe_report.h"

#include <gtest/gtest.h>

#include <string>

namespace sy {
namespace {

const std::string kNonce = "0123456789abcdef0123456789abcdef";

// The report as the probe writes it, up to and including the request for the nonce.
const std::string kHonestSteps =
    "step start\nstep dlopen\nstep sy_plugin_query\nstep initialize\nstep shutdown\nready\n";

TEST(ProbeReport, HonestReportIsVerified) {
  ProbeReportReader reader(kNonce);
  EXPECT_EQ(reader.Take(kHonestSteps), ProbeReportReader::Next::kSendNonce);
  EXPECT_TRUE(reader.asked());
  EXPECT_FALSE(reader.verified());  // asked, not yet answered
  EXPECT_EQ(reader.Take("ok " + kNonce + "\n"), ProbeReportReader::Next::kRead);
  reader.Finish();
  EXPECT_TRUE(reader.verified());
  EXPECT_EQ(reader.forgery(), "");
  EXPECT_EQ(reader.last_step(), "shutdown");
}

TEST(ProbeReport, CleanLoadFailureIsVerifiedWithItsMessage) {
  ProbeReportReader reader(kNonce);
  reader.Take("step start\nstep dlopen\nready\n");
  reader.Take("error " + kNonce + " cannot load: not a shared object\n");
  reader.Finish();
  EXPECT_TRUE(reader.verified());
  EXPECT_EQ(reader.error_message(), "cannot load: not a shared object");
}

// The same bytes one at a time read the same: the nonce is due exactly once, after "ready".
TEST(ProbeReport, ReportSplitAnywhereReadsTheSame) {
  ProbeReportReader reader(kNonce);
  const std::string all = kHonestSteps + "ok " + kNonce + "\n";
  int sends = 0;
  for (const char c : all) {
    if (reader.Take(std::string_view(&c, 1)) == ProbeReportReader::Next::kSendNonce) ++sends;
  }
  reader.Finish();
  EXPECT_EQ(sends, 1);
  EXPECT_TRUE(reader.verified());
}

struct ForgedCase {
  std::string name;
  std::string report;  // after kNonce is substituted for "$N"
  std::string forgery;
};

class ProbeReportForged : public testing::TestWithParam<ForgedCase> {};

TEST_P(ProbeReportForged, IsRejectedSayingWhy) {
  std::string report = GetParam().report;
  for (size_t at; (at = report.find("$N")) != std::string::npos;) report.replace(at, 2, kNonce);
  ProbeReportReader reader(kNonce);
  reader.Take(report);
  reader.Finish();
  EXPECT_FALSE(reader.verified());
  EXPECT_EQ(reader.forgery(), GetParam().forgery);
}

INSTANTIATE_TEST_SUITE_P(
    ProbeReport, ProbeReportForged,
    testing::Values(
        // What a constructor that knows the old protocol writes before it _exit(0)s.
        ForgedCase{"old_verdict", "step start\nstep dlopen\nok\n",
                   "a verdict written before the probe finished its checks"},
        ForgedCase{"old_error", "step dlopen\nerror it failed\n",
                   "a verdict written before the probe finished its checks"},
        // The right nonce can only come after the request; before it, it is not the probe's.
        ForgedCase{"nonce_before_ready", "step dlopen\nok $N\nready\n",
                   "a verdict written before the probe finished its checks"},
        ForgedCase{"no_nonce", "ready\nok\n", "a verdict without the nonce the host sent"},
        ForgedCase{"wrong_nonce", "ready\nok 00000000000000000000000000000000\n",
                   "a verdict without the nonce the host sent"},
        ForgedCase{"nonce_and_more", "ready\nok $Nx\n",
                   "a verdict without the nonce the host sent"},
        ForgedCase{"error_nonce_run_on", "ready\nerror $Nwhy\n",
                   "a verdict without the nonce the host sent"},
        ForgedCase{"second_request", "ready\nready\n", "a second request for the nonce"},
        ForgedCase{"step_after_request", "ready\nstep initialize\n",
                   "a step after the probe asked for its nonce"},
        ForgedCase{"after_verdict", "ready\nok $N\nok $N\n", "more after its verdict"},
        ForgedCase{"garbage", "step dlopen\n\x1b[2Jhello\n",
                   "a line outside the protocol: \"?[2Jhello\""},
        ForgedCase{"empty_line", "\n", "a line outside the protocol: \"\""},
        ForgedCase{"unfinished", "ready\nok $N", "an unfinished line at its end"},
        ForgedCase{"overlong", std::string(kMaxProbeLine + 1, 's'),
                   "a line longer than 16384 bytes"}),
    [](const testing::TestParamInfo<ForgedCase>& param) { return param.param.name; });

TEST(ProbeReport, ForgeryStopsTheReading) {
  ProbeReportReader reader(kNonce);
  EXPECT_EQ(reader.Take("step dlopen\nok\n"), ProbeReportReader::Next::kStop);
  // Nothing after a forgery changes it: the probe is killed, not believed.
  EXPECT_EQ(reader.Take("ready\nok " + kNonce + "\n"), ProbeReportReader::Next::kStop);
  EXPECT_FALSE(reader.verified());
  EXPECT_EQ(reader.last_step(), "dlopen");
}

// A step name reaches the user's terminal in the reason: escapes and other control bytes
// do not.
TEST(ProbeReport, StepNamesArePrintableAndBounded) {
  ProbeReportReader reader(kNonce);
  reader.Take("step \x1b]0;title\x07" + std::string(200, 'x') + "\n");
  EXPECT_EQ(reader.last_step(), "?]0;title?" + std::string(86, 'x'));
}

TEST(ProbeReport, NoncesAreFreshHexDigits) {
  const std::string a = MakeProbeNonce(), b = MakeProbeNonce();
  ASSERT_EQ(a.size(), kNonceHexDigits);
  EXPECT_EQ(a.find_first_not_of("0123456789abcdef"), std::string::npos) << a;
  EXPECT_NE(a, b);
}

// An empty nonce (no randomness) verifies nothing: the host does not probe then, and a
// reader given one must not accept "ok ".
TEST(ProbeReport, EmptyNonceVerifiesNothing) {
  ProbeReportReader reader("");
  reader.Take("ready\nok \n");
  EXPECT_FALSE(reader.verified());
}

// The probe's verdict line is one line that the host's reader accepts, whatever the
// message: newlines made spaces, cut to fit the longest line read.
TEST(ProbeReport, VerdictLinesFitTheReader) {
  const std::string message = "first line\nsecond line" + std::string(2 * kMaxProbeLine, 'm');
  const std::string line = ProbeVerdictLine(kNonce, &message);
  EXPECT_EQ(line.find('\n'), std::string::npos);
  EXPECT_LE(line.size(), kMaxProbeLine);
  ProbeReportReader reader(kNonce);
  reader.Take("ready\n" + line + "\n");
  reader.Finish();
  EXPECT_TRUE(reader.verified()) << reader.forgery();
  EXPECT_EQ(reader.error_message().substr(0, 22), "first line second line");
  EXPECT_EQ(ProbeVerdictLine(kNonce, nullptr), "ok " + kNonce);
}

}  // namespace
}  // namespace sy
