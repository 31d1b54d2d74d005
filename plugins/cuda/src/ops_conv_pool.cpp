// conv (1 to 3 spatial dims, strides, pads, dilations, group, bias), conv_transpose (the
// same plus output_padding), max_pool, avg_pool (ceil_mode through the output shape,
// count_include_pad, dilations) and global_avg_pool: kernels/conv_pool.cu and cuBLAS.
//
// conv: im2col of a chunk of batch items into scratch ([C * taps, out] per item), then
// per item one GEMM per group (strided-batched over the groups; with one group, over the
// chunk's items): y[n, g] = w[g] [M/g, C/g * taps] x cols[n, g]. A bias is written into
// y first and the GEMMs add to it (beta 1). Grouped convs with fewer than 8 channels per
// group in or out (depthwise) use a direct kernel instead: one tiny GEMM per group would
// cost more than it saves.
// conv_transpose: per item and group cols [M/g * taps, in] = w[g]^T x[n, g] (f32 columns
// for f16/bf16, so the products are rounded once, in col2im), then col2im gathers each
// output element's taps (deterministic, no atomics) and adds the bias.
// Semantics: plugins/cpu/src/ref/conv_pool_ref.cpp.
#include <algorithm>
#include <string>
#include <vector>

#include "../kernels/conv_pool.h"
#include "../kernels/reduction.h"
#include "cu_op.h"
#include "cublas_util.h"
#include "ops_util.h"

namespace sy::cuda {
namespace {

constexpr uint64_t kColumnBudget = uint64_t{256} << 20;  // scratch for a chunk of items

// The window meta of kernels/conv_pool.h for x [N, C, in...] and y [N, M, out...] with kernel
// dims `kernel`.
std::vector<int64_t> WindowMeta(const NodeInfo& node, const Shape& x, const Shape& y,
                                const std::vector<int64_t>& kernel) {
  const size_t s = x.size() - 2;
  std::vector<int64_t> meta(x.begin() + 2, x.end());
  meta.insert(meta.end(), y.begin() + 2, y.end());
  meta.insert(meta.end(), kernel.begin(), kernel.end());
  const std::vector<int64_t> strides = IntsOr(node.attrs, "strides", s, 1);
  const std::vector<int64_t> pads = IntsOr(node.attrs, "pads", 2 * s, 0);
  const std::vector<int64_t> dilations = IntsOr(node.attrs, "dilations", s, 1);
  meta.insert(meta.end(), strides.begin(), strides.end());
  meta.insert(meta.end(), pads.begin(), pads.end());
  meta.insert(meta.end(), dilations.begin(), dilations.end());
  return meta;
}

char* At(void* base, int64_t elements, size_t elem_bytes) {
  return static_cast<char*>(base) + elements * static_cast<int64_t>(elem_bytes);
}
const char* At(const void* base, int64_t elements, size_t elem_bytes) {
  return static_cast<const char*>(base) + elements * static_cast<int64_t>(elem_bytes);
}

bool SupportsConvLike(const NodeInfo& node, const DeviceCaps&, std::string& reason) {
  if (node.inputs.size() < 2 || node.outputs.size() != 1) {
    reason = node.op + " takes x, w, an optional bias and one output";
    return false;
  }
  const DType dt = node.inputs[0].dtype;
  if (!IsFloat(dt)) return DeclineDType(node, dt, reason, "float dtypes only");
  for (const TensorType& t : node.inputs) {
    if (t.dtype != dt) {
      reason = node.op + " needs x, w and bias of one dtype";
      return false;
    }
  }
  if (node.outputs[0].dtype != dt) {
    reason = node.op + " needs its output in x's dtype";
    return false;
  }
  const size_t rank = node.inputs[0].shape.size();
  if (rank < 3 || rank > 5 || node.inputs[1].shape.size() != rank) {
    reason = node.op + " on the CUDA plugin takes 1 to 3 spatial dims";
    return false;
  }
  if (node.attrs.GetInt("group", 1) < 1) {
    reason = node.op + ": group must be positive";
    return false;
  }
  return true;
}

// ---- conv ----------------------------------------------------------------------------------

class ConvOp : public CuOp {
 public:
  void Prepare(PrepareContext& ctx) override {
    const NodeInfo& node = ctx.node();
    const Shape& x = node.inputs[0].shape;
    const Shape& w = node.inputs[1].shape;
    const Shape& y = node.outputs[0].shape;
    dtype_ = node.inputs[0].dtype;
    es_ = DTypeSize(dtype_);
    has_bias_ = node.inputs.size() > 2;
    spatial_ = static_cast<int>(x.size()) - 2;
    batch_ = x[0];
    channels_ = x[1];
    out_channels_ = y[1];
    group_ = node.attrs.GetInt("group", 1);
    cpg_ = channels_ / group_;
    opg_ = out_channels_ / group_;
    in_count_ = Product(x, 2, x.size());
    out_count_ = Product(y, 2, y.size());
    taps_ = Product(w, 2, w.size());
    k_ = cpg_ * taps_;
    out_bytes_ = Bytes(node.outputs[0]);
    if (out_bytes_ == 0 || k_ == 0) return;  // nothing, or only the bias
    const std::vector<int64_t> kernel(w.begin() + 2, w.end());
    meta_ = ctx.Upload(WindowMeta(node, x, y, kernel));
    direct_ = group_ > 1 && (cpg_ < 8 || opg_ < 8);
    if (direct_) return;
    handle_.Prepare(ctx);
    const uint64_t per_item =
        static_cast<uint64_t>(channels_) * static_cast<uint64_t>(taps_ * out_count_) * es_;
    chunk_ = std::clamp<int64_t>(
        static_cast<int64_t>(kColumnBudget / std::max<uint64_t>(per_item, 1)), 1, batch_);
    if (group_ > 1) chunk_ = std::min<int64_t>(chunk_, 1);
    cols_ = ctx.Scratch(per_item * static_cast<uint64_t>(chunk_));
  }

