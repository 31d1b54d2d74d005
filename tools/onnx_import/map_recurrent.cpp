// RNN, GRU and LSTM, unrolled over the static sequence length onto matmul, split and
// elementwise catalogue ops (ONNX's equations, gate orders i o f c for LSTM and z r h for
// GRU). The input projection X W^T + biases is one matmul over the whole sequence per
// direction; each step then adds H R^T and applies the activations. sequence_lens must
// equal the sequence length when given (padding-aware runs have no mapping).
#include <algorithm>

#include "op_mapping.h"
#include "switchyard/shape.h"

namespace sy::onnx_import {
namespace {

class Recurrent {
 public:
  explicit Recurrent(NodeContext& ctx) : ctx_(ctx) {}

  Status Map();

 private:
  Expected<ValueId> Reshape(ValueId x, Shape shape) {
    return EmitReshape(ctx_, x, std::move(shape));
  }
  Expected<ValueId> Slice(ValueId x, int64_t axis, int64_t begin, int64_t end) {
    Attrs attrs;
    attrs.Set("starts", std::vector<int64_t>{begin});
    attrs.Set("ends", std::vector<int64_t>{end});
    attrs.Set("axes", std::vector<int64_t>{axis});
    return ctx_.Emit1("slice", {x}, std::move(attrs));
  }
  Expected<ValueId> Transpose(ValueId x, std::vector<int64_t> perm) {
    Attrs attrs;
    attrs.Set("perm", std::move(perm));
    return ctx_.Emit1("transpose", {x}, std::move(attrs));
  }
  Expected<ValueId> Concat(std::vector<ValueId> parts, int64_t axis) {
    if (parts.size() == 1) return parts[0];
    Attrs attrs;
    attrs.Set("axis", axis);
    return ctx_.Emit1("concat", std::move(parts), std::move(attrs));
  }
  Expected<ValueId> Binary(std::string_view op, ValueId a, ValueId b) {
    return ctx_.Emit1(op, {a, b});
  }
  // Activation number `index` of this node (ONNX names, ONNX's alpha/beta defaults).
  Expected<ValueId> Activate(size_t index, ValueId x);
  // The gate pre-activation clipped to [-clip, clip] when `clip` is set.
  Expected<ValueId> Clip(ValueId x) {
    if (!clip_) return x;
    Attrs attrs;
    attrs.Set("min", -*clip_);
    attrs.Set("max", *clip_);
    return ctx_.Emit1("clip", {x}, std::move(attrs));
  }
  // Slice d of an optional per-direction input [dirs, ...] reshaped to `shape`.
  Expected<std::optional<ValueId>> PerDirection(size_t input, int64_t d, const Shape& shape) {
    if (!ctx_.HasInput(input)) return std::optional<ValueId>();
    SY_ASSIGN_OR_RETURN(ValueId v, ctx_.Input(input));
    SY_ASSIGN_OR_RETURN(v, Slice(v, 0, d, d + 1));
    SY_ASSIGN_OR_RETURN(v, Reshape(v, shape));
    return std::optional<ValueId>(v);
  }

