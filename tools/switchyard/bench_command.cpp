// `switchyard bench MODEL`: latency of Session::Run after warm-up: median, min, max.
#include <algorithm>
#include <chrono>
#include <iostream>

#include "cli.h"
#include "model_setup.h"

namespace sy::cli {

int RunBench(const std::vector<std::string>& args) {
  namespace po = boost::program_options;
  po::options_description visible(
      "usage: switchyard bench MODEL [--device SPEC] [--strict] [--memory-limit DEVICE=BYTES]...\n"
      "                        [--input ...] [--warmup N] [--repeat N] [--json]\n\n"
      "Prepares MODEL once (as 'switchyard run' does, inputs included), runs it --warmup\n"
      "times, then times --repeat runs and prints the median, minimum and maximum latency\n"
      "of one run (inputs copied in, outputs copied out).\n\n"
      "options");
  visible.add_options()("help,h", "show this help")("warmup", po::value<int>()->default_value(3),
                                                    "untimed runs first")(
      "repeat", po::value<int>()->default_value(20), "timed runs")("json", "print JSON");
  AddPluginOptions(visible);
  AddModelOptions(visible);
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
  for (int i = 0; i < warmup; ++i) {
    Expected<std::map<std::string, Tensor>> out = session.Run(prepared->inputs);
    if (!out.ok()) {
      PrintError("bench", out.status().message());
      return kExitFailure;
    }
  }
  std::vector<double> micros;
  micros.reserve(repeat);
  for (int i = 0; i < repeat; ++i) {
    const auto start = std::chrono::steady_clock::now();
    Expected<std::map<std::string, Tensor>> out = session.Run(prepared->inputs);
    micros.push_back(
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start)
            .count());
    if (!out.ok()) {
      PrintError("bench", out.status().message());
      return kExitFailure;
    }
  }
  std::sort(micros.begin(), micros.end());
  const double median =
      repeat % 2 ? micros[repeat / 2] : (micros[repeat / 2 - 1] + micros[repeat / 2]) / 2;
  if (vm.count("json")) {
    std::cout << boost::json::serialize(
                     boost::json::object{{"model", model},
                                         {"device", session.device().Spec()},
                                         {"device_name", session.device().name},
                                         {"devices", DevicesUsed(session.plan())},
                                         {"partitions", session.plan().partitions.size()},
                                         {"copies", session.plan().copies.size()},
                                         {"warmup", warmup},
                                         {"repeat", repeat},
                                         {"median_us", median},
                                         {"min_us", micros.front()},
                                         {"max_us", micros.back()}})
              << "\n";
  } else {
    std::cout << model << " on " << DevicesUsed(session.plan()) << ": median " << median
              << " us, min " << micros.front() << " us, max " << micros.back() << " us over "
              << repeat << " runs\n";
  }
  return kExitOk;
}

}  // namespace sy::cli