  void Enqueue(const EnqueueContext& ctx) override {
    if (out_bytes_ == 0) return;
    void* y = ctx.outputs[0].data;
    const void* x = ctx.inputs[0].data;
    const void* w = ctx.inputs[1].data;
    const void* bias = has_bias_ ? ctx.inputs[2].data : nullptr;
    if (k_ == 0 || (!direct_ && has_bias_)) {
      if (has_bias_) {
        CheckLaunch(
            kern::LaunchBiasFill(dtype_, bias, y, batch_, out_channels_, out_count_, ctx.stream),
            "conv bias");
      } else {
        CheckCuda(cudaMemsetAsync(y, 0, out_bytes_, ctx.stream), "cudaMemsetAsync (conv)");
      }
      if (k_ == 0) return;
    }
    if (direct_) {
      CheckLaunch(
          kern::LaunchConvDirect(dtype_, x, w, bias, y, batch_, channels_, out_channels_, group_,
                                 in_count_, out_count_, taps_, spatial_, meta_, ctx.stream),
          "conv (direct)");
      return;
    }
    handle_.Bind(ctx.stream);
    const double beta = has_bias_ ? 1.0 : 0.0;
    for (int64_t n0 = 0; n0 < batch_; n0 += chunk_) {
      const int64_t items = std::min<int64_t>(chunk_, batch_ - n0);
      CheckLaunch(kern::LaunchIm2Col(static_cast<int>(es_), At(x, n0 * channels_ * in_count_, es_),
                                     cols_, items, channels_, in_count_, taps_, out_count_,
                                     spatial_, meta_, ctx.stream),
                  "im2col");
      RowMajorGemm g;
      g.ab_dtype = dtype_;
      g.y_dtype = dtype_;
      g.k = k_;
      g.n = out_count_;
      if (group_ == 1) {
        g.m = out_channels_;
        g.batch = items;
        g.stride_a = 0;
        g.stride_b = k_ * out_count_;
        g.stride_y = out_channels_ * out_count_;
        g.Run(handle_, w, cols_, At(y, n0 * out_channels_ * out_count_, es_), 1.0, beta);
      } else {
        g.m = opg_;
        g.batch = group_;
        g.stride_a = opg_ * k_;
        g.stride_b = k_ * out_count_;
        g.stride_y = opg_ * out_count_;
        for (int64_t item = 0; item < items; ++item) {
          g.Run(handle_, w, At(cols_, item * channels_ * taps_ * out_count_, es_),
                At(y, (n0 + item) * out_channels_ * out_count_, es_), 1.0, beta);
        }
      }
    }
  }

