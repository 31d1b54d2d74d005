// `switchyard run MODEL`: load, prepare on a device, run once, write and show outputs.
#include <chrono>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <random>

#include "switchyard/half.h"

#include "cli.h"
#include "switchyard/model_io.h"
#include "switchyard/npy.h"
#include "switchyard/session.h"

namespace sy::cli {
namespace {

namespace po = boost::program_options;

// Deterministic random data: floats uniform in [-1, 1), integers in [0, 8), bools 0/1.
Tensor RandomTensor(const TensorType& type, uint32_t seed) {
  Tensor t = *Tensor::Allocate(type.dtype, type.shape);
  std::mt19937_64 rng(seed);
  for (int64_t i = 0; i < t.element_count(); ++i) {
    const uint64_t r = rng();
    std::byte* p = t.mutable_data() + i * static_cast<int64_t>(DTypeSize(type.dtype));
    const double u = static_cast<double>(r >> 11) * (1.0 / 9007199254740992.0) * 2.0 - 1.0;
    auto store = [p](auto v) { std::memcpy(p, &v, sizeof v); };
    switch (type.dtype) {
      case DType::kF32:
        store(static_cast<float>(u));
        break;
      case DType::kF64:
        store(u);
        break;
      case DType::kF16:
        store(FloatToHalf(static_cast<float>(u)));
        break;
      case DType::kBF16:
        store(FloatToBFloat16(static_cast<float>(u)));
        break;
      case DType::kI8:
        store(static_cast<int8_t>(r % 8));
        break;
      case DType::kU8:
        store(static_cast<uint8_t>(r % 8));
        break;
      case DType::kI32:
        store(static_cast<int32_t>(r % 8));
        break;
      case DType::kI64:
        store(static_cast<int64_t>(r % 8));
        break;
      case DType::kBool:
        store(static_cast<uint8_t>(r & 1));
        break;
    }
  }
  return t;
}

// bf16 has no .npy dtype: outputs of that type are written widened to f32.
Tensor ForNpy(const Tensor& t) {
  if (t.dtype() != DType::kBF16) return t;
  Tensor wide = *Tensor::Allocate(DType::kF32, t.shape());
  for (int64_t i = 0; i < t.element_count(); ++i) {
    wide.mutable_values<float>()[i] = static_cast<float>(ElementAsDouble(t, i));
  }
  return wide;
}

}  // namespace

int RunRun(const std::vector<std::string>& args) {
  po::options_description visible(
      "usage: switchyard run MODEL [--device SPEC] [--input NAME=FILE.npy|NAME=random]...\n"
      "                      [--out DIR] [--compare DIR] [--json]\n\n"
      "Loads MODEL (both validation passes), prepares it on a device and runs it once.\n"
      "Inputs not given with --input are read from <model folder>/inputs/<name>.npy when\n"
      "that file exists. Prints each output's type and first values; --out writes each as\n"
      "DIR/<name>.npy. --compare DIR checks every output against DIR/<name>.npy\n"
      "(|a - b| <= atol + rtol * |b|) and fails when any differs.\n\n"
      "SPEC is a comma-separated list of devices in order of preference, each plugin[:index]\n"
      "or a device name (cpu, cpu:1, cpu-ref); the graph runs on the first that supports\n"
      "every node. The default is every non-reference device, GPUs before CPUs.\n\n"
      "options");
  visible.add_options()("help,h", "show this help")("device", po::value<std::string>(),
                                                    "devices to use, in order of preference")(
      "input", po::value<std::vector<std::string>>()->composing(), "NAME=FILE.npy or NAME=random")(
      "seed", po::value<uint32_t>()->default_value(1), "seed for NAME=random")(
      "out", po::value<std::string>(), "write outputs as DIR/<name>.npy")(
      "compare", po::value<std::string>(), "compare outputs with DIR/<name>.npy")(
      "rtol", po::value<double>()->default_value(1e-4), "relative tolerance for --compare")(
      "atol", po::value<double>()->default_value(1e-5), "absolute tolerance for --compare")(
      "json", "print JSON");
  AddPluginOptions(visible);
  po::variables_map vm;
  int exit_code = kExitOk;
  if (!ParseArgs("run", args, visible, "model", vm, exit_code)) return exit_code;
  if (!vm.count("model") || vm["model"].as<std::vector<std::string>>().size() != 1) {
    PrintError("run", "expected exactly one MODEL (see 'switchyard run --help')");
    return kExitUsage;
  }
  const std::string model = vm["model"].as<std::vector<std::string>>()[0];
  Expected<Graph> graph = LoadModel(model);
  if (!graph.ok()) {
    PrintError("run", graph.status().message());
    return kExitFailure;
  }
  Expected<std::unique_ptr<PluginHost>> host = LoadPlugins(vm);
  if (!host.ok()) {
    PrintError("run", host.status().message());
    return kExitFailure;
  }

  // Candidate devices in preference order.
  std::vector<const Device*> candidates;
  if (vm.count("device")) {
    std::string spec = vm["device"].as<std::string>();
    size_t start = 0;
    while (start <= spec.size()) {
      const size_t comma = spec.find(',', start);
      const std::string one = spec.substr(start, comma - start);
      Expected<const Device*> d = (*host)->FindDevice(one);
      if (!d.ok()) {
        PrintError("run", d.status().message());
        return kExitUsage;
      }
      candidates.push_back(*d);
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  } else {
    for (DeviceKind kind : {DeviceKind::kDiscreteGpu, DeviceKind::kAccelerator,
                            DeviceKind::kIntegratedGpu, DeviceKind::kCpu}) {
      for (const Device* d : (*host)->devices()) {
        if (d->kind == kind && !d->reference()) candidates.push_back(d);
      }
    }
  }
  if (candidates.empty()) {
    PrintError("run", "no device to run on (see 'switchyard plugins' and 'switchyard devices')");
    return kExitFailure;
  }
  std::unique_ptr<Session> session;
  std::string declines;
  for (const Device* d : candidates) {
    Expected<std::unique_ptr<Session>> s = Session::Create(*graph, *d);
    if (s.ok()) {
      session = std::move(*s);
      break;
    }
    declines += "\n  " + s.status().message();
  }
  if (!session) {
    PrintError("run", "no device can run the whole model:" + declines);
    return kExitFailure;
  }

  // Inputs: --input first, then <model folder>/inputs/<name>.npy.
  std::map<std::string, Tensor> inputs;
  if (vm.count("input")) {
    for (const std::string& item : vm["input"].as<std::vector<std::string>>()) {
      const size_t eq = item.find('=');
      if (eq == std::string::npos || eq == 0) {
        PrintError("run", "--input " + item + ": expected NAME=FILE.npy or NAME=random");
        return kExitUsage;
      }
      const std::string name = item.substr(0, eq), source = item.substr(eq + 1);
      Expected<Tensor> t = Status();
      if (source == "random") {
        const auto& names = session->input_names();
        const auto it = std::find(names.begin(), names.end(), name);
        if (it == names.end()) {
          PrintError("run", "--input " + name + "=random: the model has no input \"" + name + "\"");
          return kExitFailure;
        }
        t = RandomTensor(session->input_types()[it - names.begin()], vm["seed"].as<uint32_t>());
      } else {
        t = ReadNpy(source);
      }
      if (!t.ok()) {
        PrintError("run", "--input " + name + ": " + t.status().message());
        return kExitFailure;
      }
      inputs[name] = std::move(*t);
    }
  }
  const std::filesystem::path folder = ResolveModelPaths(model).json.parent_path() / "inputs";
  for (const std::string& name : session->input_names()) {
    if (inputs.count(name)) continue;
    const std::filesystem::path file = folder / (name + ".npy");
    std::error_code ec;
    if (!std::filesystem::exists(file, ec)) continue;  // Run reports it missing
    Expected<Tensor> t = ReadNpy(file);
    if (!t.ok()) {
      PrintError("run", t.status().message());
      return kExitFailure;
    }
    inputs[name] = std::move(*t);
  }

  const auto start = std::chrono::steady_clock::now();
  Expected<std::map<std::string, Tensor>> outputs = session->Run(inputs);
  const double micros =
      std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
  if (!outputs.ok()) {
    PrintError("run", outputs.status().message());
    return kExitFailure;
  }

  boost::json::array json_outputs;
  bool mismatch = false;
  const std::string device_text = session->device().Spec() + " (" + session->device().name + ")";
  if (!vm.count("json")) std::cout << "ran on " << device_text << " in " << micros << " us\n";
  for (const auto& [name, tensor] : *outputs) {
    boost::json::object o = TypeToJson(name, tensor.type());
    o["preview"] = PreviewJson(tensor);
    std::string line = name + ": " + tensor.type().ToString() + " " + Preview(tensor);
    if (vm.count("out")) {
      std::error_code ec;
      std::filesystem::create_directories(vm["out"].as<std::string>(), ec);
      const auto path = std::filesystem::path(vm["out"].as<std::string>()) / (name + ".npy");
      Status written = WriteNpy(path, ForNpy(tensor));
      if (!written.ok()) {
        PrintError("run", written.message());
        return kExitFailure;
      }
      o["path"] = path.string();
    }
    if (vm.count("compare")) {
      const auto path = std::filesystem::path(vm["compare"].as<std::string>()) / (name + ".npy");
      Expected<Tensor> expected = ReadNpy(path);
      if (!expected.ok()) {
        PrintError("run", expected.status().message());
        return kExitFailure;
      }
      const double rtol = vm["rtol"].as<double>(), atol = vm["atol"].as<double>();
      double max_diff = 0;
      bool ok = expected->shape() == tensor.shape();
      for (int64_t i = 0; ok && i < tensor.element_count(); ++i) {
        const double a = ElementAsDouble(tensor, i), b = ElementAsDouble(*expected, i);
        const double diff = std::fabs(a - b);
        if (std::isnan(a) != std::isnan(b) || diff > atol + rtol * std::fabs(b)) ok = false;
        if (std::isfinite(diff)) max_diff = std::max(max_diff, diff);
      }
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
    std::cout << boost::json::serialize(
                     boost::json::object{{"model", ResolveModelPaths(model).json.string()},
                                         {"device", session->device().Spec()},
                                         {"device_name", session->device().name},
                                         {"latency_us", micros},
                                         {"outputs", std::move(json_outputs)}})
              << "\n";
  }
  return mismatch ? kExitFailure : kExitOk;
}

}  // namespace sy::cli
