// QDQ folding (docs/onnx-import.md, "QDQ folding"): a QDQ model (ONNX Runtime's
// quantize_static with QuantFormat.QDQ, and other quantizers that write the same form)
// keeps its float ops and marks each quantized tensor with a QuantizeLinear /
// DequantizeLinear pair. Run as written, every conv of such a model sums dequantized
// floats between elementwise passes. This pass rewrites each node unit
//
//   DequantizeLinear(x_q) ─┐
//   DequantizeLinear(w_q) ─┼─ Conv ── QuantizeLinear ── y_q
//   DequantizeLinear(b_q) ─┘ (optional)
//
// into one QLinearConv(x_q, x_scale, x_zero_point, w_q, w_scale, w_zero_point, y_scale,
// y_zero_point, b_q), which the importer maps onto the catalogue's qlinear_conv: integer
// products, requantized in the kernel. This is ONNX Runtime's own rewrite (its QDQ
// selectors and actions), and the result is the same real number: the float conv of the
// dequantized values is sum (x_q - zx) xs (w_q - zw) ws + b_q bs, and with bs = xs * ws
// (which the quantizer writes) that is xs ws (sum (x_q - zx)(w_q - zw) + b_q), which
// QLinearConv computes exactly before its one rounding. Only float rounding differs: the
// QDQ form rounds every partial sum, the integer form none.
//
// A unit is folded only when all of this holds; anything else is left as written (and
// still imports, computed in float):
// - x's DequantizeLinear is per tensor (scalar scale and zero point, both initializers,
//   the zero point u8 or i8, the scale f32);
// - w's is a DequantizeLinear of an initializer, per tensor or per output channel (axis
//   0), u8/i8 with f32 scales;
// - the bias, where there is one, is a DequantizeLinear of an i32 initializer with zero
//   points 0 whose scale is x_scale * w_scale per channel within 2^-20 (relative), and
//   where there is none nothing else is added;
// - the Conv's output goes to one QuantizeLinear only and is not a graph output; that
//   QuantizeLinear is per tensor with u8/i8 zero point initializer and f32 scale;
// - no DequantizeLinear has a block_size.
// The DequantizeLinear nodes stay: other nodes may read them, and those that nothing reads
// are dropped with the graph's other dead values.
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "host_tensor_ops.h"
#include "model_checks.h"
#include "qdq_folding.h"

