// Linear-algebra ops of the catalogue (spec/ops.md, "Linear algebra"): matmul with NumPy
// semantics (1-D promotion, broadcast batch dims), gemm (rank-2 operands, optional
// transposes, C broadcast unidirectionally to [M, N]), and the extensions det (ONNX Det:
// the determinants of [..., M, M] square matrices), matmul_integer (ONNX MatMulInteger:
// u8/i8 operands less their zero points, multiplied exactly into i32) and quant_matmul (seed 000's
// quant_matmul: float activations times block-quantized 4- or 8-bit weights that stay
// packed, ONNX Runtime's MatMulNBits; docs/ops.md).
#include <algorithm>

#include "ops/op_families.h"
#include "ops/shape_rule_helpers.h"

namespace sy::ops {
namespace {

constexpr DTypeSet kF = DTypeSet::Float();
// matmul: F, plus the optional integer class I (ops.md: "F (I optional)").
constexpr DTypeSet kFI = DTypeSet::Numeric();

AttrSpec Float(std::string_view name, double value) { return {name, AttrKind::kFloat, value}; }
AttrSpec Flag(std::string_view name) { return {name, AttrKind::kInt, int64_t{0}}; }
AttrSpec Int(std::string_view name, int64_t value) { return {name, AttrKind::kInt, value}; }

// A 0/1 attribute (trans_a, trans_b): anything else is an error naming it.
Status RequireFlag(const Attrs& attrs, std::string_view name) {
  const int64_t v = attrs.GetInt(name);
  if (v == 0 || v == 1) return Status::Ok();
  return AttrError(name, "is " + std::to_string(v) + " but must be 0 or 1");
}

std::string Dim(int64_t index, int64_t size) {
  return "dimension " + std::to_string(index) + " (" + std::to_string(size) + ")";
}

}  // namespace

// NumPy matmul: a [..., M, K] x b [..., K, N] -> [broadcast(...), M, N]. A 1-D a is
// promoted to [1, K] and a 1-D b to [K, 1]; the promoted dim is removed from the output.
Expected<std::vector<TensorType>> InferMatmul(const InferContext& ctx) {
  const TensorType& a = ctx.input(0);
  const TensorType& b = ctx.input(1);
  for (auto [type, name] : {std::pair{&a, "a"}, {&b, "b"}}) {
    if (type->rank() == 0) {
      return InvalidModel("input " + std::string(name) +
                          " is a scalar (shape []) but matmul needs rank at least 1");
    }
  }
  const int64_t ra = a.rank();
  const int64_t rb = b.rank();
  // The contracted dims: a's last, b's second-to-last (its only one when 1-D).
  const int64_t k_index_b = rb == 1 ? 0 : rb - 2;
  const int64_t ka = a.shape[ra - 1];
  const int64_t kb = b.shape[k_index_b];
  if (ka != kb) {
    return InvalidModel("input b has shape " + ShapeToString(b.shape) + " but its " +
                        Dim(k_index_b, kb) + " must equal input a's last dimension (" +
                        std::to_string(ka) + ")");
  }
  const std::span<const int64_t> batch_a(a.shape.data(), ra > 2 ? ra - 2 : 0);
  const std::span<const int64_t> batch_b(b.shape.data(), rb > 2 ? rb - 2 : 0);
  Shape shape(std::max(batch_a.size(), batch_b.size()));
  for (size_t i = 0; i < shape.size(); ++i) {
    const size_t pad_a = shape.size() - batch_a.size();
    const size_t pad_b = shape.size() - batch_b.size();
    const int64_t da = i < pad_a ? 1 : batch_a[i - pad_a];
    const int64_t db = i < pad_b ? 1 : batch_b[i - pad_b];
    if (da != db && da != 1 && db != 1) {
      return InvalidModel("input a has shape " + ShapeToString(a.shape) +
                          " and input b has shape " + ShapeToString(b.shape) +
                          " whose batch dimensions " + ShapeToString(batch_a) + " and " +
                          ShapeToString(batch_b) + " do not broadcast (" + std::to_string(da) +
                          " vs " + std::to_string(db) + ")");
    }
    shape[i] = da == 1 ? db : da;
  }
  if (ra >= 2) shape.push_back(a.shape[ra - 2]);  // M (absent for a promoted 1-D a)
  if (rb >= 2) shape.push_back(b.shape[rb - 1]);  // N (absent for a promoted 1-D b)
  return std::vector<TensorType>{{a.dtype, std::move(shape)}};
}

namespace {

// Gemm: Y = alpha * op(a) * op(b) + beta * c, op(a) [M, K], op(b) [K, N], c broadcast to
// [M, N].
Expected<std::vector<TensorType>> InferGemm(const InferContext& ctx) {
  SY_RETURN_IF_ERROR(RequireFlag(ctx.attrs, "trans_a"));
  SY_RETURN_IF_ERROR(RequireFlag(ctx.attrs, "trans_b"));
  const TensorType& a = ctx.input(0);
  const TensorType& b = ctx.input(1);
  SY_RETURN_IF_ERROR(RequireRank(a, "a", 2));
  SY_RETURN_IF_ERROR(RequireRank(b, "b", 2));
  const bool trans_a = ctx.attrs.GetInt("trans_a") == 1;
  const bool trans_b = ctx.attrs.GetInt("trans_b") == 1;
  const int64_t m = a.shape[trans_a ? 1 : 0];
  const int64_t ka_index = trans_a ? 0 : 1;
  const int64_t ka = a.shape[ka_index];
  const int64_t kb_index = trans_b ? 1 : 0;
  const int64_t kb = b.shape[kb_index];
  const int64_t n = b.shape[trans_b ? 0 : 1];
  if (ka != kb) {
    return InvalidModel("input b has shape " + ShapeToString(b.shape) + " but its " +
                        Dim(kb_index, kb) + " must equal input a's " + Dim(ka_index, ka) +
                        " (trans_a = " + std::to_string(trans_a ? 1 : 0) +
                        ", trans_b = " + std::to_string(trans_b ? 1 : 0) + ")");
  }
  const Shape out{m, n};
  if (ctx.num_inputs() == 3) {
    const TensorType& c = ctx.input(2);
    if (!BroadcastsTo(c.shape, out)) {
      return InvalidModel(
          "input c has shape " + ShapeToString(c.shape) +
          " which does not broadcast to the output shape [M, N] = " + ShapeToString(out));
    }
  }
  return std::vector<TensorType>{{a.dtype, out}};
}

// det: x [..., M, M] -> [...].
Expected<std::vector<TensorType>> InferDet(const InferContext& ctx) {
  const TensorType& x = ctx.input(0);
  SY_RETURN_IF_ERROR(RequireMinRank(x, "x", 2));
  const int64_t r = x.rank();
  if (x.shape[r - 1] != x.shape[r - 2]) {
    return InvalidModel("input x has shape " + ShapeToString(x.shape) +
                        " but its last two dimensions must be equal (square matrices)");
  }
  return std::vector<TensorType>{{x.dtype, Shape(x.shape.begin(), x.shape.end() - 2)}};
}

// quant_matmul: a [..., K] x w^T -> [..., N], where w [N, K] is held quantized in blocks of
// `block_size` along K: b [N, n_blocks, block_size * bits / 8] packs the codes (bits = 4:
// two per byte, the even k in the low nibble), scales [N, n_blocks] and the optional
// zero_points [N, n_blocks] (one code per byte; default 2^(bits - 1)) give
// w[n, k] = (code - zero_point) * scale of k's block. K need not fill the last block.
// accuracy_level (ONNX Runtime's MatMulNBits attribute) 4 lets a backend quantize a to int8
// per block first (docs/ops.md states the bound); other levels compute in a's precision
// or better.
Expected<std::vector<TensorType>> InferQuantMatmul(const InferContext& ctx) {
  const int64_t bits = ctx.attrs.GetInt("bits");
  const int64_t block_size = ctx.attrs.GetInt("block_size");
  if (bits != 4 && bits != 8) {
    return AttrError("bits", "is " + std::to_string(bits) + " but must be 4 or 8");
  }
  if (block_size < 16 || block_size > 256 || (block_size & (block_size - 1)) != 0) {
    return AttrError("block_size", "is " + std::to_string(block_size) +
                                       " but must be a power of two from 16 to 256");
  }
  const int64_t accuracy_level = ctx.attrs.GetInt("accuracy_level");
  if (accuracy_level < 0 || accuracy_level > 4) {
    return AttrError("accuracy_level", "is " + std::to_string(accuracy_level) +
                                           " but must be 0 to 4 (ONNX Runtime's levels: 4 lets a "
                                           "backend quantize a to int8 per block)");
  }
  const TensorType& a = ctx.input(0);
  const TensorType& b = ctx.input(1);
  const TensorType& scales = ctx.input(2);
  SY_RETURN_IF_ERROR(RequireMinRank(a, "a", 1));
  SY_RETURN_IF_ERROR(RequireRank(b, "b", 3));
  SY_RETURN_IF_ERROR(RequireRank(scales, "scales", 2));
  const int64_t k = a.shape.back();
  const int64_t n = b.shape[0];
  const int64_t n_blocks = (k + block_size - 1) / block_size;
  const int64_t block_bytes = block_size * bits / 8;
  if (b.shape[1] != n_blocks || b.shape[2] != block_bytes) {
    return InvalidModel("input b has shape " + ShapeToString(b.shape) + " but must be [N, " +
                        std::to_string(n_blocks) + ", " + std::to_string(block_bytes) +
                        "]: ceil(K / block_size) blocks of block_size * bits / 8 bytes for K = " +
                        std::to_string(k) + " (input a's last dimension), block_size " +
                        std::to_string(block_size) + " and bits " + std::to_string(bits));
  }
  const Shape per_block{n, n_blocks};
  if (scales.shape != per_block) {
    return InvalidModel("input scales has shape " + ShapeToString(scales.shape) +
                        " but must be [N, n_blocks] = " + ShapeToString(per_block));
  }
  if (ctx.num_inputs() > 3 && ctx.input(3).shape != per_block) {
    return InvalidModel("input zero_points has shape " + ShapeToString(ctx.input(3).shape) +
                        " but must be [N, n_blocks] = " + ShapeToString(per_block));
  }
  Shape out(a.shape.begin(), a.shape.end() - 1);
  out.push_back(n);
  return std::vector<TensorType>{{a.dtype, std::move(out)}};
}

// matmul_integer (ONNX MatMulInteger): matmul's shapes over u8/i8 a and b, whose zero
// points are each a scalar ([] or [1]) or, for a, one per row of a (1-D, a's second-to-last
// dim M) and, for b, one per column (1-D, b's last dim N) -> i32.
Expected<std::vector<TensorType>> InferMatmulInteger(const InferContext& ctx) {
  SY_ASSIGN_OR_RETURN(std::vector<TensorType> out, InferMatmul(ctx));
  const TensorType& a = ctx.input(0);
  const TensorType& b = ctx.input(1);
  const auto check = [&](int index, std::string_view name, int64_t per,
                         std::string_view what) -> Status {
    if (ctx.num_inputs() <= static_cast<size_t>(index)) return Status::Ok();
    const Shape& z = ctx.input(index).shape;
    if (z.empty() || (z.size() == 1 && (z[0] == 1 || z[0] == per))) return Status::Ok();
    return InvalidModel("input " + std::string(name) + " has shape " + ShapeToString(z) +
                        " but must be a scalar ([] or [1]) or 1-D of " + std::string(what) + " (" +
                        std::to_string(per) + ")");
  };
  SY_RETURN_IF_ERROR(check(2, "a_zero_point", a.rank() >= 2 ? a.shape[a.rank() - 2] : 1,
                           "a's rows, its second-to-last dimension"));
  SY_RETURN_IF_ERROR(check(3, "b_zero_point", b.rank() >= 2 ? b.shape[b.rank() - 1] : 1,
                           "b's columns, its last dimension"));
  out[0].dtype = DType::kI32;
  return out;
}

}  // namespace

void AddLinalgSchemas(std::vector<OpSchema>& out) {
  {
    OpSchema s;
    s.name = "matmul";
    s.onnx_name = "MatMul";
    s.type_vars = OneTypeVar(kFI);
    s.inputs = {{"a", 0}, {"b", 0}};
    s.infer = InferMatmul;
    s.cost = OpCost::kCompute;
    out.push_back(std::move(s));
  }
  {
    OpSchema s;
    s.name = "gemm";
    s.onnx_name = "Gemm";
    s.type_vars = OneTypeVar(kF);
    s.inputs = {{"a", 0}, {"b", 0}, {"c", 0, /*optional=*/true}};
    s.attrs = {Float("alpha", 1.0), Float("beta", 1.0), Flag("trans_a"), Flag("trans_b")};
    s.infer = InferGemm;
    s.cost = OpCost::kCompute;
    out.push_back(std::move(s));
  }
  {  // Extension (docs/ops.md).
    OpSchema s;
    s.name = "det";
    s.onnx_name = "Det";
    s.type_vars = OneTypeVar(kF);
    s.inputs = {{"x", 0}};
    s.infer = InferDet;
    out.push_back(std::move(s));
  }
  {  // Extension (docs/ops.md): ONNX MatMulInteger.
    OpSchema s;
    s.name = "matmul_integer";
    s.onnx_name = "MatMulInteger";
    s.type_vars = {{"Ta", DTypeSet{DType::kU8, DType::kI8}},
                   {"Tb", DTypeSet{DType::kU8, DType::kI8}}};
    s.inputs = {{"a", 0},
                {"b", 1},
                {"a_zero_point", 0, /*optional=*/true},
                {"b_zero_point", 1, /*optional=*/true}};
    s.infer = InferMatmulInteger;
    s.cost = OpCost::kCompute;
    out.push_back(std::move(s));
  }
  {  // Extension (docs/ops.md): ONNX Runtime's com.microsoft MatMulNBits.
    OpSchema s;
    s.name = "quant_matmul";
    s.type_vars = {{"T", kF}, {"Tq", DTypeSet{DType::kU8}}};
    s.inputs = {{"a", 0}, {"b", 1}, {"scales", 0}, {"zero_points", 1, /*optional=*/true}};
    s.attrs = {Int("bits", 4), Int("block_size", 32), Int("accuracy_level", 0)};
    s.infer = InferQuantMatmul;
    s.cost = OpCost::kCompute;
    out.push_back(std::move(s));
  }
}

}  // namespace sy::ops
