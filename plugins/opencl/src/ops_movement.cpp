// The movement family: reshape (a copy, or nothing when the host bound the same bytes),
// transpose and expand (kernels/movement.cl sy_strided_copy), concat (sy_copy_2d per
// input); slice, split, pad, tile, depth_to_space, space_to_depth (kernels/movement.cl
// sy_index_map: each output element maps to one input coordinate per dim, or to pad's
// fill), trilu, and range (computed on the host at prepare, like the reference, and copied
// in). Semantics: plugins/cpu/src/ref/movement_ref.cpp. Bit-exact on any dtype: kernels
// move elements as unsigned integers of the element's size, so f64 needs no cl_khr_fp64.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "cl_op.h"
#include "element_bits.h"
#include "kernel_sources.h"
#include "movement_util.h"
#include "switchyard/half.h"

namespace sy::opencl {
namespace {

using plugin::FloatBits;
using plugin::IntBits;
using plugin::SaturatingToInt;
using plugin::ValueBits;

uint64_t Bytes(const TensorType& t) {
  return static_cast<uint64_t>(ElementCount(t.shape)) * DTypeSize(t.dtype);
}

// ---- reshape ------------------------------------------------------------------------------

class CopyOp : public ClOp {
 public:
  void Prepare(PrepareContext&) override {}
  void Enqueue(const EnqueueContext& ctx) override {
    const ClTensor& in = ctx.inputs[0];
    const ClTensor& out = ctx.outputs[0];
    const uint64_t bytes = Bytes(*out.type);
    if (bytes == 0 || (in.mem == out.mem && in.offset == out.offset)) return;
    CheckCl(clEnqueueCopyBuffer(ctx.queue, in.mem, out.mem, in.offset, out.offset, bytes, 0,
                                nullptr, nullptr),
            "clEnqueueCopyBuffer");
  }
};

// Every dtype (bit copies: f64 needs no cl_khr_fp64); arity and shapes were validated
// by the host and are checked again at prepare.
bool SupportsAny(const NodeInfo&, const DeviceCaps&, std::string&) { return true; }

std::unique_ptr<ClOp> CreateCopy(const NodeInfo&) { return std::make_unique<CopyOp>(); }

// ---- transpose and expand: y[i] = x[sum index_d(i) * stride_d] --------------------------------

class StridedCopyOp : public ClOp {
 public:
  void Prepare(PrepareContext& ctx) override {
    const NodeInfo& node = ctx.node();
    const Shape& in = node.inputs[0].shape;
    const Shape& out = node.outputs[0].shape;
    std::vector<int64_t> meta;
    if (node.op == "transpose") {
      std::vector<int64_t> perm = node.attrs.GetInts("perm");
      if (perm.empty()) {
        for (size_t d = in.size(); d-- > 0;) perm.push_back(static_cast<int64_t>(d));
      }
      std::vector<int64_t> strides(in.size(), 1);
      for (size_t d = in.size(); d-- > 1;) strides[d - 1] = strides[d] * in[d];
      rank_ = static_cast<int>(out.size());
      meta.assign(out.begin(), out.end());
      for (int64_t p : perm) meta.push_back(strides[static_cast<size_t>(p)]);
      if (rank_ == 0) {
        rank_ = 1;
        meta = {1, 0};
      }
    } else {  // expand
      const Shape inputs[] = {in};
      rank_ = CollapseBroadcast(out, inputs, meta);
    }
    meta.push_back(0);  // base offset
    meta_ = ctx.Upload(meta);
    kernel_ = ctx.Kernel("movement", RawDefine(node.outputs[0].dtype), false, "sy_strided_copy");
  }

  void Enqueue(const EnqueueContext& ctx) override {
    const uint64_t n = static_cast<uint64_t>(ctx.outputs[0].count());
    if (n == 0) return;
    KernelArgs(kernel_.get())
        .Tensor(ctx.inputs[0])
        .Tensor(ctx.outputs[0])
        .Add(static_cast<cl_ulong>(n))
        .Add(static_cast<cl_int>(rank_))
        .Add(meta_.get());
    Launch1D(ctx.queue, kernel_.get(), n);
  }