namespace sy::onnx_import {
namespace {

int64_t IntAttr(const onnx::NodeProto& node, const std::string& name, int64_t fallback) {
  for (const onnx::AttributeProto& a : node.attribute()) {
    if (a.name() == name) return a.i();
  }
  return fallback;
}

// The quantization parameters of a DequantizeLinear or QuantizeLinear node: its scale and
// zero point as initializers.
struct QParams {
  const Tensor* scale = nullptr;
  const Tensor* zero = nullptr;
};

// A node's scale (input 1) and zero point (input 2) when both are initializers with an f32
// scale, and, for `per_tensor`, both hold one element. nullopt otherwise.
std::optional<QParams> ParamsOf(const onnx::NodeProto& node, const ConstantLookup& constant,
                                bool per_tensor) {
  if (node.input_size() < 3 || IntAttr(node, "block_size", 0) != 0) return std::nullopt;
  QParams p;
  p.scale = constant(node.input(1));
  p.zero = constant(node.input(2));
  if (p.scale == nullptr || p.zero == nullptr || p.scale->dtype() != DType::kF32) {
    return std::nullopt;
  }
  if (per_tensor && (ElementCount(p.scale->shape()) != 1 || ElementCount(p.zero->shape()) != 1)) {
    return std::nullopt;
  }
  return p;
}

bool IsByteType(DType d) { return d == DType::kU8 || d == DType::kI8; }

}  // namespace

size_t FoldQdqConvs(std::vector<FlatNode>& nodes, const std::set<std::string>& graph_outputs,
                    const ConstantLookup& constant) {
  // Producers and readers of every name, over the main graph's nodes.
  std::map<std::string, size_t> producer;
  std::map<std::string, std::vector<size_t>> readers;
  for (size_t i = 0; i < nodes.size(); ++i) {
    const onnx::NodeProto& n = nodes[i].node;
    for (const std::string& out : n.output()) producer[out] = i;
    for (const std::string& in : n.input()) {
      if (!in.empty()) readers[in].push_back(i);
    }
  }
  const auto dequantize_of = [&](const std::string& name) -> const onnx::NodeProto* {
    const auto it = producer.find(name);
    if (it == producer.end()) return nullptr;
    const onnx::NodeProto& n = nodes[it->second].node;
    return n.op_type() == "DequantizeLinear" && IsDefaultDomain(n.domain()) ? &n : nullptr;
  };
  std::set<size_t> removed;
  size_t folded = 0;
  for (size_t i = 0; i < nodes.size(); ++i) {
    onnx::NodeProto& conv = nodes[i].node;
    if (conv.op_type() != "Conv" || !IsDefaultDomain(conv.domain()) || conv.input_size() < 2 ||
        conv.output_size() != 1 || graph_outputs.count(conv.output(0)) != 0) {
      continue;
    }
    const std::vector<size_t>& out_readers = readers[conv.output(0)];
    if (out_readers.size() != 1) continue;
    const size_t q_index = out_readers[0];
    const onnx::NodeProto& q = nodes[q_index].node;
    if (q.op_type() != "QuantizeLinear" || !IsDefaultDomain(q.domain()) ||
        q.input(0) != conv.output(0)) {
      continue;
    }
    const onnx::NodeProto* dx = dequantize_of(conv.input(0));
    const onnx::NodeProto* dw = dequantize_of(conv.input(1));
    const bool has_bias = conv.input_size() > 2 && !conv.input(2).empty();
    const onnx::NodeProto* db = has_bias ? dequantize_of(conv.input(2)) : nullptr;
    if (dx == nullptr || dw == nullptr || (has_bias && db == nullptr)) continue;
    const std::optional<QParams> px = ParamsOf(*dx, constant, true);
    const std::optional<QParams> pw = ParamsOf(*dw, constant, false);
    const std::optional<QParams> py = ParamsOf(q, constant, true);
    const Tensor* w = constant(dw->input(0));
    if (!px || !pw || !py || w == nullptr || !IsByteType(px->zero->dtype()) ||
        !IsByteType(pw->zero->dtype()) || !IsByteType(py->zero->dtype()) ||
        pw->zero->dtype() != w->dtype() || w->shape().empty()) {
      continue;
    }
    // w per tensor, or per output channel along axis 0.
    const int64_t channels = w->shape()[0];
    const int64_t w_params = ElementCount(pw->scale->shape());
    if (ElementCount(pw->zero->shape()) != w_params) continue;
    if (w_params != 1) {
      const int64_t axis = IntAttr(*dw, "axis", 1);
      const auto rank = static_cast<int64_t>(w->shape().size());
      if (w_params != channels || pw->scale->shape().size() != 1 || (axis != 0 && axis != -rank)) {
        continue;
      }
    }
    if (has_bias) {
      const Tensor* b = constant(db->input(0));
      std::optional<QParams> pb;
      if (db->input_size() >= 3) {
        pb = ParamsOf(*db, constant, false);
      } else if (const Tensor* s = constant(db->input(1));
                 s != nullptr && s->dtype() == DType::kF32) {
        pb = QParams{s, nullptr};
      }
      if (b == nullptr || b->dtype() != DType::kI32 || b->shape() != Shape{channels} || !pb ||
          IntAttr(*db, "block_size", 0) != 0) {
        continue;
      }
      if (pb->zero != nullptr) {
        bool zeros = true;
        for (double z : ToDoubles(*pb->zero)) zeros = zeros && z == 0.0;
        if (!zeros) continue;
      }
      // The bias's scale must be x_scale * w_scale, channel by channel.
      const std::vector<double> bs = ToDoubles(*pb->scale);
      const std::vector<double> ws = ToDoubles(*pw->scale);
      const float xs = static_cast<float>(ToDoubles(*px->scale)[0]);
      if (bs.size() != 1 && static_cast<int64_t>(bs.size()) != channels) continue;
      bool matches = true;
      for (int64_t m = 0; m < channels && matches; ++m) {
        const float want = xs * static_cast<float>(ws[ws.size() == 1 ? 0 : static_cast<size_t>(m)]);
        const double got = bs[bs.size() == 1 ? 0 : static_cast<size_t>(m)];
        matches = std::fabs(got - want) <= std::ldexp(std::fabs(static_cast<double>(want)), -20);
      }
      if (!matches) continue;
    }
    // The rewrite: Conv becomes QLinearConv writing the QuantizeLinear's output.
    onnx::NodeProto qconv;
    qconv.set_op_type("QLinearConv");
    qconv.set_name(conv.name().empty() ? q.output(0) + "/qlinear_conv" : conv.name());
    for (const std::string& in : {dx->input(0), dx->input(1), dx->input(2), dw->input(0),
                                  dw->input(1), dw->input(2), q.input(1), q.input(2)}) {
      qconv.add_input(in);
    }
    if (has_bias) qconv.add_input(db->input(0));
    qconv.add_output(q.output(0));
    for (const onnx::AttributeProto& a : conv.attribute()) *qconv.add_attribute() = a;
    conv = std::move(qconv);
    removed.insert(q_index);
    ++folded;
  }
  if (!removed.empty()) {
    std::vector<FlatNode> kept;
    kept.reserve(nodes.size() - removed.size());
    for (size_t i = 0; i < nodes.size(); ++i) {
      if (removed.count(i) == 0) kept.push_back(std::move(nodes[i]));
    }
    nodes = std::move(kept);
  }
  return folded;
}

}  // namespace sy::onnx_import
