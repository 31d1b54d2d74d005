#include "profile_output.h"

#include <cerrno>
#include <cstring>
#include <fstream>

namespace sy::cli {

namespace po = boost::program_options;

void AddProfileOption(po::options_description& options) {
  options.add_options()("profile", po::value<std::string>(),
                        "record every node, partition and copy of the runs and write them to "
                        "FILE as a Chrome trace (open it in ui.perfetto.dev or "
                        "chrome://tracing); print the time by op type");
}

Status WriteProfile(const Profile& profile, const std::string& path) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) {
    return InvalidArgument("--profile " + path + ": cannot write: " + std::strerror(errno));
  }
  out << profile.ToChromeTrace() << "\n";
  out.flush();
  if (!out) return InvalidArgument("--profile " + path + ": write failed");
  return Status::Ok();
}

boost::json::array ProfileByOpJson(const Profile& profile) {
  const std::vector<Profile::OpTotal> totals = profile.ByOp();
  int64_t all = 0;
  for (const Profile::OpTotal& t : totals) all += t.total_ns;
  boost::json::array out;
  for (const Profile::OpTotal& t : totals) {
    out.push_back(boost::json::object{
        {"op", t.op},
        {"count", t.count},
        {"total_us", static_cast<double>(t.total_ns) / 1000.0},
        {"share", all > 0 ? static_cast<double>(t.total_ns) / static_cast<double>(all) : 0.0}});
  }
  return out;
}

}  // namespace sy::cli
