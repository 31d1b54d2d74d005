// libFuzzer target: arbitrary bytes as the plugin probe's report to the host
// (core/src/plugin/probe_report.h; docs/security.md, "Plugins"). The plugin's code shares
// the probe's process and can write anything on that channel.
//
// The reader must take any bytes without reading outside them (AddressSanitizer), and:
// - accept a verdict only after a "ready" line, on a line that starts with the nonce;
// - ask for the nonce at most once, and (unless it found a forgery) whatever the split;
// - read the same however the bytes are split (the first byte picks the chunk size);
// - say nothing unprintable in what reaches a message (the forgery, the step);
// and whatever message the probe's verdict line is made from, the reader accepts it.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "plugin/probe_report.h"

namespace {

const std::string kNonce = "0123456789abcdef0123456789abcdef";

struct Reading {
  bool verified = false;
  std::string forgery, last_step;
  int sends = 0;
};

Reading Read(std::string_view bytes, size_t chunk) {
  sy::ProbeReportReader reader(kNonce);
  Reading r;
  while (!bytes.empty()) {
    const size_t n = std::min(chunk, bytes.size());
    if (reader.Take(bytes.substr(0, n)) == sy::ProbeReportReader::Next::kSendNonce) ++r.sends;
    bytes.remove_prefix(n);
  }
  reader.Finish();
  r.verified = reader.verified();
  r.forgery = reader.forgery();
  r.last_step = reader.last_step();
  return r;
}

bool Printable(const std::string& s) {
  for (const char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u >= 0x7f) return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const size_t chunk = 1 + data[0] % 64;
  const std::string_view bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  const Reading whole = Read(bytes, bytes.size() + 1);
  const Reading split = Read(bytes, chunk);
  if (whole.verified != split.verified || whole.forgery != split.forgery ||
      whole.last_step != split.last_step) {
    std::abort();
  }
  // The nonce is due once either way; only a forgery in the same bytes as "ready" (seen
  // before the reader says so) saves sending it.
  if (whole.forgery.empty() && whole.sends != split.sends) std::abort();
  if (whole.sends > 1 || split.sends > 1) std::abort();
  if (!Printable(whole.forgery) || !Printable(whole.last_step)) std::abort();
  if (whole.verified) {
    // A "ready" line, then a verdict line carrying the nonce after it.
    const std::string text = "\n" + std::string(bytes);
    const size_t ready = text.find("\nready\n");
    const size_t ok = text.find("\nok " + kNonce + "\n");
    const size_t error = text.find("\nerror " + kNonce + " ");
    const size_t verdict = std::min(ok, error);
    if (ready == std::string::npos || verdict == std::string::npos || verdict < ready) std::abort();
  }
  // The probe's own line for any message is one the reader accepts.
  const std::string message(bytes);
  sy::ProbeReportReader reader(kNonce);
  reader.Take("ready\n" + sy::ProbeVerdictLine(kNonce, &message) + "\n");
  reader.Finish();
  if (!reader.verified()) std::abort();
  return 0;
}