 private:
  int rank_ = 1;
  UniqueKernel kernel_;
  UniqueMem meta_;
};

std::unique_ptr<ClOp> CreateStridedCopy(const NodeInfo&) {
  return std::make_unique<StridedCopyOp>();
}

// ---- concat --------------------------------------------------------------------------------

class ConcatOp : public ClOp {
 public:
  void Prepare(PrepareContext& ctx) override {
    const NodeInfo& node = ctx.node();
    const Shape& out = node.outputs[0].shape;
    int64_t axis = node.attrs.GetInt("axis", 0);
    if (axis < 0) axis += static_cast<int64_t>(out.size());
    const size_t ax = static_cast<size_t>(axis);
    y_cols_ = Product(out, ax, out.size());
    int64_t col0 = 0;
    for (const TensorType& in : node.inputs) {
      const int64_t cols = Product(in.shape, ax, in.shape.size());
      parts_.push_back({cols, col0});
      col0 += cols;
    }
    kernel_ = ctx.Kernel("movement", RawDefine(node.outputs[0].dtype), false, "sy_copy_2d");
  }

  void Enqueue(const EnqueueContext& ctx) override {
    for (size_t k = 0; k < parts_.size(); ++k) {
      const uint64_t n = static_cast<uint64_t>(ctx.inputs[k].count());
      if (n == 0) continue;
      KernelArgs(kernel_.get())
          .Tensor(ctx.inputs[k])
          .Tensor(ctx.outputs[0])
          .Add(static_cast<cl_ulong>(n))
          .Add(static_cast<cl_ulong>(parts_[k].cols))
          .Add(static_cast<cl_ulong>(y_cols_))
          .Add(static_cast<cl_ulong>(parts_[k].col0));
      Launch1D(ctx.queue, kernel_.get(), n);
    }
  }

