#include "plugin/probe_report.h"

#include <sys/random.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>

namespace sy {

std::string MakeProbeNonce() {
  uint8_t bytes[kNonceHexDigits / 2];
  size_t done = 0;
  while (done < sizeof bytes) {
    const ssize_t n = ::getrandom(bytes + done, sizeof bytes - done, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return {};
    done += static_cast<size_t>(n);
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string nonce;
  for (const uint8_t b : bytes) {
    nonce += kHex[b >> 4];
    nonce += kHex[b & 15];
  }
  return nonce;
}

std::string ProbeVerdictLine(std::string_view nonce, const std::string* error) {
  if (error == nullptr) return "ok " + std::string(nonce);
  std::string line = "error " + std::string(nonce) + " ";
  // Room for the nonce and the prefix, whatever the message: the host refuses longer lines.
  const size_t room = kMaxProbeLine - 64 - line.size();
  for (const char c : std::string_view(*error).substr(0, room)) line += c == '\n' ? ' ' : c;
  return line;
}

std::string PrintableProbeText(std::string_view text, size_t limit) {
  std::string out;
  for (const char c : text.substr(0, limit)) {
    const auto u = static_cast<unsigned char>(c);
    out += u < 0x20 || u >= 0x7f ? '?' : c;
  }
  return out;
}

ProbeReportReader::Next ProbeReportReader::Take(std::string_view bytes) {
  const bool asked_before = asked_;
  while (forgery_.empty() && !bytes.empty()) {
    const size_t newline = bytes.find('\n');
    const std::string_view piece = bytes.substr(0, newline);
    if (partial_.size() + piece.size() > kMaxProbeLine) {
      Reject("a line longer than " + std::to_string(kMaxProbeLine) + " bytes");
      break;
    }
    if (newline == std::string_view::npos) {
      partial_.append(piece);
      break;
    }
    std::string line = std::move(partial_);
    partial_.clear();
    line.append(piece);
    bytes.remove_prefix(newline + 1);
    Line(line);
  }
  if (!forgery_.empty()) return Next::kStop;
  return asked_ && !asked_before ? Next::kSendNonce : Next::kRead;
}

void ProbeReportReader::Finish() {
  if (forgery_.empty() && !partial_.empty()) Reject("an unfinished line at its end");
}

void ProbeReportReader::Reject(std::string why) {
  if (forgery_.empty()) forgery_ = std::move(why);
}

void ProbeReportReader::Line(std::string_view line) {
  if (verdict_) return Reject("more after its verdict");
  if (line.starts_with("step ")) {
    // The honest probe reports no step once it has asked for the nonce: it is done.
    if (asked_) return Reject("a step after the probe asked for its nonce");
    last_step_ = PrintableProbeText(line.substr(5), 96);
    return;
  }
  if (line == "ready") {
    if (asked_) return Reject("a second request for the nonce");
    asked_ = true;
    return;
  }
  const bool ok = line.starts_with("ok ") || line == "ok";
  const bool error = line.starts_with("error ") || line == "error";
  if (!ok && !error)
    return Reject("a line outside the protocol: \"" + PrintableProbeText(line, 40) + "\"");
  if (!asked_) return Reject("a verdict written before the probe finished its checks");
  std::string_view rest = line.substr(std::min<size_t>(line.size(), ok ? 3 : 6));
  if (!rest.starts_with(nonce_) || nonce_.empty())
    return Reject("a verdict without the nonce the host sent");
  rest.remove_prefix(nonce_.size());
  if (ok && !rest.empty()) return Reject("a verdict without the nonce the host sent");
  if (error) {
    if (!rest.starts_with(' ')) return Reject("a verdict without the nonce the host sent");
    error_message_ = std::string(rest.substr(1));
  }
  verdict_ = true;
}

}  // namespace sy
