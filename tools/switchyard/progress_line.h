// A one-line progress report on a terminal, for work that takes long enough to wonder
// about: `conformance` (thousands of cases), preparing partitions (the OpenCL plugin
// compiles its kernels on the first run: about 20 s for the transformer example on PoCL).
// Shown only when stderr is a terminal (never in pipes, files or CI logs), and only once
// the work has lasted half a second; redrawn at most ten times a second, and erased when
// the object ends, so that what the command prints afterwards starts on a clean line.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>
#include <string_view>

namespace sy::cli {

class ProgressLine {
 public:
  // `prefix`: "switchyard conformance".
  explicit ProgressLine(std::string prefix);
  ~ProgressLine();
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  // "<prefix>: <done>/<total> <what>".
  void Update(size_t done, size_t total, std::string_view what);

 private:
  std::string prefix_;
  bool enabled_ = false;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point start_, last_;
};

}  // namespace sy::cli
