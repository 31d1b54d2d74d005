// The conformance suite's API cases: the plugin contract itself, beyond what any op
// computes (docs/conformance.md lists them).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "conformance/case_execution.h"
#include "switchyard/plugin_host.h"

namespace sy::conformance {

struct ApiCase {
  const char* name;  // "load_unload_repeatedly"
  // `device` is the device under test, loaded from `path`; `reference` is cpu-ref.
  CaseResult (*run)(const std::filesystem::path& path, const Device& device,
                    const Device& reference);
};

const std::vector<ApiCase>& ApiCases();

}  // namespace sy::conformance
