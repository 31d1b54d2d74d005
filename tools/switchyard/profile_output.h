// --profile FILE for `run` and `bench` (docs/profiling.md): the session records its runs,
// the trace is written as Chrome trace-event JSON and the time by op type is printed.
#pragma once

#include <string>

#include <boost/json.hpp>
#include <boost/program_options.hpp>

#include "switchyard/profile.h"
#include "switchyard/status.h"

namespace sy::cli {

void AddProfileOption(boost::program_options::options_description& options);

// Writes `profile` to `path` as Chrome trace-event JSON (replacing the file).
Status WriteProfile(const Profile& profile, const std::string& path);

// Profile::ByOp as JSON: [{"op", "count", "total_us", "share"}...].
boost::json::array ProfileByOpJson(const Profile& profile);

}  // namespace sy::cli
