// The public ONNX backend node tests (onnx/backend/test/data/node, shipped by Debian's
// libonnx-testdata) run through `switchyard import` and a session on every device.
//
// Each case is a folder with model.onnx and test_data_set_*/{input,output}_N.pb. A case
// is imported once per data set (inputs that an op needs at import time, such as a
// Reshape's shape, are frozen from the data set), run on each device with the whole graph
// on that device, and its outputs compared with the expected ones (|a - e| <= atol +
// rtol * |e|, rtol 1e-3, atol 1e-7, as ONNX's own backend tests; integers and bools
// exactly). Cases the importer declines for a documented reason are skipped under that
// reason; every other failure fails the run unless the expectations file lists it.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "../graph_diff.h"
#include "switchyard/model_io.h"
#include "switchyard/onnx_import.h"
#include "switchyard/plugin_host.h"
#include "switchyard/session.h"

namespace fs = std::filesystem;
using namespace sy;

namespace {

constexpr int kExitSkip = 77;

struct Options {
  fs::path data = "/usr/include/onnx/backend/test/data/node";
  std::vector<std::string> devices;  // empty: every device
  std::string filter;
  fs::path expectations;
  fs::path report;  // a Markdown summary (docs/onnx-conformance.md quotes it)
  bool verbose = false;
  int optimize_level = 1;  // the graph optimization pass (switchyard/optimize.h)
  double rtol = 1e-3, atol = 1e-7;
  // Import keeping the models' symbolic dims (docs/dynamic-shapes.md): the test's values
  // are frozen only where an op needs them at import time.
  bool dynamic = false;
};

double Element(const Tensor& t, int64_t i) { return ElementAsDouble(t, i); }

// "" when `got` matches `want`, else what differs.
std::string Compare(const Tensor& got, const Tensor& want, const Options& o) {
  if (got.dtype() != want.dtype() || got.shape() != want.shape()) {
    return "got " + got.type().ToString() + ", expected " + want.type().ToString();
  }
  if (!IsFloat(want.dtype())) {
    if (got.byte_size() > 0 && std::memcmp(got.data(), want.data(), got.byte_size()) != 0) {
      for (int64_t i = 0; i < got.element_count(); ++i) {
        if (Element(got, i) != Element(want, i)) {
          std::ostringstream s;
          s << "element " << i << " is " << Element(got, i) << ", expected " << Element(want, i);
          return s.str();
        }
      }
    }
    return "";
  }
  size_t bad = 0;
  int64_t first = -1;
  for (int64_t i = 0; i < got.element_count(); ++i) {
    const double g = Element(got, i), w = Element(want, i);
    bool ok;
    if (std::isnan(w))
      ok = std::isnan(g);
    else if (std::isinf(w))
      ok = g == w;
    else
      ok = std::fabs(g - w) <= o.atol + o.rtol * std::fabs(w);
    if (!ok) {
      if (first < 0) first = i;
      ++bad;
    }
  }
  if (bad == 0) return "";
  std::ostringstream s;
  s.precision(9);
  s << bad << " of " << got.element_count() << " elements differ; element " << first << " is "
    << Element(got, first) << ", expected " << Element(want, first);
  return s.str();
}

// A case whose graph draws random numbers (Bernoulli and the Random* ops, which ONNX says
// "may not produce the same values in different implementations"; ours are the
// catalogue's counter-based streams): its values cannot match numbers NumPy drew. What is
// checked is the dtype, the shape, and, where every expected value is 0 or 1 (Bernoulli),
// that ours are too. Their distributions are tested in the unit tests
// (tests/unit/plugins/cpu/ref/sampling_ref_test.cpp).
bool DrawsRandomNumbers(const Graph& graph) {
  return std::any_of(graph.nodes.begin(), graph.nodes.end(), [](const Node& n) {
    return n.op == "random_uniform" || n.op == "random_normal";
  });
}

std::string CompareRandom(const Tensor& got, const Tensor& want) {
  if (got.dtype() != want.dtype() || got.shape() != want.shape()) {
    return "got " + got.type().ToString() + ", expected " + want.type().ToString();
  }
  const auto binary = [](const Tensor& t, int64_t i) {
    const double v = Element(t, i);
    return v == 0.0 || v == 1.0;
  };
  bool want_binary = true;
  for (int64_t i = 0; i < want.element_count() && want_binary; ++i) want_binary = binary(want, i);
  for (int64_t i = 0; i < got.element_count() && want_binary; ++i) {
    if (!binary(got, i)) {
      std::ostringstream s;
      s << "element " << i << " is " << Element(got, i) << ", expected 0 or 1 (random draws)";
      return s.str();
    }
  }
  return "";
}

struct Tally {
  int passed = 0, failed = 0, expected_failures = 0;
  std::map<std::string, int> skipped;  // by reason category
  std::map<std::string, std::vector<std::string>> skipped_cases;
  std::vector<std::string> failures;
  int skipped_total() const {
    int n = 0;
    for (const auto& [k, v] : skipped) n += v;
    return n;
  }
};

// Expected failures: "CASE DEVICE REASON..." lines (DEVICE may be *), # comments.
std::map<std::pair<std::string, std::string>, std::string> ReadExpectations(const fs::path& path) {
  std::map<std::pair<std::string, std::string>, std::string> out;
  if (path.empty()) return out;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream s(line);
    std::string name, device, reason;
    s >> name >> device;
    std::getline(s, reason);
    out[{name, device}] = reason;
  }
  return out;
}