  NodeContext& ctx_;
  std::string type_;
  std::vector<std::string> activations_;
  std::vector<double> alphas_, betas_;
  std::optional<double> clip_;
  DType dtype_ = DType::kF32;
};

Expected<ValueId> Recurrent::Activate(size_t index, ValueId x) {
  const std::string& name = activations_[index];
  const double alpha = index < alphas_.size() ? alphas_[index] : -1;
  const double beta = index < betas_.size() ? betas_[index] : -1;
  const auto with = [&](std::string_view op, Attrs attrs) {
    return ctx_.Emit1(op, {x}, std::move(attrs));
  };
  Attrs attrs;
  if (name == "Sigmoid") return with("sigmoid", {});
  if (name == "Tanh") return with("tanh", {});
  if (name == "Relu") return with("relu", {});
  if (name == "Softsign") return with("softsign", {});
  if (name == "Softplus") return with("softplus", {});
  if (name == "HardSigmoid") {
    attrs.Set("alpha", alpha >= 0 ? alpha : 0.2);
    attrs.Set("beta", beta >= 0 ? beta : 0.5);
    return with("hard_sigmoid", std::move(attrs));
  }
  if (name == "LeakyRelu") {
    attrs.Set("alpha", alpha >= 0 ? alpha : 0.01);
    return with("leaky_relu", std::move(attrs));
  }
  if (name == "Elu") {
    attrs.Set("alpha", alpha >= 0 ? alpha : 1.0);
    return with("elu", std::move(attrs));
  }
  if (name == "Affine" || name == "ScaledTanh") {
    SY_ASSIGN_OR_RETURN(ValueId a, ctx_.Scalar(dtype_, alpha >= 0 ? alpha : 1.0));
    SY_ASSIGN_OR_RETURN(ValueId b,
                        ctx_.Scalar(dtype_, beta >= 0 ? beta : (name == "Affine" ? 0.0 : 1.0)));
    if (name == "Affine") {
      SY_ASSIGN_OR_RETURN(ValueId ax, Binary("mul", x, a));
      return Binary("add", ax, b);
    }
    SY_ASSIGN_OR_RETURN(ValueId bx, Binary("mul", x, b));
    SY_ASSIGN_OR_RETURN(ValueId t, ctx_.Emit1("tanh", {bx}));
    return Binary("mul", t, a);
  }
  return ctx_.UnsupportedOp("activation '" + name + "' has no mapping");
}

Status Recurrent::Map() {
  type_ = ctx_.node().op_type();
  const int64_t gates = type_ == "LSTM" ? 4 : type_ == "GRU" ? 3 : 1;
  const size_t per_direction = type_ == "LSTM" ? 3 : type_ == "GRU" ? 2 : 1;
  SY_ASSIGN_OR_RETURN(ValueId x, ctx_.Input(0));
  SY_ASSIGN_OR_RETURN(ValueId w, ctx_.Input(1));
  SY_ASSIGN_OR_RETURN(ValueId r, ctx_.Input(2));
  dtype_ = ctx_.TypeOf(x).dtype;
  const bool batch_first = ctx_.AttrInt("layout", 0) == 1;
  if (ctx_.TypeOf(x).shape.size() != 3 || ctx_.TypeOf(r).shape.size() != 3) {
    return ctx_.Invalid("X and R must be 3-D");
  }
  if (batch_first) {
    SY_ASSIGN_OR_RETURN(x, Transpose(x, {1, 0, 2}));
  }
  const Shape xs = ctx_.TypeOf(x).shape;
  const int64_t seq = xs[0], batch = xs[1], in = xs[2];
  const int64_t hidden = ctx_.AttrInt("hidden_size", ctx_.TypeOf(r).shape[2]);
  const std::string direction = ctx_.AttrString("direction", "forward");
  const int64_t dirs = direction == "bidirectional" ? 2 : 1;
  if (direction != "forward" && direction != "reverse" && direction != "bidirectional") {
    return ctx_.Invalid("direction '" + direction + "' is not forward, reverse or bidirectional");
  }
  if (ctx_.TypeOf(w).shape != Shape{dirs, gates * hidden, in} ||
      ctx_.TypeOf(r).shape != Shape{dirs, gates * hidden, hidden}) {
    return ctx_.Invalid("W " + ctx_.TypeOf(w).ToString() + " or R does not match " +
                        std::to_string(dirs) + " directions, " + std::to_string(gates) +
                        " gates, hidden size " + std::to_string(hidden) + " and input size " +
                        std::to_string(in));
  }
  if (ctx_.HasInput(4)) {
    SY_ASSIGN_OR_RETURN(std::vector<int64_t> lens, ctx_.StaticInts(4, "sequence_lens"));
    for (int64_t len : lens) {
      if (len != seq) {
        return ctx_.UnsupportedOp("sequence_lens " + std::to_string(len) +
                                  " shorter than the sequence (" + std::to_string(seq) +
                                  ") has no mapping");
      }
    }
  }
  if (type_ == "LSTM" && ctx_.AttrInt("input_forget", 0) != 0) {
    return ctx_.UnsupportedOp("input_forget has no mapping");
  }
  static const std::vector<std::string> kLstm{"Sigmoid", "Tanh", "Tanh"}, kGru{"Sigmoid", "Tanh"},
      kRnn{"Tanh"};
  const std::vector<std::string>& defaults = type_ == "LSTM" ? kLstm : type_ == "GRU" ? kGru : kRnn;
  std::vector<std::string> listed;
  if (const auto* a = ctx_.Attr("activations"))
    listed.assign(a->strings().begin(), a->strings().end());
  alphas_ = ctx_.AttrFloats("activation_alpha").value_or(std::vector<double>{});
  betas_ = ctx_.AttrFloats("activation_beta").value_or(std::vector<double>{});
  if (ctx_.Attr("clip") != nullptr) clip_ = ctx_.AttrFloat("clip", 0);
  const bool linear_before_reset = ctx_.AttrInt("linear_before_reset", 0) != 0;
  const int64_t gh = gates * hidden;

  std::vector<ValueId> y_dirs, h_dirs, c_dirs;
  for (int64_t d = 0; d < dirs; ++d) {
    activations_.clear();
    for (size_t k = 0; k < per_direction; ++k) {
      const size_t at = static_cast<size_t>(d) * per_direction + k;
      activations_.push_back(at < listed.size() ? listed[at] : defaults[k]);
    }
    SY_ASSIGN_OR_RETURN(ValueId wd, Slice(w, 0, d, d + 1));
    SY_ASSIGN_OR_RETURN(wd, Reshape(wd, {gh, in}));
    SY_ASSIGN_OR_RETURN(ValueId wt, Transpose(wd, {1, 0}));
    SY_ASSIGN_OR_RETURN(ValueId rd, Slice(r, 0, d, d + 1));
    SY_ASSIGN_OR_RETURN(rd, Reshape(rd, {gh, hidden}));
    SY_ASSIGN_OR_RETURN(ValueId rt, Transpose(rd, {1, 0}));          // [hidden, gh]
    SY_ASSIGN_OR_RETURN(ValueId xw, ctx_.Emit1("matmul", {x, wt}));  // [seq, batch, gh]
    SY_ASSIGN_OR_RETURN(auto bias, PerDirection(3, d, {2 * gh}));
    std::optional<ValueId> rbh;  // GRU's recurrent bias of the h gate, kept apart
    if (bias) {
      SY_ASSIGN_OR_RETURN(ValueId wb, Slice(*bias, 0, 0, gh));
      SY_ASSIGN_OR_RETURN(ValueId rb, Slice(*bias, 0, gh, 2 * gh));
      if (type_ == "GRU") {
        SY_ASSIGN_OR_RETURN(ValueId rb_zr, Slice(rb, 0, 0, 2 * hidden));
        SY_ASSIGN_OR_RETURN(ValueId zero_h, ctx_.Scalar(dtype_, 0, {hidden}));
        SY_ASSIGN_OR_RETURN(rb, Concat({rb_zr, zero_h}, 0));
        SY_ASSIGN_OR_RETURN(ValueId h_part, Slice(*bias, 0, gh + 2 * hidden, 2 * gh));
        rbh = h_part;
      }
      SY_ASSIGN_OR_RETURN(ValueId b, Binary("add", wb, rb));
      SY_ASSIGN_OR_RETURN(xw, Binary("add", xw, b));
    }
    SY_ASSIGN_OR_RETURN(auto h0, PerDirection(5, d, {batch, hidden}));
    SY_ASSIGN_OR_RETURN(auto c0, PerDirection(6, d, {batch, hidden}));
    SY_ASSIGN_OR_RETURN(auto peep, PerDirection(7, d, {3 * hidden}));
    SY_ASSIGN_OR_RETURN(ValueId zeros, ctx_.Scalar(dtype_, 0, {batch, hidden}));
    ValueId h = h0 ? *h0 : zeros;
    ValueId c = c0 ? *c0 : zeros;
    std::optional<ValueId> pi, po, pf;
    if (type_ == "LSTM" && peep) {
      SY_ASSIGN_OR_RETURN(ValueId a, Slice(*peep, 0, 0, hidden));
      SY_ASSIGN_OR_RETURN(ValueId b, Slice(*peep, 0, hidden, 2 * hidden));
      SY_ASSIGN_OR_RETURN(ValueId f, Slice(*peep, 0, 2 * hidden, 3 * hidden));
      pi = a;
      po = b;
      pf = f;
    }
    std::optional<ValueId> rt_zr, rt_h;
    if (type_ == "GRU") {
      SY_ASSIGN_OR_RETURN(ValueId a, Slice(rt, 1, 0, 2 * hidden));
      SY_ASSIGN_OR_RETURN(ValueId b, Slice(rt, 1, 2 * hidden, gh));
      rt_zr = a;
      rt_h = b;
    }
    std::vector<ValueId> outputs(static_cast<size_t>(seq));
    const bool reverse = direction == "reverse" || d == 1;
    for (int64_t step = 0; step < seq; ++step) {
      const int64_t t = reverse ? seq - 1 - step : step;
      SY_ASSIGN_OR_RETURN(ValueId xt, Slice(xw, 0, t, t + 1));
      SY_ASSIGN_OR_RETURN(xt, Reshape(xt, {batch, gh}));
      if (type_ == "RNN") {
        SY_ASSIGN_OR_RETURN(ValueId hr, ctx_.Emit1("matmul", {h, rt}));
        SY_ASSIGN_OR_RETURN(ValueId a, Binary("add", xt, hr));
        SY_ASSIGN_OR_RETURN(a, Clip(a));
        SY_ASSIGN_OR_RETURN(h, Activate(0, a));
      } else if (type_ == "LSTM") {
        SY_ASSIGN_OR_RETURN(ValueId hr, ctx_.Emit1("matmul", {h, rt}));
        SY_ASSIGN_OR_RETURN(ValueId a, Binary("add", xt, hr));
        Attrs split;
        split.Set("axis", int64_t{1});
        SY_ASSIGN_OR_RETURN(std::vector<ValueId> g, ctx_.Emit("split", {a}, std::move(split), 4));
        ValueId i = g[0], o = g[1], f = g[2], cc = g[3];
        if (pi) {
          SY_ASSIGN_OR_RETURN(ValueId pic, Binary("mul", *pi, c));
          SY_ASSIGN_OR_RETURN(i, Binary("add", i, pic));
          SY_ASSIGN_OR_RETURN(ValueId pfc, Binary("mul", *pf, c));
          SY_ASSIGN_OR_RETURN(f, Binary("add", f, pfc));
        }
        SY_ASSIGN_OR_RETURN(i, Clip(i));
        SY_ASSIGN_OR_RETURN(i, Activate(0, i));
        SY_ASSIGN_OR_RETURN(f, Clip(f));
        SY_ASSIGN_OR_RETURN(f, Activate(0, f));
        SY_ASSIGN_OR_RETURN(cc, Clip(cc));
        SY_ASSIGN_OR_RETURN(cc, Activate(1, cc));
        SY_ASSIGN_OR_RETURN(ValueId keep, Binary("mul", f, c));
        SY_ASSIGN_OR_RETURN(ValueId write, Binary("mul", i, cc));
        SY_ASSIGN_OR_RETURN(c, Binary("add", keep, write));
        if (po) {
          SY_ASSIGN_OR_RETURN(ValueId poc, Binary("mul", *po, c));
          SY_ASSIGN_OR_RETURN(o, Binary("add", o, poc));
        }
        SY_ASSIGN_OR_RETURN(o, Clip(o));
        SY_ASSIGN_OR_RETURN(o, Activate(0, o));
        SY_ASSIGN_OR_RETURN(ValueId hc, Activate(2, c));
        SY_ASSIGN_OR_RETURN(h, Binary("mul", o, hc));
      } else {  // GRU
        Attrs split;
        split.Set("axis", int64_t{1});
        split.Set("sizes", std::vector<int64_t>{2 * hidden, hidden});
        SY_ASSIGN_OR_RETURN(std::vector<ValueId> xs2,
                            ctx_.Emit("split", {xt}, std::move(split), 2));
        SY_ASSIGN_OR_RETURN(ValueId hzr, ctx_.Emit1("matmul", {h, *rt_zr}));
        SY_ASSIGN_OR_RETURN(ValueId zr, Binary("add", xs2[0], hzr));
        SY_ASSIGN_OR_RETURN(zr, Clip(zr));
        SY_ASSIGN_OR_RETURN(zr, Activate(0, zr));
        Attrs halves;
        halves.Set("axis", int64_t{1});
        SY_ASSIGN_OR_RETURN(std::vector<ValueId> zrs,
                            ctx_.Emit("split", {zr}, std::move(halves), 2));
        const ValueId z = zrs[0], rgate = zrs[1];
        ValueId recurrent;
        if (linear_before_reset) {
          SY_ASSIGN_OR_RETURN(ValueId hh, ctx_.Emit1("matmul", {h, *rt_h}));
          if (rbh) {
            SY_ASSIGN_OR_RETURN(hh, Binary("add", hh, *rbh));
          }
          SY_ASSIGN_OR_RETURN(recurrent, Binary("mul", rgate, hh));
        } else {
          SY_ASSIGN_OR_RETURN(ValueId rh, Binary("mul", rgate, h));
          SY_ASSIGN_OR_RETURN(recurrent, ctx_.Emit1("matmul", {rh, *rt_h}));
          if (rbh) {
            SY_ASSIGN_OR_RETURN(recurrent, Binary("add", recurrent, *rbh));
          }
        }
        SY_ASSIGN_OR_RETURN(ValueId cand, Binary("add", xs2[1], recurrent));
        SY_ASSIGN_OR_RETURN(cand, Clip(cand));
        SY_ASSIGN_OR_RETURN(cand, Activate(1, cand));
        // H = (1 - z) * cand + z * H = cand + z * (H - cand)
        SY_ASSIGN_OR_RETURN(ValueId diff, Binary("sub", h, cand));
        SY_ASSIGN_OR_RETURN(ValueId zd, Binary("mul", z, diff));
        SY_ASSIGN_OR_RETURN(h, Binary("add", cand, zd));
      }
      SY_ASSIGN_OR_RETURN(outputs[t], Reshape(h, {1, 1, batch, hidden}));
    }
    SY_ASSIGN_OR_RETURN(ValueId y, Concat(outputs, 0));
    y_dirs.push_back(y);
    SY_ASSIGN_OR_RETURN(ValueId hd, Reshape(h, {1, batch, hidden}));
    h_dirs.push_back(hd);
    SY_ASSIGN_OR_RETURN(ValueId cd, Reshape(c, {1, batch, hidden}));
    c_dirs.push_back(cd);
  }
  SY_ASSIGN_OR_RETURN(ValueId y, Concat(y_dirs, 1));    // [seq, dirs, batch, hidden]
  SY_ASSIGN_OR_RETURN(ValueId y_h, Concat(h_dirs, 0));  // [dirs, batch, hidden]
  SY_ASSIGN_OR_RETURN(ValueId y_c, Concat(c_dirs, 0));
  if (batch_first) {
    SY_ASSIGN_OR_RETURN(y, Transpose(y, {2, 0, 1, 3}));
    SY_ASSIGN_OR_RETURN(y_h, Transpose(y_h, {1, 0, 2}));
    SY_ASSIGN_OR_RETURN(y_c, Transpose(y_c, {1, 0, 2}));
  }
  ctx_.SetOutput(0, y);
  ctx_.SetOutput(1, y_h);
  if (type_ == "LSTM") ctx_.SetOutput(2, y_c);
  return Status::Ok();
}

Status MapRecurrent(NodeContext& ctx) { return Recurrent(ctx).Map(); }

}  // namespace

void AddRecurrentMappings(MappingTable& table) {
  for (const char* op : {"RNN", "GRU", "LSTM"}) table.At(op).map = MapRecurrent;
}

}  // namespace sy::onnx_import
