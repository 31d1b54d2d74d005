// `switchyard bench MODEL`: latency of Session::Run after warm-up: median, min, max wall
// time, and the median process CPU time per run (every thread of the process: the CPU
// plugin's pool and BLAS's own threads), which is what a loaded machine distorts least.
// --io-binding runs with the inputs and outputs on the session's device (IoBinding).
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iostream>

#include "cli.h"
#include "model_setup.h"
#include "profile_output.h"
#include "switchyard/value_names.h"

namespace sy::cli {
namespace {

// CPU time consumed by all threads of this process so far, in microseconds.
double ProcessCpuMicros() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e6 + static_cast<double>(ts.tv_nsec) * 1e-3;
}

double Median(std::vector<double>& v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// The nearest-rank percentile p (0 < p <= 100) of sorted, non-empty v.
double Percentile(const std::vector<double>& sorted, double p) {
  const auto rank = static_cast<size_t>(std::ceil(p / 100.0 * static_cast<double>(sorted.size())));
  return sorted[std::clamp<size_t>(rank, 1, sorted.size()) - 1];
}

}  // namespace

int RunBench(const std::vector<std::string>& args) {
  namespace po = boost::program_options;
  po::options_description visible(
      "usage: switchyard bench MODEL [--device SPEC] [--strict] [--memory-limit DEVICE=BYTES]...\n"
      "                        [--input ...] [--warmup N] [--repeat N] [--no-island-pass]\n"
      "                        [--optimize 0|1|2] [--isolate PLUGIN|all]... [--timeout S]\n"
      "                        [--io-binding] [--profile FILE] [--json]\n\n"
      "Prepares MODEL once (as 'switchyard run' does, inputs included), runs it --warmup\n"
      "times, then times --repeat runs and prints the median, minimum, maximum, 90th and\n"
      "99th percentile latency of one run (inputs copied in, outputs copied out), and the\n"
      "median CPU time of one run summed over the process's threads. An input given\n"
      "neither by --input nor in <model>/inputs gets seeded random data (said on stderr).\n"
      "With --io-binding the inputs are put on the session's device once, before the runs,\n"
      "and the outputs stay there (docs/host-api.md, \"Device-resident inputs and\n"
      "outputs\"): the runs time the device's work without the copies through host memory.\n\n"
      "options");
  visible.add_options()("help,h", "show this help")("warmup", po::value<int>()->default_value(3),
                                                    "untimed runs first")(
      "repeat", po::value<int>()->default_value(20), "timed runs")(
      "io-binding", "inputs on the session's device, outputs left there")("json", "print JSON");
  AddPluginOptions(visible);
  AddModelOptions(visible);
  AddProfileOption(visible);
  po::variables_map vm;
  int exit_code = kExitOk;
  if (!ParseArgs("bench", args, visible, "model", vm, exit_code)) return exit_code;
  if (!vm.count("model") || vm["model"].as<std::vector<std::string>>().size() != 1) {
    PrintError("bench", "expected exactly one MODEL (see 'switchyard bench --help')");
    return kExitUsage;
  }
  const int warmup = vm["warmup"].as<int>(), repeat = vm["repeat"].as<int>();
  if (warmup < 0 || repeat < 1 || repeat > 1000000) {
    PrintError("bench", "--warmup must be >= 0 and --repeat between 1 and 1000000");
    return kExitUsage;
  }
  const std::string model = vm["model"].as<std::vector<std::string>>()[0];
  Expected<PreparedModel> prepared = PrepareModel(model, vm);
  if (!prepared.ok()) {
    PrintError("bench", prepared.status().message());
    return kExitFailure;
  }
  Session& session = *prepared->session;
  // Inputs with no value (no --input, no <model>/inputs/<name>.npy): seeded random data.
  if (Status filled = FillMissingInputs(*prepared, SeedOption(vm), "bench"); !filled.ok()) {
    PrintError("bench", filled.message());
    return kExitFailure;
  }
  // A model with decoding state (docs/decoding.md) fills it run by run: it starts a new
  // sequence (Reset, outside the timed part) whenever the next run would not fit.
  const int64_t positions = session.StatePositions(prepared->inputs);
  const auto make_room = [&]() -> bool {
    if (!session.has_state() || session.state_length() + positions <= session.state_capacity()) {
      return true;
    }
    const Status reset = session.Reset();
    if (!reset.ok()) PrintError("bench", reset.message());
    return reset.ok();
  };
  // --io-binding: device tensors made once; the outputs' are reused run after run (the
  // binding holds the only handle).
  const bool bound = vm.count("io-binding") > 0;
  IoBinding binding;
  if (bound) {
    const Device& device = session.device();
    for (const auto& [name, tensor] : prepared->inputs) {
      Expected<DeviceTensor> on_device = DeviceTensor::FromHost(device, tensor);
      if (!on_device.ok()) {
        PrintError("bench",
                   on_device.status().WithContext("input '" + PrintableName(name) + "'").message());
        return kExitFailure;
      }
      binding.BindInput(name, std::move(*on_device));
    }
    for (const std::string& name : session.output_names()) binding.BindOutput(name, device);
  }
  const auto run_once = [&]() -> bool {
    const Status ran = bound ? session.Run(binding) : session.Run(prepared->inputs).status();
    if (!ran.ok()) PrintError("bench", ran.message());
    return ran.ok();
  };
  for (int i = 0; i < warmup; ++i) {
    if (!make_room() || !run_once()) return kExitFailure;
  }
  const Session::Stats before = session.stats();
  std::cerr << "switchyard bench: " << PlacementSummary(session.plan()) << "\n";
  // --profile: the timed runs are recorded (and pay for it: a clock read per node).
  session.set_profiling(vm.count("profile") > 0);
  std::vector<double> micros, cpu_micros;
  micros.reserve(repeat);
  cpu_micros.reserve(repeat);
  for (int i = 0; i < repeat; ++i) {
    if (!make_room()) return kExitFailure;
    const double cpu_start = ProcessCpuMicros();
    const auto start = std::chrono::steady_clock::now();
    const bool ran = run_once();
    micros.push_back(
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start)
            .count());
    cpu_micros.push_back(ProcessCpuMicros() - cpu_start);
    if (!ran) return kExitFailure;
  }
  // Bytes the timed runs moved between host memory and devices, per run.
  const double host_bytes =
      static_cast<double>(session.stats().host_bytes_in - before.host_bytes_in +
                          session.stats().host_bytes_out - before.host_bytes_out) /
      repeat;
  if (vm.count("profile")) {
    const Status written = WriteProfile(session.profile(), vm["profile"].as<std::string>());
    if (!written.ok()) {
      PrintError("bench", written.message());
      return kExitFailure;
    }
  }
  const double median = Median(micros);  // sorts micros
  const double median_cpu = Median(cpu_micros);
  const double p90 = Percentile(micros, 90), p99 = Percentile(micros, 99);
  if (vm.count("json")) {
    std::cout << boost::json::serialize(boost::json::object{
                     {"model", model},
                     {"device", session.device().Spec()},
                     {"device_name", session.device().name},
                     {"devices", DevicesUsed(session.plan())},
                     {"partitions", session.plan().partitions.size()},
                     {"copies", session.plan().copies.size()},
                     {"warmup", warmup},
                     {"repeat", repeat},
                     {"median_us", median},
                     {"min_us", micros.front()},
                     {"max_us", micros.back()},
                     {"p90_us", p90},
                     {"p99_us", p99},
                     {"median_cpu_us", median_cpu},
                     {"io_binding", bound},
                     {"host_bytes_per_run", host_bytes},
                     {"profile", vm.count("profile")
                                     ? boost::json::value(ProfileByOpJson(session.profile()))
                                     : boost::json::value(nullptr)}})
              << "\n";
  } else {
    std::cout << model << " on " << DevicesUsed(session.plan()) << ": median " << median
              << " us, min " << micros.front() << " us, max " << micros.back() << " us, p90 " << p90
              << " us, p99 " << p99 << " us over " << repeat << " runs (median CPU time "
              << median_cpu << " us)\n"
              << (bound ? "inputs and outputs bound on " + session.device().Spec() + "; "
                        : std::string())
              << "host memory traffic " << FormatBytes(static_cast<uint64_t>(host_bytes))
              << " per run\n";
    if (vm.count("profile")) {
      std::cout << "time by op over the " << repeat << " timed runs (profile written to "
                << vm["profile"].as<std::string>() << "):\n"
                << session.profile().SummaryText();
    }
  }
  return kExitOk;
}

}  // namespace sy::cli
