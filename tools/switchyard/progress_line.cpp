#include "progress_line.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include "switchyard/value_names.h"

namespace sy::cli {

ProgressLine::ProgressLine(std::string prefix)
    : prefix_(std::move(prefix)), start_(std::chrono::steady_clock::now()), last_(start_) {
  const char* term = std::getenv("TERM");
  enabled_ = ::isatty(STDERR_FILENO) == 1 && (term == nullptr || std::string_view(term) != "dumb");
}

ProgressLine::~ProgressLine() {
  if (drawn_) std::fputs("\r\033[K", stderr);  // erase the line
}

void ProgressLine::Update(size_t done, size_t total, std::string_view what) {
  if (!enabled_) return;
  const auto now = std::chrono::steady_clock::now();
  if (now - start_ < std::chrono::milliseconds(500)) return;
  if (drawn_ && now - last_ < std::chrono::milliseconds(100)) return;
  last_ = now;
  drawn_ = true;
  std::string text = prefix_ + ": " + std::to_string(done) + "/" + std::to_string(total) + " " +
                     PrintableName(what);
  if (text.size() > 100) text.resize(100);
  std::fprintf(stderr, "\r\033[K%s", text.c_str());
  std::fflush(stderr);
}

}  // namespace sy::cli