std::vector<fs::path> DataSets(const fs::path& dir) {
  std::vector<fs::path> sets;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.is_directory() && e.path().filename().string().starts_with("test_data_set_")) {
      sets.push_back(e.path());
    }
  }
  std::sort(sets.begin(), sets.end());
  return sets;
}

// Reads <set>/<prefix>_N.pb for N = 0.. while they exist. The data of ONNX 1.12/1.13
// stores bfloat16 as UINT16 bit patterns: a UINT16 file is read as bf16 where the model
// declares that slot bfloat16 (`bf16[N]`), as u16 otherwise.
Expected<std::vector<Tensor>> ReadTensors(const fs::path& set, const std::string& prefix,
                                          const std::vector<bool>& bf16) {
  std::vector<Tensor> out;
  for (int i = 0;; ++i) {
    const fs::path path = set / (prefix + "_" + std::to_string(i) + ".pb");
    if (!fs::exists(path)) break;
    const bool holds_bf16 = static_cast<size_t>(i) < bf16.size() && bf16[i];
    SY_ASSIGN_OR_RETURN(Tensor t, onnx_import::ReadTensorProtoFile(path, nullptr, holds_bf16));
    out.push_back(std::move(t));
  }
  return out;
}

std::string SkipCategory(onnx_import::ImportProblem p) {
  switch (p) {
    case onnx_import::ImportProblem::kUnsupportedOp:
      return "op outside the catalogue";
    case onnx_import::ImportProblem::kUnsupportedType:
      return "unsupported type (string, u64, int4/int2, complex, float8, sequence, optional)";
    case onnx_import::ImportProblem::kTrainingOnly:
      return "training-only";
    case onnx_import::ImportProblem::kNeedsValue:
      return "dynamic: a run-time value decides a shape (NonZero, Unique, ...)";
    default:
      return "";
  }
}

// "cpu", "cpu-ref", "opencl:0": how reports and the expectations file name a device (the
// CPU plugin's device names, otherwise plugin:index, since OpenCL device names are long).
std::string Label(const Device& d) {
  if (d.plugin->name() == "cpu") return d.name;
  return d.plugin->name() + ":" + std::to_string(d.index);
}

