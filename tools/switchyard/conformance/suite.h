// The ordered list of cases one conformance run executes (API cases, then op cases in
// catalogue order), and the worker that runs a stretch of it in a child process.
//
// Isolation: the parent (`switchyard conformance`) starts a worker process (the same
// executable with the hidden option --worker-start K) that loads the plugin and runs
// cases K, K+1, ... writing "B <k>" before and "R <k> <outcome> <detail>" after each
// case on its standard output. When the worker dies, the case it began is recorded as
// crashed; when a case outlasts the timeout, the parent kills the worker and records it
// as hung; either way a new worker resumes with the next case.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "conformance/case_execution.h"
#include "conformance/op_cases.h"

namespace sy::conformance {

struct SuiteCase {
  std::string op;     // "api" for API cases
  std::string label;  // the API case's name, or the op case's label
  int api_index = -1;
  OpCase op_case;
};

struct SuiteOptions {
  std::vector<std::string> ops;  // empty: every op and the API cases; "api" selects those
  bool mandatory_only = false;
  std::string label_glob;  // fnmatch(3) pattern on case labels; empty = every case
};

// Fails on an unknown op name in `ops`.
Expected<std::vector<SuiteCase>> BuildSuite(const SuiteOptions& options);

struct WorkerOptions {
  std::filesystem::path plugin;      // the plugin under test
  int device = -1;                   // index in the plugin; -1 = its first non-reference device
  std::filesystem::path cpu_plugin;  // where cpu-ref comes from
  uint32_t threads = 0;
};

// Runs cases [start, end) of `suite` in this process, reporting on `out_fd`. Returns the
// process exit code.
int RunWorker(const WorkerOptions& options, const std::vector<SuiteCase>& suite, size_t start,
              int out_fd);

}  // namespace sy::conformance
