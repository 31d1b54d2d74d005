// The plugin probe's report to the host (plugin_probe.h), and the host's reading of it.
//
// The probe (switchyard-plugin-probe) writes one line for each of these, on file
// descriptor kProbeReportFd, a socket whose other end the host holds:
//   step NAME              before each step of the load (dlopen, sy_plugin_query,
//                          initialize, ...), of the op-level queries and of the shutdown
//   ready                  every check done, the plugin shut down and its library unloaded:
//                          asks the host for the nonce
//   ok NONCE               the plugin loaded, answered and shut down
//   error NONCE MESSAGE    loading it failed cleanly (the host's own load says why again)
// The host answers "ready" with NONCE and a newline on the same socket: kNonceHexDigits
// hexadecimal digits from the kernel's random source, made for this run of the probe and
// sent to no one before.
//
// Why a nonce (issue 37): plugin code runs inside the probe (its constructors during
// dlopen, then sy_plugin_query, initialize, ...), can write to any descriptor the probe
// holds and can end the process with status 0. A constructor that wrote "ok" and called
// _exit(0) used to be taken for the probe's verdict and cached as good; the host then
// loaded the plugin and the same constructor ended the host, silently. Now the verdict
// must carry a nonce that does not exist until the probe has finished with the plugin, so
// a line written while the plugin's code had the process cannot be a verdict the host
// accepts; and anything that is not the protocol (a verdict before "ready", a wrong nonce,
// a line of any other kind, a second "ready", anything after the verdict, an unfinished
// line) rejects the plugin, with what was wrong, and no verdict at all is a rejection as
// before (the exit status or signal and the step).
//
// What it cannot stop: code written against this protocol. The plugin's code shares the
// probe's process, so a constructor that writes "ready" itself and echoes the nonce it
// then reads, a thread left running past the unload that takes the nonce from the probe,
// or code that rewrites the probe's own, can do whatever the probe can, and no report from
// inside that process can tell it apart. That is a hostile plugin, which no check of this
// kind contains: docs/security.md, "Plugins".
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace sy {

// The probe's side of the socket: the descriptor it writes its report to and reads the
// nonce from.
inline constexpr int kProbeReportFd = 3;

inline constexpr size_t kNonceHexDigits = 32;  // 16 random bytes

// The longest line the host reads: longer is not the probe's (it bounds what it sends).
inline constexpr size_t kMaxProbeLine = 16384;

// A fresh nonce (kNonceHexDigits lowercase hex digits) from getrandom, or "" when the
// kernel gives no randomness (the host then does not probe: a guessable nonce proves
// nothing).
std::string MakeProbeNonce();

// The probe's verdict line, without its newline: "ok NONCE" or "error NONCE MESSAGE" (the
// message made one line and cut to fit kMaxProbeLine).
std::string ProbeVerdictLine(std::string_view nonce, const std::string* error);

// The host's reading of one run's report, fed the bytes as they arrive. Pure: it sends
// nothing; Take says when the nonce is due (fuzz_probe_report drives it with any bytes).
class ProbeReportReader {
 public:
  explicit ProbeReportReader(std::string nonce) : nonce_(std::move(nonce)) {}

  enum class Next {
    kRead,       // keep reading
    kSendNonce,  // the probe asked (a "ready" line among these bytes): send it the nonce
    kStop,       // the report is not the probe's own (forgery()): stop and kill it
  };
  Next Take(std::string_view bytes);

  // The probe's end closed: a line left without its newline is not the probe's.
  void Finish();

  // The last step the probe reported (control characters replaced, at most 96 bytes).
  const std::string& last_step() const { return last_step_; }
  bool asked() const { return asked_; }
  // A verdict carrying the nonce, after "ready", with nothing wrong before or after it.
  bool verified() const { return verdict_ && forgery_.empty(); }
  // The message of a verified "error" verdict (the plugin failed to load cleanly).
  const std::string& error_message() const { return error_message_; }
  // Why the report is not the probe's own ("a verdict written before the probe finished
  // its checks"); "" when nothing was wrong.
  const std::string& forgery() const { return forgery_; }

 private:
  void Line(std::string_view line);
  void Reject(std::string why);

  std::string nonce_;
  std::string partial_;
  std::string last_step_;
  std::string error_message_;
  std::string forgery_;
  bool asked_ = false;
  bool verdict_ = false;
};

// `text` made printable for a message: control characters and bytes past ASCII as '?',
// cut at `limit` bytes (a forged step or line must not reach a terminal as escapes).
std::string PrintableProbeText(std::string_view text, size_t limit);

}  // namespace sy