 private:
  DType dtype_ = DType::kF32;
  size_t es_ = 4;
  bool has_bias_ = false, direct_ = false;
  int spatial_ = 2;
  int64_t batch_ = 0, channels_ = 0, out_channels_ = 0, group_ = 1, cpg_ = 0, opg_ = 0;
  int64_t in_count_ = 0, out_count_ = 0, taps_ = 0, k_ = 0, chunk_ = 1;
  uint64_t out_bytes_ = 0;
  const int64_t* meta_ = nullptr;
  void* cols_ = nullptr;
  CublasHandle handle_;
};

std::unique_ptr<CuOp> CreateConv(const NodeInfo&) { return std::make_unique<ConvOp>(); }

// ---- conv_transpose ------------------------------------------------------------------------

class ConvTransposeOp : public CuOp {
 public:
  void Prepare(PrepareContext& ctx) override {
    const NodeInfo& node = ctx.node();
    const Shape& x = node.inputs[0].shape;
    const Shape& w = node.inputs[1].shape;
    const Shape& y = node.outputs[0].shape;
    dtype_ = node.inputs[0].dtype;
    es_ = DTypeSize(dtype_);
    col_dtype_ = dtype_ == DType::kF64 ? DType::kF64 : DType::kF32;
    col_es_ = DTypeSize(col_dtype_);
    has_bias_ = node.inputs.size() > 2;
    spatial_ = static_cast<int>(x.size()) - 2;
    batch_ = x[0];
    channels_ = x[1];
    out_channels_ = y[1];
    group_ = node.attrs.GetInt("group", 1);
    cpg_ = channels_ / group_;
    opg_ = w[1];
    in_count_ = Product(x, 2, x.size());
    out_count_ = Product(y, 2, y.size());
    taps_ = Product(w, 2, w.size());
    out_bytes_ = Bytes(node.outputs[0]);
    if (out_bytes_ == 0 || cpg_ * in_count_ * taps_ == 0) return;  // nothing, or only the bias
    const std::vector<int64_t> kernel(w.begin() + 2, w.end());
    meta_ = ctx.Upload(WindowMeta(node, x, y, kernel));
    handle_.Prepare(ctx);
    const uint64_t per_item =
        static_cast<uint64_t>(out_channels_) * static_cast<uint64_t>(taps_ * in_count_) * col_es_;
    chunk_ = std::clamp<int64_t>(
        static_cast<int64_t>(kColumnBudget / std::max<uint64_t>(per_item, 1)), 1, batch_);
    if (group_ > 1) chunk_ = 1;
    cols_ = ctx.Scratch(per_item * static_cast<uint64_t>(chunk_));
  }

