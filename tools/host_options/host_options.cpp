#include "host_options.h"

#include <algorithm>
#include <filesystem>

#include "switchyard/model_io.h"
#include "switchyard/value_names.h"

namespace sy::host_options {

Status CheckIsolated(const PluginHost& host, const std::vector<std::string>& isolate) {
  for (const std::string& wanted : isolate) {
    if (wanted == "all") continue;
    bool found = false;
    std::string loaded;
    for (const auto& plugin : host.plugins()) {
      loaded += (loaded.empty() ? "" : ", ") + plugin->name();
      found |= plugin->isolated() &&
               (plugin->name() == wanted || plugin->path() == std::filesystem::path(wanted));
    }
    if (!found) {
      return InvalidArgument(PrintableName(wanted) +
                             ": no plugin of that name or path was loaded (loaded: " +
                             (loaded.empty() ? "none" : loaded) + ")");
    }
  }
  return Status::Ok();
}

Expected<std::vector<const Device*>> FindDevices(const PluginHost& host,
                                                 const std::vector<std::string>& specs) {
  std::vector<const Device*> devices;
  for (const std::string& spec : specs) {
    Expected<const Device*> d = host.FindDevice(spec);
    if (!d.ok()) return InvalidArgument(d.status().message());
    if (std::find(devices.begin(), devices.end(), *d) != devices.end()) {
      return InvalidArgument(spec + " is " + (*d)->Spec() + ", which is already in the list");
    }
    devices.push_back(*d);
  }
  return devices;
}

Expected<std::pair<const Device*, uint64_t>> MemoryLimit(const PluginHost& host,
                                                         const std::string& device,
                                                         const std::string& bytes) {
  Expected<const Device*> d = host.FindDevice(device);
  if (!d.ok()) return InvalidArgument(d.status().message());
  Expected<uint64_t> parsed = ParseByteSize(bytes);
  if (!parsed.ok()) return InvalidArgument(parsed.status().message());
  if (*parsed == 0) {
    return InvalidArgument(
        "a limit of 0 bytes would hold nothing (it used to mean no limit); "
        "give a positive size, or leave the option out");
  }
  return std::pair{*d, *parsed};
}

Expected<std::filesystem::path> SaveModelAt(const Graph& graph, std::filesystem::path stem) {
  if (stem.extension() == ".json") stem.replace_extension();
  if (stem.has_parent_path()) {
    // out/model: the folder the user named is made, as `run --out DIR` does.
    std::error_code ec;
    std::filesystem::create_directories(stem.parent_path(), ec);
    if (ec) {
      return IoError("cannot create the folder " + stem.parent_path().string() + ": " +
                     ec.message());
    }
  }
  SY_RETURN_IF_ERROR(SaveModel(graph, stem));
  if (stem.extension() == kSingleFileExtension) return stem;
  return std::filesystem::path(stem.string() + ".json");
}

}  // namespace sy::host_options
