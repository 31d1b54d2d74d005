// Where a host's installation keeps its plugins and helper programs.
//
// A host is part of an installation prefix P: the bundled plugins in
// P/lib/switchyard/plugins, the probe and worker programs (plugin_probe.h,
// isolation/isolated_plugin.h) in P/libexec/switchyard. For a program (the CLI, a C++ host
// application) P is its own folder's parent, and its own folder is searched too (the build
// tree keeps every program in bin/). A host inside another program (the Python module,
// whose executable is the interpreter) names its prefix in DiscoveryOptions::prefix.
#pragma once

#include <filesystem>
#include <vector>

namespace sy {

struct InstallDirs {
  std::vector<std::filesystem::path> plugins;   // scanned for *.so, in order
  std::vector<std::filesystem::path> programs;  // looked in for the helper programs, in order
};

// `prefix` empty: the running program's (above); empty lists when its location is unknown.
InstallDirs InstallDirsFor(const std::filesystem::path& prefix);

}  // namespace sy