  void Enqueue(const EnqueueContext& ctx) override {
    if (out_bytes_ == 0) return;
    void* y = ctx.outputs[0].data;
    const void* x = ctx.inputs[0].data;
    const void* w = ctx.inputs[1].data;
    const void* bias = has_bias_ ? ctx.inputs[2].data : nullptr;
    if (cpg_ * in_count_ * taps_ == 0) {  // no products: the bias (or zeros)
      if (has_bias_) {
        CheckLaunch(
            kern::LaunchBiasFill(dtype_, bias, y, batch_, out_channels_, out_count_, ctx.stream),
            "conv_transpose bias");
      } else {
        CheckCuda(cudaMemsetAsync(y, 0, out_bytes_, ctx.stream),
                  "cudaMemsetAsync (conv_transpose)");
      }
      return;
    }
    handle_.Bind(ctx.stream);
    for (int64_t n0 = 0; n0 < batch_; n0 += chunk_) {
      const int64_t items = std::min<int64_t>(chunk_, batch_ - n0);
      RowMajorGemm g;
      g.trans_a = true;  // w[g] is stored [C/g, M/g * taps]
      g.ab_dtype = dtype_;
      g.y_dtype = col_dtype_;
      g.m = opg_ * taps_;
      g.n = in_count_;
      g.k = cpg_;
      if (group_ == 1) {
        g.batch = items;
        g.stride_a = 0;
        g.stride_b = channels_ * in_count_;
        g.stride_y = out_channels_ * taps_ * in_count_;
        g.Run(handle_, w, At(x, n0 * channels_ * in_count_, es_), cols_, 1.0, 0.0);
      } else {
        g.batch = group_;
        g.stride_a = cpg_ * opg_ * taps_;
        g.stride_b = cpg_ * in_count_;
        g.stride_y = opg_ * taps_ * in_count_;
        for (int64_t item = 0; item < items; ++item) {
          g.Run(handle_, w, At(x, (n0 + item) * channels_ * in_count_, es_),
                At(cols_, item * out_channels_ * taps_ * in_count_, col_es_), 1.0, 0.0);
        }
      }
      CheckLaunch(kern::LaunchCol2Im(
                      dtype_, cols_, bias, At(y, n0 * out_channels_ * out_count_, es_), items,
                      out_channels_, in_count_, taps_, out_count_, spatial_, meta_, ctx.stream),
                  "col2im");
    }
  }

 private:
  DType dtype_ = DType::kF32, col_dtype_ = DType::kF32;
  size_t es_ = 4, col_es_ = 4;
  bool has_bias_ = false;
  int spatial_ = 2;
  int64_t batch_ = 0, channels_ = 0, out_channels_ = 0, group_ = 1, cpg_ = 0, opg_ = 0;
  int64_t in_count_ = 0, out_count_ = 0, taps_ = 0, chunk_ = 1;
  uint64_t out_bytes_ = 0;
  const int64_t* meta_ = nullptr;
  void* cols_ = nullptr;
  CublasHandle handle_;
};

std::unique_ptr<CuOp> CreateConvTranspose(const NodeInfo&) {
  return std::make_unique<ConvTransposeOp>();
}

// ---- max_pool, avg_pool --------------------------------------------------------------------

class PoolOp : public CuOp {
 public:
  void Prepare(PrepareContext& ctx) override {
    const NodeInfo& node = ctx.node();
    const Shape& x = node.inputs[0].shape;
    const Shape& y = node.outputs[0].shape;
    dtype_ = node.inputs[0].dtype;
    is_max_ = node.op == "max_pool";
    count_include_pad_ = node.attrs.GetInt("count_include_pad", 0) != 0;
    spatial_ = static_cast<int>(x.size()) - 2;
    planes_ = x[0] * x[1];
    in_count_ = Product(x, 2, x.size());
    out_count_ = Product(y, 2, y.size());
    if (planes_ * out_count_ == 0) return;
    const std::vector<int64_t> kernel =
        IntsOr(node.attrs, "kernel_shape", static_cast<size_t>(spatial_), 1);
    meta_ = ctx.Upload(WindowMeta(node, x, y, kernel));
  }
  void Enqueue(const EnqueueContext& ctx) override {
    if (planes_ * out_count_ == 0) return;
    CheckLaunch(kern::LaunchPool(dtype_, is_max_, count_include_pad_, ctx.inputs[0].data,
                                 ctx.outputs[0].data, planes_, in_count_, out_count_, spatial_,
                                 meta_, ctx.stream),
                "pool");
  }

