// `switchyard run MODEL`: load, prepare on a device, run once, write and show outputs.
#include <chrono>
#include <cmath>
#include <filesystem>
#include <functional>
#include <iostream>
#include <random>

#include "switchyard/half.h"

#include "cli.h"
#include "model_setup.h"
#include "profile_output.h"
#include "run_dirs.h"
#include "switchyard/model_io.h"
#include "switchyard/npy.h"
#include "switchyard/session.h"
#include "switchyard/value_names.h"

namespace sy::cli {
namespace {

namespace po = boost::program_options;

// bf16 has no .npy dtype: outputs of that type are written widened to f32.
Expected<Tensor> ForNpy(const Tensor& t) {
  if (t.dtype() != DType::kBF16) return t;
  SY_ASSIGN_OR_RETURN(Tensor wide, Tensor::Allocate(DType::kF32, t.shape()));
  for (int64_t i = 0; i < t.element_count(); ++i) {
    wide.mutable_values<float>()[i] = static_cast<float>(ElementAsDouble(t, i));
  }
  return wide;
}

// --rtol and --atol: finite and not negative (NaN would make every comparison pass).
std::function<void(double)> Tolerance(std::string option) {
  return [option = std::move(option)](double value) {
    if (!std::isfinite(value) || value < 0) {
      throw po::error(option + " " + std::to_string(value) +
                      ": expected a finite tolerance of 0 or more");
    }
  };
}

}  // namespace

int RunRun(const std::vector<std::string>& args) {
  po::options_description visible(
      "usage: switchyard run MODEL [--device SPEC] [--strict] [--memory-limit DEVICE=BYTES]...\n"
      "                      [--input NAME=FILE.npy|NAME=random]... [--out DIR]\n"
      "                      [--compare DIR] [--no-island-pass] [--optimize 0|1|2]\n"
      "                      [--isolate PLUGIN|all]... [--timeout S] [--profile FILE]\n"
      "                      [--run-dir DIR]... [--json]\n\n"
      "Loads MODEL (both validation passes), prepares it on a device and runs it once.\n"
      "Inputs not given with --input are read from <model folder>/inputs/<name>.npy when\n"
      "that file exists. Prints each output's type and first values; --out writes each as\n"
      "DIR/<name>.npy. --compare DIR checks every output against DIR/<name>.npy\n"
      "(|a - b| <= atol + rtol * |b|) and fails when any differs. In file names, '/', '\\',\n"
      "'%', control characters and a leading '.' of a name are written %XX.\n\n"
      "A model with run-time sizes (docs/dynamic-shapes.md) specialises at each new set of\n"
      "input shapes; --run-dir runs several requests in one session to show it.\n\n"
      "SPEC is a comma-separated list of devices in order of preference, each plugin[:index]\n"
      "or a device name (cpu, cpu:1, cpu-ref). Each node runs on its backend hint when that\n"
      "device supports it, else on the first device of SPEC that does, else on the CPU\n"
      "plugin; 'switchyard plan' shows where and why. The default order is GPUs,\n"
      "accelerators, then CPUs (never cpu-ref unless named).\n\n"
      "options");
  visible.add_options()("help,h", "show this help")("out", po::value<std::string>(),
                                                    "write outputs as DIR/<name>.npy")(
      "compare", po::value<std::string>(), "compare outputs with DIR/<name>.npy")(
      "rtol", po::value<double>()->default_value(1e-4)->notifier(Tolerance("--rtol")),
      "relative tolerance for --compare")(
      "atol", po::value<double>()->default_value(1e-5)->notifier(Tolerance("--atol")),
      "absolute tolerance for --compare")("json", "print JSON")(
      "run-dir", po::value<std::vector<std::string>>()->composing(),
      "run once per DIR in one session (repeatable): inputs from DIR/inputs/<name>.npy, "
      "outputs checked against DIR/expected/<name>.npy where it exists");
  AddPluginOptions(visible);
  AddModelOptions(visible);
  AddProfileOption(visible);
  po::variables_map vm;
  int exit_code = kExitOk;
  if (!ParseArgs("run", args, visible, "model", vm, exit_code)) return exit_code;
  if (!vm.count("model") || vm["model"].as<std::vector<std::string>>().size() != 1) {
    PrintError("run", "expected exactly one MODEL (see 'switchyard run --help')");
    return kExitUsage;
  }
  const std::string model = vm["model"].as<std::vector<std::string>>()[0];
  Expected<PreparedModel> prepared = PrepareModel(model, vm);
  if (!prepared.ok()) {
    PrintError("run", prepared.status().message());
    return kExitFailure;
  }
  std::unique_ptr<Session>& session = prepared->session;
  const std::map<std::string, Tensor>& inputs = prepared->inputs;
  if (vm.count("run-dir")) return RunDirs(*prepared, vm);

  // A dynamic session shows the plan of the shapes it ran (after the run).
  if (!session->dynamic())
    std::cerr << "switchyard run: " << PlacementSummary(session->plan()) << "\n";
  session->set_profiling(vm.count("profile") > 0);
  const auto start = std::chrono::steady_clock::now();
  Expected<std::map<std::string, Tensor>> outputs = session->Run(inputs);
  const double micros =
      std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
  if (!outputs.ok()) {
    PrintError("run", outputs.status().message());
    return kExitFailure;
  }
  if (session->dynamic())
    std::cerr << "switchyard run: " << PlacementSummary(session->plan()) << "\n";
  if (vm.count("profile")) {
    const Status written = WriteProfile(session->profile(), vm["profile"].as<std::string>());
    if (!written.ok()) {
      PrintError("run", written.message());
      return kExitFailure;
    }
  }

  boost::json::array json_outputs;
  bool mismatch = false;
  const Plan& plan = session->plan();
  std::string device_text = DevicesUsed(plan);
  // A graph with no nodes (its outputs are inputs or constants) runs on no device.
  if (device_text.empty()) device_text = "no device (the graph has no nodes to run)";
  if (plan.partitions.size() > 1) {
    device_text += " (" + std::to_string(plan.partitions.size()) + " partitions, " +
                   std::to_string(plan.copies.size()) + " copies; see 'switchyard plan')";
  }
  if (!vm.count("json")) std::cout << "ran on " << device_text << " in " << micros << " us\n";
  for (const auto& [name, tensor] : *outputs) {
    boost::json::object o = TypeToJson(name, tensor.type());
    o["preview"] = PreviewJson(tensor);
    std::string line =
        PrintableName(name) + ": " + tensor.type().ToString() + " " + Preview(tensor);
    if (vm.count("out")) {
      std::error_code ec;
      std::filesystem::create_directories(vm["out"].as<std::string>(), ec);
      const auto path = std::filesystem::path(vm["out"].as<std::string>()) / ValueFileName(name);
      Expected<Tensor> npy = ForNpy(tensor);
      Status written = npy.ok() ? WriteNpy(path, *npy) : npy.status();
      if (!written.ok()) {
        PrintError("run", written.message());
        return kExitFailure;
      }
      o["path"] = path.string();
    }
    if (vm.count("compare")) {
      const auto path =
          std::filesystem::path(vm["compare"].as<std::string>()) / ValueFileName(name);
      Expected<std::pair<bool, double>> compared =
          CompareWithNpy(tensor, path, vm["rtol"].as<double>(), vm["atol"].as<double>());
      if (!compared.ok()) {
        PrintError("run", compared.status().message());
        return kExitFailure;
      }
      const auto [ok, max_diff] = *compared;
      mismatch = mismatch || !ok;
      o["matches"] = ok;
      o["max_abs_diff"] = max_diff;
      line += ok ? "  matches " : "  DIFFERS from ";
      line += path.string() + " (max |diff| " + std::to_string(max_diff) + ")";
    }
    json_outputs.push_back(std::move(o));
    if (!vm.count("json")) std::cout << line << "\n";
  }
  if (vm.count("json")) {
    std::cout << boost::json::serialize(boost::json::object{
                     {"model", ResolveModelPaths(model).file().string()},
                     {"device", session->device().Spec()},
                     {"device_name", session->device().name},
                     {"devices", DevicesUsed(plan)},
                     {"partitions", plan.partitions.size()},
                     {"copies", plan.copies.size()},
                     {"latency_us", micros},
                     {"outputs", std::move(json_outputs)},
                     {"profile", vm.count("profile")
                                     ? boost::json::value(ProfileByOpJson(session->profile()))
                                     : boost::json::value(nullptr)}})
              << "\n";
  } else if (vm.count("profile")) {
    std::cout << "time by op (profile written to " << vm["profile"].as<std::string>() << "):\n"
              << session->profile().SummaryText();
  }
  return mismatch ? kExitFailure : kExitOk;
}

}  // namespace sy::cli
