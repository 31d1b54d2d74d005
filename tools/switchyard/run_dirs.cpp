#include "run_dirs.h"

#include <chrono>
#include <cmath>
#include <iostream>

#include "cli.h"
#include "switchyard/npy.h"
#include "switchyard/session.h"
#include "switchyard/value_names.h"

namespace sy::cli {

Expected<std::pair<bool, double>> CompareWithNpy(const Tensor& actual,
                                                 const std::filesystem::path& path, double rtol,
                                                 double atol) {
  SY_ASSIGN_OR_RETURN(Tensor expected, ReadNpy(path));
  double max_diff = 0;
  bool ok = expected.shape() == actual.shape();
  for (int64_t i = 0; ok && i < actual.element_count(); ++i) {
    const double a = ElementAsDouble(actual, i), b = ElementAsDouble(expected, i);
    const double diff = std::fabs(a - b);
    if (std::isnan(a) != std::isnan(b) || diff > atol + rtol * std::fabs(b)) ok = false;
    if (std::isfinite(diff)) max_diff = std::max(max_diff, diff);
  }
  return std::pair{ok, max_diff};
}

int RunDirs(PreparedModel& prepared, const boost::program_options::variables_map& vm) {
  Session& session = *prepared.session;
  const double rtol = vm["rtol"].as<double>(), atol = vm["atol"].as<double>();
  const auto dirs = vm["run-dir"].as<std::vector<std::string>>();
  bool mismatch = false;
  for (size_t r = 0; r < dirs.size(); ++r) {
    const std::filesystem::path dir(dirs[r]);
    std::map<std::string, Tensor> inputs;
    std::string shapes;
    for (const std::string& name : session.input_names()) {
      Expected<Tensor> t = ReadNpy(dir / "inputs" / ValueFileName(name));
      if (!t.ok()) {
        PrintError("run", t.status().WithContext("--run-dir " + dir.string()).message());
        return kExitFailure;
      }
      shapes +=
          (shapes.empty() ? "" : ", ") + PrintableName(name) + " " + ShapeToString(t->shape());
      inputs[name] = std::move(*t);
    }
    const uint64_t built_before = session.stats().specializations;
    const auto start = std::chrono::steady_clock::now();
    Expected<std::map<std::string, Tensor>> outputs = session.Run(inputs);
    const double micros =
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
    if (!outputs.ok()) {
      PrintError("run", outputs.status().WithContext("--run-dir " + dir.string()).message());
      return kExitFailure;
    }
    const bool specialised = session.stats().specializations != built_before;
    std::cout << "run " << r << " (" << dir.string() << "): " << shapes << ": "
              << (specialised ? "specialised and ran" : "ran") << " in " << micros << " us\n";
    for (const auto& [name, tensor] : *outputs) {
      std::string line = "  " + PrintableName(name) + ": " + tensor.type().ToString();
      const std::filesystem::path expected = dir / "expected" / ValueFileName(name);
      std::error_code ec;
      if (std::filesystem::exists(expected, ec)) {
        Expected<std::pair<bool, double>> compared = CompareWithNpy(tensor, expected, rtol, atol);
        if (!compared.ok()) {
          PrintError("run", compared.status().message());
          return kExitFailure;
        }
        mismatch = mismatch || !compared->first;
        line += compared->first ? "  matches " : "  DIFFERS from ";
        line += expected.string() + " (max |diff| " + std::to_string(compared->second) + ")";
      }
      std::cout << line << "\n";
    }
  }
  const Session::Stats& stats = session.stats();
  if (session.dynamic()) {
    std::cout << dirs.size() << " runs: " << stats.specializations << " specialisations built, "
              << stats.specialization_hits << " runs from the cache, "
              << stats.specializations_evicted << " evicted; " << stats.prepares
              << " partitions prepared, " << stats.executables_resized
              << " run on an executable prepared for other sizes\n";
  }
  return mismatch ? kExitFailure : kExitOk;
}

}  // namespace sy::cli