 private:
  struct Part {
    int64_t cols, col0;
  };
  std::vector<Part> parts_;
  int64_t y_cols_ = 0;
  UniqueKernel kernel_;
};

std::unique_ptr<ClOp> CreateConcat(const NodeInfo&) { return std::make_unique<ConcatOp>(); }

// ---- sy_index_map: slice, split, pad, tile, depth_to_space, space_to_depth ---------------

// One launch: y (output `out`) of dims `ydims` reads x with per-dim xdims, strides, steps
// and subs.
struct MapLaunch {
  size_t out = 0;
  int rank = 1;
  UniqueMem meta;
};

struct MapDims {
  std::vector<int64_t> ydims, xdims, strides, steps, subs;
  void Add(int64_t ydim, int64_t xdim, int64_t stride, int64_t step, int64_t sub) {
    ydims.push_back(ydim);
    xdims.push_back(xdim);
    strides.push_back(stride);
    steps.push_back(step);
    subs.push_back(sub);
  }
  // Plain row-major copy of x over `shape`, with every dim as its own.
  static MapDims Identity(const Shape& shape) {
    MapDims m;
    const std::vector<int64_t> strides = RowMajorStrides(shape);
    for (size_t d = 0; d < shape.size(); ++d) m.Add(shape[d], shape[d], strides[d], 1, 0);
    return m;
  }
  std::vector<int64_t> Meta() const {
    std::vector<int64_t> meta;
    if (ydims.empty()) return {1, 1, 0, 0, 0};
    for (const auto* v : {&ydims, &xdims, &strides, &steps, &subs}) {
      meta.insert(meta.end(), v->begin(), v->end());
    }
    return meta;
  }
  int Rank() const { return ydims.empty() ? 1 : static_cast<int>(ydims.size()); }
};

class IndexMapOp : public ClOp {
 public:
  void Prepare(PrepareContext& ctx) override {
    const NodeInfo& node = ctx.node();
    const Shape& in = node.inputs[0].shape;
    const std::string& op = node.op;
    if (op == "slice") {
      MapDims m = MapDims::Identity(in);
      m.ydims = node.outputs[0].shape;
      // Canonical (docs/plugin-abi.md): the host resolved the bounds; per axis, the
      // first index read and the step.
      const plugin::SliceWindow window =
          plugin::CanonicalSlice(node.attrs, in, node.outputs[0].shape);
      for (size_t a = 0; a < in.size(); ++a) {
        m.steps[a] = window.steps[a];
        m.subs[a] = -window.starts[a];
      }
      Add(ctx, 0, m);
    } else if (op == "split") {
      const size_t a = static_cast<size_t>(NormAxis(node.attrs.GetInt("axis"), in.size()));
      int64_t first = 0;
      for (size_t k = 0; k < node.outputs.size(); ++k) {
        MapDims m = MapDims::Identity(in);
        m.ydims = node.outputs[k].shape;
        m.subs[a] = -first;
        first += node.outputs[k].shape[a];
        Add(ctx, k, m);
      }
    } else if (op == "pad") {
      MapDims m = MapDims::Identity(in);
      m.ydims = node.outputs[0].shape;
      const std::vector<int64_t> pads = node.attrs.GetInts("pads");
      for (size_t d = 0; d < in.size(); ++d) m.subs[d] = pads[d];
      const std::string mode = node.attrs.GetString("mode", "constant");
      mode_ = mode == "edge" ? 2 : mode == "reflect" ? 3 : 1;
      fill_ = ValueBits(node.inputs[0].dtype, node.attrs.GetFloat("value"));
      Add(ctx, 0, m);
    } else if (op == "tile") {
      MapDims m = MapDims::Identity(in);
      m.ydims = node.outputs[0].shape;
      mode_ = 4;
      Add(ctx, 0, m);
    } else {  // depth_to_space, space_to_depth: 6-D permutations of [N, C, H, W]
      const int64_t b = node.attrs.GetInt("blocksize", 1);
      const Shape& out = node.outputs[0].shape;
      MapDims m;
      if (op == "depth_to_space") {
        const int64_t n = out[0], oc = out[1], ih = in[2], iw = in[3];
        const bool crd = node.attrs.GetString("mode", "DCR") == "CRD";
        // x as [N, C', H, W] with channel = crd ? c*b*b + i*b + j : (i*b + j)*oc + c;
        // y as [N, oc, H, b(i), W, b(j)].
        const int64_t hw = ih * iw;
        const int64_t sc = crd ? b * b * hw : hw;
        const int64_t si = crd ? b * hw : b * oc * hw;
        const int64_t sj = crd ? hw : oc * hw;
        m.Add(n, n, in[1] * hw, 1, 0);
        m.Add(oc, oc, sc, 1, 0);
        m.Add(ih, ih, iw, 1, 0);
        m.Add(b, b, si, 1, 0);
        m.Add(iw, iw, 1, 1, 0);
        m.Add(b, b, sj, 1, 0);
      } else {
        const int64_t n = out[0], ic = in[1], ih = in[2], iw = in[3], oh = out[2], ow = out[3];
        // y as [N, b(i), b(j), C, oh, ow]; x[n, c, h*b + i, w*b + j].
        m.Add(n, n, ic * ih * iw, 1, 0);
        m.Add(b, b, iw, 1, 0);
        m.Add(b, b, 1, 1, 0);
        m.Add(ic, ic, ih * iw, 1, 0);
        m.Add(oh, oh, b * iw, 1, 0);
        m.Add(ow, ow, b, 1, 0);
      }
      Add(ctx, 0, m);
    }
    kernel_ = ctx.Kernel("movement", RawDefine(node.inputs[0].dtype), false, "sy_index_map");
  }

  void Enqueue(const EnqueueContext& ctx) override {
    for (const MapLaunch& l : launches_) {
      const uint64_t n = static_cast<uint64_t>(ctx.outputs[l.out].count());
      if (n == 0) continue;
      KernelArgs(kernel_.get())
          .Tensor(ctx.inputs[0])
          .Tensor(ctx.outputs[l.out])
          .Add(static_cast<cl_ulong>(n))
          .Add(static_cast<cl_int>(l.rank))
          .Add(l.meta.get())
          .Add(static_cast<cl_int>(mode_))
          .Add(static_cast<cl_ulong>(fill_));
      Launch1D(ctx.queue, kernel_.get(), n);
    }
  }

