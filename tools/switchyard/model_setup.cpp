#include "model_setup.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <optional>
#include <random>
#include <sstream>

#include "cli.h"
#include "host_options.h"
#include "progress_line.h"
#include "switchyard/half.h"
#include "switchyard/model_io.h"
#include "switchyard/npy.h"
#include "switchyard/optimize.h"
#include "switchyard/specialize.h"
#include "switchyard/value_names.h"

namespace sy::cli {
namespace {

// A seed: decimal digits only (boost's lexical_cast would wrap "-1" to 2^64 - 1).
std::optional<uint64_t> ParseSeed(const std::string& text) {
  uint64_t v = 0;
  const char* end = text.data() + text.size();
  if (text.empty() || text.front() < '0' || text.front() > '9') return std::nullopt;
  const auto [ptr, ec] = std::from_chars(text.data(), end, v);
  if (ec != std::errc() || ptr != end) return std::nullopt;
  return v;
}

}  // namespace

Expected<Tensor> RandomTensor(const TensorType& type, uint64_t seed) {
  Expected<Tensor> allocated = Tensor::Allocate(type.dtype, type.shape);
  if (!allocated.ok()) {
    return allocated.status().WithContext("random data for " + type.ToString());
  }
  Tensor t = std::move(*allocated);
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
      case DType::kI16:
        store(static_cast<int16_t>(r % 8));
        break;
      case DType::kU16:
        store(static_cast<uint16_t>(r % 8));
        break;
      case DType::kU32:
        store(static_cast<uint32_t>(r % 8));
        break;
    }
  }
  return t;
}

namespace po = boost::program_options;

