#include "switchyard/profile.h"

#include <algorithm>
#include <cstdio>
#include <map>

#include <boost/json.hpp>

namespace sy {
namespace {

// Track ids of the trace: runs, copies, then one per device (in order of appearance).
constexpr int64_t kRunTrack = 1;
constexpr int64_t kCopyTrack = 2;

double Micros(int64_t ns) { return static_cast<double>(ns) / 1000.0; }

}  // namespace

std::string Profile::ToChromeTrace() const {
  boost::json::array trace;
  std::map<std::string, int64_t> device_tracks;
  const auto track_of = [&](const ProfileEvent& e) -> int64_t {
    if (e.kind == ProfileEvent::Kind::kRun) return kRunTrack;
    if (e.kind == ProfileEvent::Kind::kCopy) return kCopyTrack;
    auto [it, added] = device_tracks.emplace(
        e.device, kCopyTrack + 1 + static_cast<int64_t>(device_tracks.size()));
    return it->second;
  };
  for (const ProfileEvent& e : events_) {
    boost::json::object args{{"run", e.run}};
    const char* category = "node";
    switch (e.kind) {
      case ProfileEvent::Kind::kRun:
        category = "run";
        break;
      case ProfileEvent::Kind::kPartition:
        category = "partition";
        args["device"] = e.device;
        args["nodes_timed"] = e.nodes_timed;
        break;
      case ProfileEvent::Kind::kNode:
        args["op"] = e.op;
        args["device"] = e.device;
        args["shapes"] = e.detail;
        break;
      case ProfileEvent::Kind::kCopy:
        category = "copy";
        args["path"] = e.device;
        args["bytes"] = e.detail;
        break;
    }
    trace.push_back(boost::json::object{{"name", e.name},
                                        {"cat", category},
                                        {"ph", "X"},
                                        {"ts", Micros(e.start_ns)},
                                        {"dur", Micros(e.end_ns - e.start_ns)},
                                        {"pid", 1},
                                        {"tid", track_of(e)},
                                        {"args", std::move(args)}});
  }
  // Names of the process and its tracks, and their order.
  const auto name_track = [&trace](int64_t tid, const std::string& name) {
    trace.push_back(boost::json::object{{"name", "thread_name"},
                                        {"ph", "M"},
                                        {"pid", 1},
                                        {"tid", tid},
                                        {"args", {{"name", name}}}});
    trace.push_back(boost::json::object{{"name", "thread_sort_index"},
                                        {"ph", "M"},
                                        {"pid", 1},
                                        {"tid", tid},
                                        {"args", {{"sort_index", tid}}}});
  };
  trace.push_back(boost::json::object{
      {"name", "process_name"}, {"ph", "M"}, {"pid", 1}, {"args", {{"name", "switchyard"}}}});
  name_track(kRunTrack, "runs");
  name_track(kCopyTrack, "copies");
  for (const auto& [device, tid] : device_tracks) name_track(tid, device);
  return boost::json::serialize(
      boost::json::object{{"traceEvents", std::move(trace)}, {"displayTimeUnit", "ns"}});
}

std::vector<Profile::OpTotal> Profile::ByOp() const {
  std::map<std::string, OpTotal> totals;
  for (const ProfileEvent& e : events_) {
    std::string key;
    if (e.kind == ProfileEvent::Kind::kNode) {
      key = e.op;
    } else if (e.kind == ProfileEvent::Kind::kPartition && !e.nodes_timed) {
      key = "(partition on " + e.device + ", nodes not timed)";
    } else if (e.kind == ProfileEvent::Kind::kCopy) {
      key = "(copies between devices)";
    } else {
      continue;
    }
    OpTotal& t = totals[key];
    t.op = key;
    ++t.count;
    t.total_ns += e.end_ns - e.start_ns;
  }
  std::vector<OpTotal> out;
  for (auto& [key, total] : totals) out.push_back(total);
  std::sort(out.begin(), out.end(), [](const OpTotal& a, const OpTotal& b) {
    return a.total_ns != b.total_ns ? a.total_ns > b.total_ns : a.op < b.op;
  });
  return out;
}

std::string Profile::SummaryText() const {
  const std::vector<OpTotal> totals = ByOp();
  int64_t all = 0;
  for (const OpTotal& t : totals) all += t.total_ns;
  const double runs = static_cast<double>(std::max<int64_t>(runs_, 1));
  std::string text;
  char line[256];
  std::snprintf(line, sizeof line, "%-40s %7s %10s %12s %12s\n", "op", "share", "per run",
                "us per run", "mean us");
  text += line;
  for (const OpTotal& t : totals) {
    std::snprintf(
        line, sizeof line, "%-40s %6.1f%% %10.1f %12.2f %12.3f\n", t.op.c_str(),
        all > 0 ? 100.0 * static_cast<double>(t.total_ns) / static_cast<double>(all) : 0.0,
        static_cast<double>(t.count) / runs, Micros(t.total_ns) / runs,
        t.count > 0 ? Micros(t.total_ns) / static_cast<double>(t.count) : 0.0);
    text += line;
  }
  std::snprintf(line, sizeof line, "%-40s %6.1f%% %10s %12.2f\n", "total", 100.0, "",
                Micros(all) / runs);
  text += line;
  return text;
}

}  // namespace sy