 private:
  void Add(PrepareContext& ctx, size_t out, const MapDims& m) {
    MapLaunch l;
    l.out = out;
    l.rank = m.Rank();
    l.meta = ctx.Upload(m.Meta());
    launches_.push_back(std::move(l));
  }
  std::vector<MapLaunch> launches_;
  int mode_ = 0;
  uint64_t fill_ = 0;
  UniqueKernel kernel_;
};

std::unique_ptr<ClOp> CreateIndexMap(const NodeInfo&) { return std::make_unique<IndexMapOp>(); }

// ---- trilu ----------------------------------------------------------------------------------

class TriluOp : public ClOp {
 public:
  void Prepare(PrepareContext& ctx) override {
    const NodeInfo& node = ctx.node();
    const Shape& s = node.inputs[0].shape;
    rows_ = s[s.size() - 2];
    cols_ = s[s.size() - 1];
    k_ = node.attrs.GetInt("k", 0);
    upper_ = node.attrs.GetInt("upper", 1) == 1 ? 1 : 0;
    kernel_ = ctx.Kernel("movement", RawDefine(node.inputs[0].dtype), false, "sy_trilu");
  }
  void Enqueue(const EnqueueContext& ctx) override {
    const uint64_t n = static_cast<uint64_t>(ctx.outputs[0].count());
    if (n == 0) return;
    KernelArgs(kernel_.get())
        .Tensor(ctx.inputs[0])
        .Tensor(ctx.outputs[0])
        .Add(static_cast<cl_ulong>(n))
        .Add(static_cast<cl_ulong>(rows_))
        .Add(static_cast<cl_ulong>(cols_))
        .Add(static_cast<cl_long>(k_))
        .Add(static_cast<cl_int>(upper_));
    Launch1D(ctx.queue, kernel_.get(), n);
  }

 private:
  int64_t rows_ = 1, cols_ = 1, k_ = 0;
  int upper_ = 1;
  UniqueKernel kernel_;
};

std::unique_ptr<ClOp> CreateTrilu(const NodeInfo&) { return std::make_unique<TriluOp>(); }

// ---- range ----------------------------------------------------------------------------------

// No inputs: the values are computed at prepare exactly as the reference does and copied
// into the output on every execute.
class RangeOp : public ClOp {
 public:
  void Prepare(PrepareContext& ctx) override {
    const NodeInfo& node = ctx.node();
    const DType dt = node.outputs[0].dtype;
    const int64_t n = ElementCount(node.outputs[0].shape);
    const size_t es = DTypeSize(dt);
    bytes_ = static_cast<uint64_t>(n) * es;
    std::vector<int64_t> words((bytes_ + 7) / 8, 0);
    auto* data = reinterpret_cast<unsigned char*>(words.data());
    const double start = node.attrs.GetFloat("start");
    const double delta = node.attrs.GetFloat("delta");
    const auto s = static_cast<uint64_t>(SaturatingToInt(start));
    const auto d = static_cast<uint64_t>(SaturatingToInt(delta));
    for (int64_t i = 0; i < n; ++i) {
      const uint64_t bits =
          IsFloat(dt) ? FloatBits(dt, start + static_cast<double>(i) * delta)
                      : IntBits(dt, static_cast<int64_t>(s + static_cast<uint64_t>(i) * d));
      std::memcpy(data + static_cast<size_t>(i) * es, &bits, es);  // little-endian host
    }
    values_ = ctx.Upload(words);
  }
  void Enqueue(const EnqueueContext& ctx) override {
    const ClTensor& out = ctx.outputs[0];
    if (bytes_ == 0) return;
    CheckCl(clEnqueueCopyBuffer(ctx.queue, values_.get(), out.mem, 0, out.offset, bytes_, 0,
                                nullptr, nullptr),
            "clEnqueueCopyBuffer");
  }

 private:
  uint64_t bytes_ = 0;
  UniqueMem values_;
};

std::unique_ptr<ClOp> CreateRange(const NodeInfo&) { return std::make_unique<RangeOp>(); }

}  // namespace

void RegisterMovementOps(ClOpRegistry& registry) {
  registry.Add("reshape", SupportsAny, CreateCopy);
  registry.Add("bitcast", SupportsAny, CreateCopy);  // the same bytes, another dtype
  registry.Add("transpose", SupportsAny, CreateStridedCopy);
  registry.Add("expand", SupportsAny, CreateStridedCopy);
  registry.Add("concat", SupportsAny, CreateConcat);
  registry.Add("slice", SupportsAny, CreateIndexMap);
  registry.Add("split", SupportsAny, CreateIndexMap);
  registry.Add("pad", SupportsAny, CreateIndexMap);
  registry.Add("tile", SupportsAny, CreateIndexMap);
  registry.Add("depth_to_space", SupportsAny, CreateIndexMap);
  registry.Add("space_to_depth", SupportsAny, CreateIndexMap);
  registry.Add("trilu", SupportsAny, CreateTrilu);
  registry.Add("range", SupportsAny, CreateRange);
}

}  // namespace sy::opencl
