#include "plugin/install_layout.h"

// std::filesystem paths and error codes from Boost.DLL.
#define BOOST_DLL_USE_STD_FS
#include <boost/dll/runtime_symbol_info.hpp>

namespace sy {

InstallDirs InstallDirsFor(const std::filesystem::path& prefix) {
  InstallDirs dirs;
  if (!prefix.empty()) {
    dirs.plugins.push_back((prefix / "lib" / "switchyard" / "plugins").lexically_normal());
    dirs.programs.push_back((prefix / "libexec" / "switchyard").lexically_normal());
    return dirs;
  }
  std::error_code ec;
  const std::filesystem::path exe = boost::dll::program_location(ec);
  if (ec) return dirs;
  const std::filesystem::path bin = exe.parent_path();
  dirs.plugins = {(bin / ".." / "lib" / "switchyard" / "plugins").lexically_normal(), bin};
  dirs.programs = {bin, (bin / ".." / "libexec" / "switchyard").lexically_normal()};
  return dirs;
}

}  // namespace sy