 private:
  DType dtype_ = DType::kF32;
  bool is_max_ = true, count_include_pad_ = false;
  int spatial_ = 2;
  int64_t planes_ = 0, in_count_ = 0, out_count_ = 0;
  const int64_t* meta_ = nullptr;
};

std::unique_ptr<CuOp> CreatePool(const NodeInfo&) { return std::make_unique<PoolOp>(); }

bool SupportsPool(const NodeInfo& node, const DeviceCaps&, std::string& reason) {
  if (node.inputs.size() != 1 || node.outputs.size() != 1) {
    reason = node.op + " takes one input and one output";
    return false;
  }
  const DType dt = node.inputs[0].dtype;
  if (!IsFloat(dt)) return DeclineDType(node, dt, reason, "float dtypes only");
  if (node.outputs[0].dtype != dt) {
    reason = node.op + " needs its output in x's dtype";
    return false;
  }
  const size_t rank = node.inputs[0].shape.size();
  if (rank < 3 || rank - 2 > static_cast<size_t>(kern::kMaxSpatial)) {
    reason = node.op + " on the CUDA plugin takes 1 to " + std::to_string(kern::kMaxSpatial) +
             " spatial dims";
    return false;
  }
  return true;
}

// ---- global_avg_pool: the mean over every spatial dim (kernels/reduction.cu) -----------------

class GlobalAvgPoolOp : public CuOp {
 public:
  void Prepare(PrepareContext& ctx) override {
    const NodeInfo& node = ctx.node();
    const Shape& s = node.inputs[0].shape;
    std::vector<bool> reduced(s.size(), false);
    for (size_t d = 2; d < s.size(); ++d) reduced[d] = true;
    plan_ = kern::PlanReduce(s, reduced);
    dtype_ = node.inputs[0].dtype;
    if (plan_.n_out == 0) return;
    meta_ = ctx.Upload(plan_.meta);
  }
  void Enqueue(const EnqueueContext& ctx) override {
    if (plan_.n_out == 0) return;
    CheckLaunch(kern::LaunchReduce(kern::ReduceKind::kMean, dtype_, ctx.inputs[0].data,
                                   ctx.outputs[0].data, plan_, meta_, ctx.stream),
                "global_avg_pool");
  }

 private:
  kern::ReducePlan plan_;
  DType dtype_ = DType::kF32;
  const int64_t* meta_ = nullptr;
};

std::unique_ptr<CuOp> CreateGlobalAvgPool(const NodeInfo&) {
  return std::make_unique<GlobalAvgPoolOp>();
}

bool SupportsGlobalAvgPool(const NodeInfo& node, const DeviceCaps&, std::string& reason) {
  if (node.inputs.size() != 1 || node.outputs.size() != 1) {
    reason = "global_avg_pool takes one input and one output";
    return false;
  }
  const DType dt = node.inputs[0].dtype;
  if (!IsFloat(dt)) return DeclineDType(node, dt, reason, "float dtypes only");
  if (node.outputs[0].dtype != dt || node.inputs[0].shape.size() < 2) {
    reason = "global_avg_pool needs x of rank >= 2 and the output in x's dtype";
    return false;
  }
  return true;
}

}  // namespace

void RegisterConvPoolOps(CuOpRegistry& registry) {
  registry.Add("conv", SupportsConvLike, CreateConv);
  registry.Add("conv_transpose", SupportsConvLike, CreateConvTranspose);
  registry.Add("max_pool", SupportsPool, CreatePool);
  registry.Add("avg_pool", SupportsPool, CreatePool);
  registry.Add("global_avg_pool", SupportsGlobalAvgPool, CreateGlobalAvgPool);
}

}  // namespace sy::cuda