int Usage(const char* msg) {
  std::cerr
      << "onnx_node_tests: " << msg
      << "\nusage: onnx_node_tests [--data DIR] [--device NAME]... [--filter REGEX]\n"
         "                       [--expectations FILE] [--report FILE.md] [--optimize 0|1|2]\n"
         "                       [--dynamic] [--verbose]\n";
  return 2;
}

// Replaces `graph` by its single-file encoding read back (docs/format.md): "" when that
// gives the same graph, else what went wrong.
std::string RoundTripThroughSingleFile(Graph& graph) {
  Expected<std::string> bytes = EncodeSingleFileModel(graph);
  if (!bytes.ok()) return "single-file encoding failed: " + bytes.status().message();
  auto owner = std::make_shared<std::string>(std::move(*bytes));
  Expected<Graph> decoded = ParseSingleFileModel(
      {reinterpret_cast<const std::byte*>(owner->data()), owner->size()}, owner);
  if (!decoded.ok()) return "single-file model does not read back: " + decoded.status().message();
  if (Status valid = ValidateGraphTypes(*decoded); !valid.ok()) {
    return "single-file model does not validate: " + valid.message();
  }
  const std::string diff = test::GraphDiff(graph, *decoded);
  if (!diff.empty()) return "single-file round trip differs: " + diff;
  graph = std::move(*decoded);
  return "";
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const auto next = [&]() -> const char* { return i + 1 < argc ? argv[++i] : nullptr; };
    if (arg == "--data" || arg == "--device" || arg == "--filter" || arg == "--expectations" ||
        arg == "--report" || arg == "--optimize") {
      const char* v = next();
      if (v == nullptr) return Usage(("missing value after " + arg).c_str());
      if (arg == "--data")
        o.data = v;
      else if (arg == "--device")
        o.devices.push_back(v);
      else if (arg == "--filter")
        o.filter = v;
      else if (arg == "--report")
        o.report = v;
      else if (arg == "--optimize") {
        const std::string level = v;
        if (level != "0" && level != "1" && level != "2")
          return Usage("--optimize takes 0, 1 or 2");
        o.optimize_level = level[0] - '0';
      } else
        o.expectations = v;
    } else if (arg == "--dynamic") {
      o.dynamic = true;
    } else if (arg == "--verbose" || arg == "-v") {
      o.verbose = true;
    } else {
      return Usage(("unknown argument " + arg).c_str());
    }
  }
  if (!fs::is_directory(o.data)) {
    std::cout << "onnx_node_tests: skipped: no ONNX node test data at " << o.data
              << " (install Debian's libonnx-testdata)\n";
    return kExitSkip;
  }
  Expected<std::unique_ptr<PluginHost>> host = PluginHost::Create(DiscoveryOptions{});
  if (!host.ok()) {
    std::cerr << "onnx_node_tests: " << host.status().message() << "\n";
    return 1;
  }
  std::vector<const Device*> devices;
  if (o.devices.empty()) {
    devices = (*host)->devices();
  } else {
    for (const std::string& spec : o.devices) {
      Expected<const Device*> d = (*host)->FindDevice(spec);
      if (!d.ok()) {
        std::cerr << "onnx_node_tests: " << d.status().message() << "\n";
        return 2;
      }
      devices.push_back(*d);
    }
  }
  const auto expectations = ReadExpectations(o.expectations);
  std::set<std::pair<std::string, std::string>> expectation_used;
  const std::regex filter(o.filter.empty() ? ".*" : o.filter);

  std::vector<fs::path> cases;
  for (const auto& e : fs::directory_iterator(o.data)) {
    if (e.is_directory() && fs::exists(e.path() / "model.onnx") &&
        std::regex_search(e.path().filename().string(), filter)) {
      cases.push_back(e.path());
    }
  }
  std::sort(cases.begin(), cases.end());
  std::map<std::string, Tally> tallies;
  for (const Device* d : devices) tallies[Label(*d)];
  const auto start = std::chrono::steady_clock::now();

  for (const fs::path& dir : cases) {
    const std::string name = dir.filename().string();
    // Per device: "" (passed), "skip:<category>" or the failure.
    std::map<std::string, std::string> outcome;
    Expected<onnx_import::OnnxSignature> sig = onnx_import::ReadOnnxSignature(dir / "model.onnx");
    for (const fs::path& set : DataSets(dir)) {
      std::string import_verdict;
      onnx_import::ImportOptions options;
      options.values_give_shapes = !o.dynamic;
      const std::vector<bool> none;
      Expected<std::vector<Tensor>> inputs =
          ReadTensors(set, "input", sig.ok() ? sig->input_is_bf16 : none);
      Expected<std::vector<Tensor>> expected =
          ReadTensors(set, "output", sig.ok() ? sig->output_is_bf16 : none);
      if (sig.ok() && inputs.ok()) {
        for (size_t k = 0; k < inputs->size() && k < sig->inputs.size(); ++k) {
          options.input_values[sig->inputs[k]] = (*inputs)[k];
        }
      }
      onnx_import::ImportProblem problem = onnx_import::ImportProblem::kNone;
      Expected<onnx_import::ImportResult> imported =
          onnx_import::ImportOnnxFile(dir / "model.onnx", options, &problem);
      if (!imported.ok()) {
        const std::string category = SkipCategory(problem);
        import_verdict =
            category.empty() ? "import failed: " + imported.status().message() : "skip:" + category;
        if (o.verbose) std::cout << name << ": import: " << imported.status().message() << "\n";
      } else if (!sig.ok() || !inputs.ok() || !expected.ok()) {
        import_verdict = "cannot read the test data: " + (!sig.ok()      ? sig.status()
                                                          : !inputs.ok() ? inputs.status()
                                                                         : expected.status())
                                                             .message();
      } else if (expected->size() != sig->outputs.size()) {
        import_verdict = "the data set has " + std::to_string(expected->size()) +
                         " outputs but the model " + std::to_string(sig->outputs.size());
      } else {
        // Every imported model also goes through the single-file encoding and runs as
        // read back from it: the round trip must give the same graph, bit for bit.
        import_verdict = RoundTripThroughSingleFile(imported->graph);
      }
      for (const Device* device : devices) {
        std::string& verdict = outcome[Label(*device)];
        if (!verdict.empty()) continue;  // an earlier data set failed or skipped
        if (!import_verdict.empty()) {
          verdict = import_verdict;
          continue;
        }
        const Graph& graph = imported->graph;  // as read back from the single file
        Expected<std::unique_ptr<Session>> session =
            Session::Create(graph, *device, o.optimize_level);
        if (!session.ok()) {
          verdict = (session.status().code() == StatusCode::kUnsupported && !device->reference() &&
                     Label(*device) != "cpu")
                        ? "skip:the device declines an op or dtype"
                        : "prepare failed: " + session.status().message();
          continue;
        }
        std::map<std::string, Tensor> feeds;
        const std::set<std::string> frozen(imported->frozen_inputs.begin(),
                                           imported->frozen_inputs.end());
        for (size_t k = 0; k < sig->inputs.size() && k < inputs->size(); ++k) {
          if (frozen.count(sig->inputs[k]) == 0) feeds[sig->inputs[k]] = (*inputs)[k];
        }
        Expected<std::map<std::string, Tensor>> outputs = (*session)->Run(feeds);
        if (!outputs.ok() && (*session)->dynamic() &&
            outputs.status().code() == StatusCode::kUnsupported && !device->reference() &&
            Label(*device) != "cpu") {
          // A graph with sizes decided at run time is prepared at its first run.
          verdict = "skip:the device declines an op or dtype";
          continue;
        }
        if (!outputs.ok()) {
          verdict = "run failed: " + outputs.status().message();
          continue;
        }
        for (size_t k = 0; k < sig->outputs.size() && verdict.empty(); ++k) {
          auto it = outputs->find(sig->outputs[k]);
          if (it == outputs->end()) {
            verdict = "output " + sig->outputs[k] + " is missing";
          } else if (std::string diff = DrawsRandomNumbers(graph)
                                            ? CompareRandom(it->second, (*expected)[k])
                                            : Compare(it->second, (*expected)[k], o);
                     !diff.empty()) {
            verdict = "output " + sig->outputs[k] + " (" + set.filename().string() + "): " + diff;
          }
        }
        if (verdict.empty()) verdict = "ok";
      }
    }
    for (const Device* device : devices) {
      Tally& t = tallies[Label(*device)];
      const std::string& verdict = outcome[Label(*device)];
      if (verdict == "ok" || verdict.empty()) {
        ++t.passed;
        for (const auto& key :
             {std::pair{name, Label(*device)}, std::pair{name, std::string("*")}}) {
          if (expectations.count(key) != 0) {
            t.failures.push_back(name + ": passes but " + o.expectations.string() +
                                 " expects it to fail; remove the line");
          }
        }
        if (o.verbose) std::cout << name << " [" << Label(*device) << "]: passed\n";
      } else if (verdict.starts_with("skip:")) {
        ++t.skipped[verdict.substr(5)];
        t.skipped_cases[verdict.substr(5)].push_back(name);
        if (o.verbose)
          std::cout << name << " [" << Label(*device) << "]: skipped: " << verdict.substr(5)
                    << "\n";
      } else {
        const bool expected_failure =
            expectations.count({name, Label(*device)}) != 0 || expectations.count({name, "*"}) != 0;
        if (expected_failure) {
          ++t.expected_failures;
        } else {
          ++t.failed;
          t.failures.push_back(name + ": " + verdict);
        }
        std::cout << name << " [" << Label(*device)
                  << "]: " << (expected_failure ? "FAILED (expected): " : "FAILED: ") << verdict
                  << "\n";
      }
    }
  }

  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::cout << "\nONNX node tests from " << o.data.string() << ": " << cases.size() << " cases, "
            << static_cast<int>(seconds) << " s\n";
  bool ok = true;
  for (const Device* device : devices) {
    const Tally& t = tallies[Label(*device)];
    std::cout << Label(*device) << " (" << device->name << "): " << t.passed << " passed, "
              << t.failed << " failed";
    if (t.expected_failures > 0) std::cout << " (+" << t.expected_failures << " expected failures)";
    std::cout << ", " << t.skipped_total() << " skipped\n";
    for (const auto& [reason, count] : t.skipped) {
      std::cout << "  skipped " << count << ": " << reason << "\n";
    }
    for (const std::string& f : t.failures) std::cout << "  FAILED " << f << "\n";
    ok = ok && t.failures.empty();
  }
  if (!o.report.empty()) {
    std::ofstream md(o.report);
    md << "| device | passed | failed | expected failures | skipped |\n|---|---|---|---|---|\n";
    for (const Device* device : devices) {
      const Tally& t = tallies[Label(*device)];
      md << "| " << Label(*device) << " | " << t.passed << " | " << t.failed << " | "
         << t.expected_failures << " | " << t.skipped_total() << " |\n";
    }
    // Skips by category, with their cases, per device where they differ from the first.
    std::map<std::string, std::vector<std::string>> first;
    for (const Device* device : devices) {
      const Tally& t = tallies[Label(*device)];
      for (const auto& [reason, names] : t.skipped_cases) {
        if (device != devices.front() && first.count(reason) && first[reason] == names) continue;
        md << "\n**" << reason << "** (" << names.size()
           << (device == devices.front() ? "" : ", " + Label(*device) + " only") << "): ";
        for (size_t i = 0; i < names.size(); ++i) md << (i ? ", " : "") << "`" << names[i] << "`";
        md << "\n";
        if (device == devices.front()) first[reason] = names;
      }
    }
  }
  return ok ? 0 : 1;
}
