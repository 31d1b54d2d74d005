// Probing a plugin candidate in a separate process before the host loads it: a plugin
// that crashes, exits or hangs while it is loaded (in a constructor, sy_plugin_query,
// initialize or while describing its devices) then takes only the probe down, and the
// host lists it as rejected with the reason. docs/security.md, "Plugins".
//
// The probe is the program `switchyard-plugin-probe` (tools/plugin_probe/), which loads
// the plugin exactly as the host does and reports each step on a socket; its verdict
// counts only if it carries a nonce the host sends once the probe is done with the plugin
// (probe_report.h, which has the protocol). It is found
// through SWITCHYARD_PLUGIN_PROBE (a path; "0" turns probing off), else next to the
// running program, else in <prefix>/libexec/switchyard (install_layout.h). Verdicts are
// cached by the file's identity (device, inode, size, modification and change times) in
// $XDG_CACHE_HOME/switchyard/plugin-probes-v2.tsv (else ~/.cache/...), so later runs do
// not pay again.
//
// What the probe guards against: plugins that crash, exit or hang while they are loaded,
// and a verdict written by the plugin's own code (a constructor that writes "ok" and ends
// the probe with status 0: rejected, since it cannot know the nonce). A plugin is code the
// host runs in its own process once it is loaded, and it runs inside the probe too, so one
// written to defeat this protocol is beyond it (probe_report.h says how): install only
// plugins you trust (docs/security.md).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace sy {

struct ProbeResult {
  enum class Kind {
    kSkipped,   // not probed (turned off, or no probe program found): load in-process
    kUsable,    // loading it took the probe neither down nor past its time
    kRejected,  // it crashed, exited or hung while being loaded, or forged the report
  };
  Kind kind = Kind::kSkipped;
  std::string reason;  // kRejected: "crashed in initialize (SIGSEGV)"; kSkipped: why
  bool cached = false;
};

// Probes `plugin` (threads: passed to its initialize, as the host would; prefix: as
// DiscoveryOptions::prefix).
ProbeResult ProbePlugin(const std::filesystem::path& plugin, uint32_t threads,
                        double timeout_seconds, const std::filesystem::path& prefix = {});

// The probe program's name, and where ProbePlugin looks for it (empty: not found;
// `disabled` set when SWITCHYARD_PLUGIN_PROBE is "0").
inline constexpr char kProbeProgram[] = "switchyard-plugin-probe";
std::filesystem::path FindProbeProgram(bool* disabled, const std::filesystem::path& prefix = {});

// The plugin paths a verdict cache's text holds entries for (lines that do not parse are
// dropped, as the host drops them): the fuzz target's entry to the cache parser.
std::vector<std::string> ProbeCachePaths(const std::string& text);

}  // namespace sy
