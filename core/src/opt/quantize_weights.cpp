// The weight-only quantization of switchyard/quantize.h (`switchyard quantize`, Python
// switchyard.quantize): a rewrite a user asks for, not one of optimize.h's levels.
#include "switchyard/quantize.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>

#include "switchyard/half.h"
#include "switchyard/shape.h"

namespace sy {
namespace {

// How many times each value is read: by nodes, and as a graph output.
std::vector<int> ReadCounts(const Graph& graph) {
  std::vector<int> reads(graph.values.size(), 0);
  for (const Node& node : graph.nodes) {
    for (ValueId v : node.inputs) {
      if (v >= 0) ++reads[static_cast<size_t>(v)];
    }
  }
  for (ValueId v : graph.outputs) ++reads[static_cast<size_t>(v)];
  return reads;
}

// Why `node` (a matmul or a gemm) cannot be quantized, or "" when it can; `constant` is
// b's constant index.
std::string Ineligible(const Graph& graph, const Node& node, const std::vector<int>& reads,
                       const std::vector<int>& constant_of, int* constant) {
  const bool gemm = node.op == "gemm";
  if (gemm ? node.inputs.size() < 2 || node.inputs.size() > 3 : node.inputs.size() != 2) {
    return "an unexpected number of inputs";
  }
  if (gemm && node.attrs.GetInt("trans_a", 0) != 0) return "a gemm with trans_a";
  const ValueId b = node.inputs[1];
  const int c = constant_of[static_cast<size_t>(b)];
  if (c < 0) return "b is not a constant";
  const Value& bv = graph.values[static_cast<size_t>(b)];
  const DType dtype = bv.type.dtype;
  if (dtype != DType::kF32 && dtype != DType::kF16 && dtype != DType::kBF16)
    return "b is " + std::string(DTypeName(dtype)) + ", not f32, f16 or bf16";
  if (bv.type.shape.size() != 2)
    return "b has shape " + ShapeToString(bv.type.shape) + ", not [K, N]";
  if (bv.type.shape[0] < 1 || bv.type.shape[1] < 1) return "b is empty";
  if (reads[static_cast<size_t>(b)] != 1) return "b is read elsewhere too";
  if (graph.values[static_cast<size_t>(node.inputs[0])].type.dtype != dtype) {
    return "a's dtype is not b's";
  }
  if (gemm && node.inputs.size() == 3 && node.inputs[2] >= 0 &&
      node.attrs.GetFloat("beta", 1.0) != 1.0) {
    const ValueId cv = node.inputs[2];
    if (dtype != DType::kF32 || constant_of[static_cast<size_t>(cv)] < 0 ||
        reads[static_cast<size_t>(cv)] != 1 ||
        graph.values[static_cast<size_t>(cv)].type.dtype != DType::kF32) {
      return "a gemm whose c (times beta, not 1) is not an f32 constant of its own";
    }
  }
  *constant = c;
  return "";
}

// The value `name`, unused so far in `graph`: `base`, or `base` with a number.
std::string FreshName(const Graph& graph, const std::string& base) {
  const auto taken = [&](const std::string& n) {
    return std::any_of(graph.values.begin(), graph.values.end(),
                       [&](const Value& v) { return v.name == n; });
  };
  std::string name = base;
  for (int i = 1; taken(name); ++i) name = base + "_" + std::to_string(i);
  return name;
}

ValueId AddConstant(Graph& graph, const std::string& name, Tensor data) {
  const auto id = static_cast<ValueId>(graph.values.size());
  graph.values.push_back(Value{name, data.type(), {}});
  graph.constants.push_back(Constant{id, name, std::move(data)});
  return id;
}

}  // namespace

Expected<QuantizeReport> QuantizeMatmulWeights(Graph& graph, const QuantizeOptions& options) {
  const int64_t bits = options.bits;
  const int64_t bs = options.block_size;
  if (bits != 4 && bits != 8) {
    return InvalidArgument("weights of " + std::to_string(bits) + " bits: expected 4 or 8");
  }
  if (bs < 16 || bs > 256 || (bs & (bs - 1)) != 0) {
    return InvalidArgument("block size " + std::to_string(bs) +
                           ": expected a power of two from 16 to 256");
  }
  const int64_t levels = (int64_t{1} << bits) - 1;  // largest code
  const int64_t middle = int64_t{1} << (bits - 1);  // the default zero point
  QuantizeReport report;
  const std::vector<int> reads = ReadCounts(graph);
  std::vector<int> constant_of(graph.values.size(), -1);
  for (size_t c = 0; c < graph.constants.size(); ++c) {
    constant_of[static_cast<size_t>(graph.constants[c].value)] = static_cast<int>(c);
  }
  size_t node_count = graph.nodes.size();
  for (size_t i = 0; i < node_count; ++i) {
    if (graph.nodes[i].op != "matmul" && graph.nodes[i].op != "gemm") continue;
    int c = -1;
    const std::string why = Ineligible(graph, graph.nodes[i], reads, constant_of, &c);
    if (!why.empty()) {
      report.skipped.push_back({i, why});
      continue;
    }
    const ValueId b = graph.nodes[i].inputs[1];
    const Tensor& w_tensor = graph.constants[static_cast<size_t>(c)].data;
    // The weight as [K, N]: a gemm's b may be [N, K] (trans_b), and its alpha scales it.
    const bool gemm = graph.nodes[i].op == "gemm";
    const bool trans_b = gemm && graph.nodes[i].attrs.GetInt("trans_b", 0) != 0;
    const double alpha = gemm ? graph.nodes[i].attrs.GetFloat("alpha", 1.0) : 1.0;
    const int64_t k = w_tensor.shape()[trans_b ? 1 : 0];
    const int64_t n = w_tensor.shape()[trans_b ? 0 : 1];
    const int64_t blocks = (k + bs - 1) / bs;
    const int64_t block_bytes = bs * bits / 8;
    // f16 and bf16 weights are read exactly as doubles; their scales are stored in the
    // same dtype (quant_matmul's scales are a's), rounded before the codes are chosen.
    const DType dtype = w_tensor.dtype();
    const auto* w_data = reinterpret_cast<const unsigned char*>(w_tensor.data());
    const auto element = [&](int64_t at) -> double {
      if (dtype == DType::kF32) {
        float f;
        std::memcpy(&f, w_data + at * 4, 4);
        return f;
      }
      uint16_t h;
      std::memcpy(&h, w_data + at * 2, 2);
      return dtype == DType::kF16 ? HalfToFloat(h) : BFloat16ToFloat(h);
    };
    const auto weight = [&](int64_t l, int64_t j) {
      return alpha * element(trans_b ? j * k + l : l * n + j);
    };
    const auto round_scale = [&](double v) -> float {
      const auto f = static_cast<float>(v);
      if (dtype == DType::kF16) return HalfToFloat(FloatToHalf(f));
      if (dtype == DType::kBF16) return BFloat16ToFloat(FloatToBFloat16(f));
      return f;
    };
    const auto store_scale = [&](unsigned char* at, float f) {
      if (dtype == DType::kF32) {
        std::memcpy(at, &f, 4);
      } else {
        const uint16_t h = dtype == DType::kF16 ? FloatToHalf(f) : FloatToBFloat16(f);
        std::memcpy(at, &h, 2);
      }
    };
    SY_ASSIGN_OR_RETURN(Tensor codes, Tensor::Allocate(DType::kU8, {n, blocks, block_bytes}));
    SY_ASSIGN_OR_RETURN(Tensor scales, Tensor::Allocate(dtype, {n, blocks}));
    SY_ASSIGN_OR_RETURN(Tensor zeros, Tensor::Allocate(DType::kU8, {n, blocks}));
    auto* q = reinterpret_cast<uint8_t*>(codes.mutable_data());
    auto* s = reinterpret_cast<unsigned char*>(scales.mutable_data());
    const size_t scale_size = DTypeSize(dtype);
    auto* z = reinterpret_cast<uint8_t*>(zeros.mutable_data());
    std::memset(q, 0, codes.byte_size());
    double err2 = 0, norm2 = 0, max_err = 0;
    for (int64_t j = 0; j < n; ++j) {
      for (int64_t blk = 0; blk < blocks; ++blk) {
        const int64_t start = blk * bs, end = std::min(k, start + bs);
        double lo = 0, hi = 0, amax = 0;
        for (int64_t l = start; l < end; ++l) {
          const double v = weight(l, j);
          lo = std::min(lo, v);
          hi = std::max(hi, v);
          amax = std::max(amax, std::fabs(v));
        }
        const double scale = options.symmetric ? amax / static_cast<double>(middle - 1)
                                               : (hi - lo) / static_cast<double>(levels);
        float scale_f = round_scale(scale);
        if (!(scale_f > 0) || !std::isfinite(scale_f)) scale_f = 1;  // an all-zero block
        const int64_t zero =
            options.symmetric
                ? middle
                : std::clamp<int64_t>(std::llround(-lo / static_cast<double>(scale_f)), 0, levels);
        store_scale(s + static_cast<size_t>(j * blocks + blk) * scale_size, scale_f);
        z[j * blocks + blk] = static_cast<uint8_t>(zero);
        uint8_t* bytes = q + (j * blocks + blk) * block_bytes;
        for (int64_t l = start; l < end; ++l) {
          const double v = weight(l, j);
          const int64_t code =
              std::clamp<int64_t>(std::llround(v / static_cast<double>(scale_f)) + zero, 0, levels);
          const int64_t at = l - start;
          if (bits == 8) {
            bytes[at] = static_cast<uint8_t>(code);
          } else {
            bytes[at / 2] |= static_cast<uint8_t>(code << (4 * (at % 2)));
          }
          const double back = static_cast<double>(code - zero) * static_cast<double>(scale_f);
          err2 += (v - back) * (v - back);
          norm2 += v * v;
          max_err = std::max(max_err, std::fabs(v - back));
        }
      }
    }
    QuantizedLayer layer;
    layer.node = i;
    layer.k = k;
    layer.n = n;
    layer.relative_rms = norm2 > 0 ? std::sqrt(err2 / norm2) : 0;
    layer.max_abs_error = max_err;
    layer.bytes_before = w_tensor.byte_size();
    layer.bytes_after =
        codes.byte_size() + scales.byte_size() + (options.symmetric ? 0 : zeros.byte_size());
    // b's value now holds the codes (its one reader is this node).
    Value& bv = graph.values[static_cast<size_t>(b)];
    bv.type = codes.type();
    bv.symbolic_shape.clear();
    Constant& bc = graph.constants[static_cast<size_t>(c)];
    if (bc.tensor_name.empty()) bc.tensor_name = FreshName(graph, bv.name + ".codes");
    bc.data = std::move(codes);
    const std::string base = bv.name;
    std::vector<ValueId> inputs = {
        graph.nodes[i].inputs[0], b,
        AddConstant(graph, FreshName(graph, base + ".scales"), std::move(scales))};
    if (!options.symmetric) {
      inputs.push_back(
          AddConstant(graph, FreshName(graph, base + ".zero_points"), std::move(zeros)));
    }
    // A gemm's c (times beta) is added after the product: y = quant_matmul(a, w) + beta c,
    // the quant_matmul writing a new value and the add the gemm's output.
    std::optional<Node> add;
    if (gemm && graph.nodes[i].inputs.size() == 3 && graph.nodes[i].inputs[2] >= 0) {
      const ValueId cv = graph.nodes[i].inputs[2];
      const double beta = graph.nodes[i].attrs.GetFloat("beta", 1.0);
      if (beta != 1.0) {
        Tensor& bias =
            graph.constants[static_cast<size_t>(constant_of[static_cast<size_t>(cv)])].data;
        float* values = reinterpret_cast<float*>(bias.mutable_data());
        if (values == nullptr) {
          SY_ASSIGN_OR_RETURN(Tensor copy, Tensor::Allocate(DType::kF32, bias.shape()));
          std::memcpy(copy.mutable_data(), bias.data(), bias.byte_size());
          bias = std::move(copy);
          values = reinterpret_cast<float*>(bias.mutable_data());
        }
        for (int64_t e = 0; e < bias.element_count(); ++e) {
          values[e] = static_cast<float>(beta * static_cast<double>(values[e]));
        }
      }
      const ValueId out = graph.nodes[i].outputs[0];
      const auto product = static_cast<ValueId>(graph.values.size());
      Value pv = graph.values[static_cast<size_t>(out)];
      pv.name = FreshName(graph, pv.name + ".product");
      graph.values.push_back(std::move(pv));
      add = Node{"add", {product, cv}, {out}, {}, graph.nodes[i].name, graph.nodes[i].backend, {}};
      graph.nodes[i].outputs[0] = product;
    }
    Node& node = graph.nodes[i];
    node.op = "quant_matmul";
    node.inputs = std::move(inputs);
    node.attrs = Attrs();
    node.attrs.Set("bits", bits);
    node.attrs.Set("block_size", bs);
    report.quantized.push_back(layer);
    if (add) {
      if (!add->name.empty()) add->name += ".bias";
      graph.nodes.insert(graph.nodes.begin() + static_cast<ptrdiff_t>(i) + 1, std::move(*add));
      ++i;
      ++node_count;
    }
  }
  return report;
}

}  // namespace sy