// "NAME=1,3,224,224" (an empty list, "NAME=", is a scalar).
Expected<std::pair<std::string, Shape>> ParseShapeArg(const std::string& item) {
  const size_t eq = item.find('=');
  if (eq == std::string::npos || eq == 0) {
    return InvalidArgument("--input-shape " + item + ": expected NAME=D0,D1,...");
  }
  Shape shape;
  std::stringstream dims(item.substr(eq + 1));
  std::string dim;
  while (std::getline(dims, dim, ',')) {
    size_t used = 0;
    int64_t value = -1;
    try {
      value = std::stoll(dim, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != dim.size() || value < 0) {
      return InvalidArgument("--input-shape " + item + ": '" + dim +
                             "' is not a non-negative integer");
    }
    shape.push_back(value);
  }
  return std::pair{item.substr(0, eq), shape};
}

Expected<Graph> SpecializeForArgs(const Graph& graph, const po::variables_map& vm) {
  std::map<std::string, Shape> given;
  if (vm.count("input-shape")) {
    for (const std::string& item : vm["input-shape"].as<std::vector<std::string>>()) {
      SY_ASSIGN_OR_RETURN(auto parsed, ParseShapeArg(item));
      given[parsed.first] = std::move(parsed.second);
    }
  }
  if (given.empty() && !graph.IsSymbolic()) return graph;
  std::vector<Shape> shapes;
  for (ValueId id : graph.inputs) {
    const Value& value = graph.values[id];
    auto it = given.find(value.name);
    if (it != given.end()) {
      shapes.push_back(it->second);
      given.erase(it);
      continue;
    }
    // Not given: its symbols at their examples.
    Expected<Shape> shape = ExampleShape(graph, id);
    if (!shape.ok()) {
      return InvalidArgument(shape.status().message() + ": give --input-shape " +
                             PrintableName(value.name) + "=D0,D1,...");
    }
    shapes.push_back(std::move(*shape));
  }
  if (!given.empty()) {
    return InvalidArgument("--input-shape " + PrintableName(given.begin()->first) +
                           ": the model has no input of that name");
  }
  SY_ASSIGN_OR_RETURN(SymbolBinding binding, BindSymbols(graph, shapes));
  // Sizes the data decides are planned at their examples (a run decides them).
  for (const DimSymbol& symbol : graph.symbols) {
    if (!symbol.from_data()) continue;
    if (symbol.example < 0) {
      return InvalidArgument("symbol " + symbol.name +
                             " is decided by data at run time and has no example size to plan "
                             "with");
    }
    binding[symbol.name] = symbol.example;
    std::cerr << "switchyard: note: " << symbol.name
              << " is decided by data at run time; planned at its example size " << symbol.example
              << "\n";
  }
  return Specialize(graph, binding);
}

Expected<TensorType> ConcreteInputType(const Session& session, size_t k,
                                       const std::map<std::string, Shape>& shapes) {
  const TensorType& type = session.input_types()[k];
  if (auto given = shapes.find(session.input_names()[k]); given != shapes.end()) {
    // Checked by the run as any input is (rank, constant dims, symbols that agree).
    if (CheckedElementCount(given->second).ok()) return TensorType{type.dtype, given->second};
    return InvalidArgument("--input-shape " + PrintableName(session.input_names()[k]) + ": " +
                           ShapeToString(given->second) + " has too many elements");
  }
  if (!session.dynamic()) return type;
  // The input as the graph records it, its symbols at their example sizes.
  const Graph& graph = *session.symbolic_graph();
  Expected<Shape> shape = ExampleShape(graph, graph.inputs[k]);
  if (!shape.ok()) {
    return InvalidArgument(shape.status().message() + ": give it with --input NAME=FILE.npy");
  }
  return TensorType{type.dtype, std::move(*shape)};
}

// A dynamic model is planned only when it runs, at its inputs' shapes, so random data of
// the shapes asked for could fill gigabytes before the run finds that no plan fits them (a
// --memory-limit, a device that declines a size). The plan is made at those shapes first;
// a graph whose sizes depend on data is planned in stages as it runs, and is not.
Status CheckPlanAt(const PreparedModel& prepared,
                   const std::vector<std::pair<std::string, TensorType>>& randoms) {
  const Session& session = *prepared.session;
  if (!session.dynamic() || randoms.empty()) return Status::Ok();
  const Graph& graph = *session.symbolic_graph();
  if (std::any_of(graph.symbols.begin(), graph.symbols.end(),
                  [](const DimSymbol& s) { return s.from_data(); })) {
    return Status::Ok();
  }
  std::vector<Shape> shapes;
  for (ValueId id : graph.inputs) {
    const std::string& name = graph.values[id].name;
    const auto random = std::find_if(randoms.begin(), randoms.end(),
                                     [&](const auto& r) { return r.first == name; });
    if (random != randoms.end()) {
      shapes.push_back(random->second.shape);
    } else if (auto given = prepared.inputs.find(name); given != prepared.inputs.end()) {
      shapes.push_back(given->second.shape());
    } else {
      Expected<Shape> example = ExampleShape(graph, id);  // state, or missing: Run says so
      if (!example.ok()) return Status::Ok();
      shapes.push_back(std::move(*example));
    }
  }
  Expected<SymbolBinding> binding = BindSymbols(graph, shapes);
  if (!binding.ok()) return Status::Ok();  // the run reports shapes that do not fit
  const PlanOptions& options = prepared.options;
  auto plan = [&]() -> Status {
    SY_ASSIGN_OR_RETURN(Graph specialised, Specialize(graph, *binding));
    SY_ASSIGN_OR_RETURN(OptimizedGraph optimized, OptimizeGraph(specialised, prepared.host.get(),
                                                                options, options.optimize_level));
    return Plan::Build(optimized.graph, prepared.host.get(), options).status();
  };
  if (Status planned = plan(); !planned.ok()) {
    return planned.WithContext("at the shapes of the random inputs (" + BindingToString(*binding) +
                               "), before making them");
  }
  return Status::Ok();
}

// Random data for `randoms` into prepared.inputs, once a dynamic model's plan at their
// shapes is known to fit. `option` leads an allocation failure's message.
Status MakeRandomInputs(PreparedModel& prepared,
                        const std::vector<std::pair<std::string, TensorType>>& randoms,
                        uint64_t seed, const std::string& option) {
  SY_RETURN_IF_ERROR(CheckPlanAt(prepared, randoms));
  for (const auto& [name, type] : randoms) {
    Expected<Tensor> data = RandomTensor(type, seed);
    if (!data.ok()) return data.status().WithContext(option + PrintableName(name));
    prepared.inputs[name] = std::move(*data);
  }
  return Status::Ok();
}

Status GatherInputs(const std::string& model, const po::variables_map& vm, PreparedModel& out) {
  const auto& names = out.session->input_names();
  std::vector<std::pair<std::string, TensorType>> randoms;  // made last, once all are known
  if (vm.count("input-shape")) {
    for (const std::string& item : vm["input-shape"].as<std::vector<std::string>>()) {
      SY_ASSIGN_OR_RETURN(auto parsed, ParseShapeArg(item));
      if (std::find(names.begin(), names.end(), parsed.first) == names.end()) {
        return InvalidArgument("--input-shape " + PrintableName(parsed.first) +
                               ": the model has no input of that name");
      }
      out.random_shapes[parsed.first] = std::move(parsed.second);
    }
  }
  if (vm.count("input")) {
    for (const std::string& item : vm["input"].as<std::vector<std::string>>()) {
      const size_t eq = item.find('=');
      if (eq == std::string::npos || eq == 0) {
        return InvalidArgument("--input " + PrintableName(item) +
                               ": expected NAME=FILE.npy or NAME=random");
      }
      const std::string name = item.substr(0, eq), source = item.substr(eq + 1);
      const auto it = std::find(names.begin(), names.end(), name);
      if (it == names.end()) {
        std::string list;
        for (const std::string& n : names) list += (list.empty() ? "" : ", ") + PrintableName(n);
        return InvalidArgument("--input " + PrintableName(name) + ": the model has no input \"" +
                               PrintableName(name) +
                               "\" (its inputs: " + (list.empty() ? "none" : list) + ")");
      }
      if (source == "random") {
        SY_ASSIGN_OR_RETURN(TensorType type,
                            ConcreteInputType(*out.session, it - names.begin(), out.random_shapes));
        randoms.emplace_back(name, std::move(type));
        continue;
      }
      Expected<Tensor> t = ReadNpy(source);
      if (!t.ok()) return t.status().WithContext("--input " + PrintableName(name));
      out.inputs[name] = std::move(*t);
    }
  }
  const std::filesystem::path folder = ResolveModelPaths(model).file().parent_path() / "inputs";
  for (const std::string& name : names) {
    if (out.inputs.count(name)) continue;
    if (std::any_of(randoms.begin(), randoms.end(),
                    [&](const auto& r) { return r.first == name; })) {
      continue;
    }
    const std::filesystem::path file = folder / ValueFileName(name);
    std::error_code ec;
    if (!std::filesystem::exists(file, ec)) continue;  // Session::Run reports it missing
    SY_ASSIGN_OR_RETURN(out.inputs[name], ReadNpy(file));
  }
  return MakeRandomInputs(out, randoms, SeedOption(vm), "--input ");
}

void AddDeviceOptions(po::options_description& options) {
  options.add_options()("device", po::value<std::string>(),
                        "devices in order of preference (e.g. cpu, cpu-ref, opencl:0,cpu); "
                        "default: GPUs, accelerators, then CPUs")(
      "strict", "fail instead of falling back or ignoring a backend hint")(
      "memory-limit", po::value<std::vector<std::string>>()->composing(),
      "DEVICE=BYTES, e.g. cpu=64MiB: fail before running when the plan needs more "
      "(repeatable)")("no-island-pass", "keep every node where placement put it")(
      "optimize", po::value<int>()->default_value(1)->notifier([](int level) {
        if (level < 0 || level > kMaxOptimizeLevel) {
          throw po::error("--optimize " + std::to_string(level) +
                          ": expected 0 (none), 1 (default) or 2");
        }
      }),
      "graph optimization level: 0 none, 1 folding and fusions the devices support "
      "(default), 2 also those that differ in corner cases (docs/optimization.md)")(
      "max-specializations", po::value<int>()->default_value(8)->notifier([](int n) {
        if (n < 1 || n > 1024) {
          throw po::error("--max-specializations " + std::to_string(n) + ": expected 1 to 1024");
        }
      }),
      "models with run-time sizes: how many sets of input shapes stay prepared at once "
      "(docs/dynamic-shapes.md)")(
      "quant-accuracy-level", po::value<int>()->notifier([](int level) {
        if (level < 0 || level > 4) {
          throw po::error("--quant-accuracy-level " + std::to_string(level) +
                          ": expected 0 to 4 (4: int8 activations)");
        }
      }),
      "every quant_matmul's accuracy level, as ONNX Runtime's MatMulNBits accuracy_level: 4 "
      "lets the cpu device quantize activations to int8 per block (faster), 0 to 3 keep f32; "
      "default: each node's own, as the model says (docs/ops.md)");
}

void AddModelOptions(po::options_description& options) {
  AddDeviceOptions(options);
  options.add_options()("input", po::value<std::vector<std::string>>()->composing(),
                        "NAME=FILE.npy or NAME=random (repeatable)")(
      "input-shape", po::value<std::vector<std::string>>()->composing(),
      "NAME=D0,D1,...: the shape of NAME's random data, for models with run-time sizes "
      "(default: the symbols' example sizes) (repeatable)")(
      "seed", po::value<std::string>()->default_value("1")->notifier([](const std::string& s) {
        if (!ParseSeed(s)) {
          throw po::error("--seed " + s + ": expected a whole number from 0 to 2^64 - 1");
        }
      }),
      "seed for NAME=random (and generate's sampler): 0 to 2^64 - 1");
}

uint64_t SeedOption(const po::variables_map& vm) {
  return ParseSeed(vm["seed"].as<std::string>()).value_or(1);
}

Expected<PlanOptions> PlanOptionsFromArgs(const PluginHost& host, const po::variables_map& vm) {
  PlanOptions options;
  if (vm.count("device")) {
    const std::string spec = vm["device"].as<std::string>();
    std::vector<std::string> items;
    size_t start = 0;
    while (true) {
      const size_t comma = spec.find(',', start);
      items.push_back(spec.substr(start, comma - start));
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
    Expected<std::vector<const Device*>> devices = host_options::FindDevices(host, items);
    if (!devices.ok()) return devices.status().WithContext("--device " + spec);
    options.devices = std::move(*devices);
  }
  options.strict = vm.count("strict") > 0;
  options.merge_islands = vm.count("no-island-pass") == 0;
  options.optimize_level = vm["optimize"].as<int>();
  options.max_specializations = static_cast<size_t>(vm["max-specializations"].as<int>());
  if (vm.count("quant-accuracy-level")) {
    options.quant_matmul_accuracy_level = vm["quant-accuracy-level"].as<int>();
  }
  if (options.optimize_level < 0 || options.optimize_level > kMaxOptimizeLevel) {
    return InvalidArgument("--optimize " + std::to_string(options.optimize_level) +
                           ": expected 0 (none), 1 (default) or 2");
  }
  if (vm.count("memory-limit")) {
    for (const std::string& item : vm["memory-limit"].as<std::vector<std::string>>()) {
      const size_t eq = item.find('=');
      if (eq == std::string::npos || eq == 0) {
        return InvalidArgument("--memory-limit " + item +
                               ": expected DEVICE=BYTES (e.g. cpu=64MiB)");
      }
      Expected<std::pair<const Device*, uint64_t>> limit =
          host_options::MemoryLimit(host, item.substr(0, eq), item.substr(eq + 1));
      if (!limit.ok()) return limit.status().WithContext("--memory-limit " + item);
      options.memory_limits[limit->first] = limit->second;
    }
  }
  return options;
}

Expected<PreparedModel> PrepareModel(const std::string& model, const po::variables_map& vm) {
  PreparedModel out;
  SY_ASSIGN_OR_RETURN(out.graph, LoadModel(model));
  SY_ASSIGN_OR_RETURN(out.host, LoadPlugins(vm));
  SY_ASSIGN_OR_RETURN(PlanOptions options, PlanOptionsFromArgs(*out.host, vm));
  {
    // Preparing may take seconds (OpenCL compiles its kernels on the first run).
    ProgressLine progress("switchyard: preparing partitions");
    options.on_prepare = [&progress](size_t k, size_t count, const Device& device) {
      progress.Update(k + 1, count, "on " + device.Spec());
    };
    SY_ASSIGN_OR_RETURN(out.session, Session::Create(out.graph, *out.host, options));
  }
  out.options = options;
  out.options.on_prepare = nullptr;  // the progress line is gone
  SY_RETURN_IF_ERROR(GatherInputs(model, vm, out));
  return out;
}

Status FillMissingInputs(PreparedModel& prepared, uint64_t seed, std::string_view command) {
  std::string randomised;
  std::vector<std::pair<std::string, TensorType>> randoms;
  const Session& session = *prepared.session;
  for (size_t k = 0; k < session.input_names().size(); ++k) {
    const std::string& name = session.input_names()[k];
    if (prepared.inputs.count(name)) continue;
    Expected<TensorType> type = ConcreteInputType(session, k, prepared.random_shapes);
    if (!type.ok()) continue;  // Session::Run reports it missing, with its symbolic shape
    randoms.emplace_back(name, std::move(*type));
    randomised += (randomised.empty() ? "" : ", ") + PrintableName(name);
  }
  SY_RETURN_IF_ERROR(MakeRandomInputs(prepared, randoms, seed, "input "));
  if (!randomised.empty()) {
    std::cerr << "switchyard " << command << ": note: no value given for " << randomised
              << " (no --input, no <model>/inputs file): using seeded random data (--seed " << seed
              << ")\n";
  }
  return Status::Ok();
}

std::string DevicesUsed(const Plan& plan) {
  std::string text;
  std::vector<int32_t> seen;
  for (const PlanPartition& p : plan.partitions) {
    if (std::find(seen.begin(), seen.end(), p.device) != seen.end()) continue;
    seen.push_back(p.device);
    const Device& d = *plan.devices[p.device];
    text += (text.empty() ? "" : ", ") + d.Spec() + " (" + d.name + ")";
  }
  return text;
}

std::string PlacementSummary(const Plan& plan) {
  std::vector<size_t> on(plan.devices.size(), 0), fallback(plan.devices.size(), 0);
  for (const NodePlacement& n : plan.nodes) {
    if (n.device < 0) continue;
    ++on[n.device];
    if (n.reason == PlacementReason::kFallback) ++fallback[n.device];
  }
  std::string text = std::to_string(plan.nodes.size()) + " nodes" + (plan.nodes.empty() ? "" : ":");
  bool first = true;
  for (size_t d = 0; d < plan.devices.size(); ++d) {
    if (on[d] == 0) continue;
    text += (first ? " " : ", ") + std::to_string(on[d]) + " on " + plan.devices[d]->Spec();
    if (fallback[d] > 0) text += " (" + std::to_string(fallback[d]) + " as fallback)";
    first = false;
  }
  uint64_t moved = 0;
  size_t shared = 0;
  for (const PlanCopy& c : plan.copies) {
    if (c.shared) {
      ++shared;
    } else {
      moved += c.bytes;
    }
  }
  text +=
      ", " + std::to_string(plan.copies.size()) + " cop" + (plan.copies.size() == 1 ? "y" : "ies");
  if (shared > 0) text += " (" + std::to_string(shared) + " read in place)";
  if (!plan.copies.empty()) text += ", " + FormatBytes(moved) + " moved per run";
  return text;
}

}  // namespace sy::cli
