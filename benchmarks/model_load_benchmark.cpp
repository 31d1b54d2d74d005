// Loading a model from disk in each encoding (docs/format.md): graph JSON + safetensors
// against the single file (.symodel), for pass 1 alone (ReadModel: reading and the
// structural checks) and for LoadModel (both passes). Figures go to docs/performance.md.
//
//   build/release/bin/sy_model_load_benchmark                  # the generated graphs
//   SY_BENCH_MODEL=path/to/model build/release/bin/sy_model_load_benchmark
//
// The generated graph: N blocks of matmul [8,64]x[64,64], add, relu and softmax (4N
// nodes, 2N constants). SY_BENCH_MODEL (any model; converted to both encodings in a
// temporary folder first) adds rows for it, e.g. an imported 125M-parameter Llama.
#include <benchmark/benchmark.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "switchyard/model_io.h"

namespace {

namespace fs = std::filesystem;

sy::Graph ChainGraph(int blocks) {
  sy::Graph g;
  g.producer = "model_load_benchmark";
  auto value = [&](std::string name, sy::Shape shape) {
    g.values.push_back({std::move(name), {sy::DType::kF32, std::move(shape)}});
    return static_cast<sy::ValueId>(g.values.size() - 1);
  };
  sy::ValueId current = value("x", {8, 64});
  g.inputs = {current};
  for (int i = 0; i < blocks; ++i) {
    const std::string n = std::to_string(i);
    const sy::ValueId w = value("w" + n, {64, 64});
    const sy::ValueId b = value("b" + n, {64});
    g.constants.push_back({w, "w" + n, *sy::Tensor::Allocate(sy::DType::kF32, {64, 64})});
    g.constants.push_back({b, "b" + n, *sy::Tensor::Allocate(sy::DType::kF32, {64})});
    const sy::ValueId m = value("m" + n, {8, 64});
    const sy::ValueId a = value("a" + n, {8, 64});
    const sy::ValueId r = value("r" + n, {8, 64});
    const sy::ValueId s = value("s" + n, {8, 64});
    g.nodes.push_back({"matmul", {current, w}, {m}, {}, "fc" + n, ""});
    g.nodes.push_back({"add", {m, b}, {a}, {}, "", ""});
    g.nodes.push_back({"relu", {a}, {r}, {}, "", ""});
    sy::Attrs axis;
    axis.Set("axis", int64_t{-1});
    g.nodes.push_back({"softmax", {r}, {s}, axis, "", ""});
    current = s;
  }
  g.outputs = {current};
  return g;
}

// The model in both encodings, written once per process: "json" and "symodel" paths.
struct Files {
  fs::path json;
  fs::path single;
  std::string error;
};

const Files& FilesFor(const std::string& key,
                      const std::function<sy::Expected<sy::Graph>()>& make) {
  static std::map<std::string, Files> cache;
  if (auto it = cache.find(key); it != cache.end()) return it->second;
  Files files;
  const fs::path dir =
      fs::temp_directory_path() / ("sy_model_load_bench_" + std::to_string(getpid()));
  fs::create_directories(dir);
  sy::Expected<sy::Graph> graph = make();
  if (!graph.ok()) {
    files.error = graph.status().message();
  } else if (sy::Status v = sy::ValidateGraphTypes(*graph); !v.ok()) {
    files.error = v.message();
  } else {
    files.json = dir / key;
    files.single = dir / (key + ".symodel");
    sy::Status a = sy::SaveModel(*graph, files.json);
    sy::Status b = sy::SaveModel(*graph, files.single);
    if (!a.ok() || !b.ok()) files.error = (a.ok() ? b : a).message();
  }
  return cache.emplace(key, std::move(files)).first->second;
}

void Load(benchmark::State& state, const Files& files, bool single, bool both_passes) {
  if (!files.error.empty()) return state.SkipWithError(files.error.c_str());
  const fs::path& path = single ? files.single : files.json;
  for (auto _ : state) {
    sy::Expected<sy::Graph> graph = both_passes ? sy::LoadModel(path) : sy::ReadModel(path);
    if (!graph.ok()) return state.SkipWithError(graph.status().message().c_str());
    benchmark::DoNotOptimize(graph);
  }
}

// Args: blocks, single file (0: JSON), both passes (0: pass 1 only).
void BM_LoadChain(benchmark::State& state) {
  const int blocks = static_cast<int>(state.range(0));
  const Files& files = FilesFor("chain" + std::to_string(blocks),
                                [&] { return sy::Expected<sy::Graph>(ChainGraph(blocks)); });
  Load(state, files, state.range(1) != 0, state.range(2) != 0);
}
BENCHMARK(BM_LoadChain)
    ->ArgsProduct({{250}, {0, 1}, {0, 1}})
    ->ArgNames({"blocks", "single_file", "both_passes"})
    ->Unit(benchmark::kMillisecond);

// Args: single file, both passes. Skipped unless SY_BENCH_MODEL names a model.
void BM_LoadModel(benchmark::State& state) {
  const char* model = std::getenv("SY_BENCH_MODEL");
  if (model == nullptr) return state.SkipWithError("set SY_BENCH_MODEL to a model");
  const Files& files = FilesFor("model", [&] { return sy::LoadModel(model); });
  Load(state, files, state.range(0) != 0, state.range(1) != 0);
}
BENCHMARK(BM_LoadModel)
    ->ArgsProduct({{0, 1}, {0, 1}})
    ->ArgNames({"single_file", "both_passes"})
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
