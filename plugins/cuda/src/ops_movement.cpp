// Data movement: reshape (cudaMemcpyAsync, or nothing when the host bound the same
// bytes), transpose and expand (a strided copy), concat and split (2-D block copies),
// slice, pad (constant, edge, reflect; negative pads crop), tile, depth_to_space (DCR,
// CRD), space_to_depth (one index-map kernel: each output element reads one input
// coordinate per dim, or pad's fill), trilu, and range (computed at prepare exactly as the
// reference does and copied in). kernels/movement.cu. Bit-exact on every dtype: elements
// move as unsigned integers of their size. Semantics: plugins/cpu/src/ref/movement_ref.cpp.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "../kernels/movement.h"
#include "cu_op.h"
#include "element_bits.h"
#include "ops_util.h"
#include "switchyard/half.h"

namespace sy::cuda {
namespace {

using plugin::FloatBits;
using plugin::IntBits;
using plugin::SaturatingToInt;
using plugin::ValueBits;

int ElemBytes(DType dtype) { return static_cast<int>(DTypeSize(dtype)); }

bool SupportsAny(const NodeInfo& node, const DeviceCaps&, std::string& reason) {
  if (node.inputs.empty() && node.op != "range") {
    reason = node.op + " takes an input";
    return false;
  }
  if (node.outputs.empty()) {
    reason = node.op + " has no output";
    return false;
  }
  return true;
}

// ---- reshape --------------------------------------------------------------------------------

class ReshapeOp : public CuOp {
 public:
  void Prepare(PrepareContext& ctx) override { bytes_ = Bytes(ctx.node().outputs[0]); }
  void Enqueue(const EnqueueContext& ctx) override {
    const void* src = ctx.inputs[0].data;
    void* dst = ctx.outputs[0].data;
    if (bytes_ == 0 || src == dst) return;
    CheckCuda(cudaMemcpyAsync(dst, src, bytes_, cudaMemcpyDeviceToDevice, ctx.stream),
              "cudaMemcpyAsync (reshape)");
  }

 private:
  uint64_t bytes_ = 0;
};

std::unique_ptr<CuOp> CreateReshape(const NodeInfo&) { return std::make_unique<ReshapeOp>(); }

// ---- transpose, expand: y[i] = x[sum index_d(i) * stride_d] ----------------------------------

// Drops dims of size 1 and merges neighbours that are contiguous in x; at least one dim.
void CollapseStrided(std::vector<int64_t>& dims, std::vector<int64_t>& strides) {
  std::vector<int64_t> d2, s2;
  for (size_t d = 0; d < dims.size(); ++d) {
    if (dims[d] == 1) continue;
    if (!d2.empty() && s2.back() == strides[d] * dims[d]) {
      d2.back() *= dims[d];
      s2.back() = strides[d];
    } else {
      d2.push_back(dims[d]);
      s2.push_back(strides[d]);
    }
  }
  if (d2.empty()) {
    d2.push_back(1);
    s2.push_back(0);
  }
  dims = std::move(d2);
  strides = std::move(s2);
}

class StridedCopyOp : public CuOp {
 public:
  void Prepare(PrepareContext& ctx) override {
    const NodeInfo& node = ctx.node();
    const Shape& in = node.inputs[0].shape;
    const Shape& out = node.outputs[0].shape;
    elem_ = ElemBytes(node.outputs[0].dtype);
    count_ = ElementCount(out);
    if (count_ == 0) return;
    std::vector<int64_t> meta;
    if (node.op == "transpose") {
      std::vector<int64_t> perm = node.attrs.GetInts("perm");
      if (perm.empty()) {
        for (size_t d = in.size(); d-- > 0;) perm.push_back(static_cast<int64_t>(d));
      }
      const std::vector<int64_t> in_strides = RowMajorStrides(in);
      std::vector<int64_t> dims(out.begin(), out.end()), strides;
      for (int64_t p : perm) strides.push_back(in_strides[static_cast<size_t>(p)]);
      CollapseStrided(dims, strides);
      rank_ = static_cast<int>(dims.size());
      meta = dims;
      meta.insert(meta.end(), strides.begin(), strides.end());
    } else {  // expand
      const Shape inputs[] = {in};
      rank_ = CollapseBroadcast(out, inputs, meta);
    }
    meta.push_back(0);  // base offset
    meta_ = ctx.Upload(meta);
  }
  void Enqueue(const EnqueueContext& ctx) override {
    if (count_ == 0) return;
    CheckLaunch(kern::LaunchStridedCopy(elem_, ctx.inputs[0].data, ctx.outputs[0].data, count_,
                                        rank_, meta_, ctx.stream),
                "strided copy");
  }

 private:
  int elem_ = 4, rank_ = 1;
  int64_t count_ = 0;
  const int64_t* meta_ = nullptr;
};

std::unique_ptr<CuOp> CreateStridedCopy(const NodeInfo&) {
  return std::make_unique<StridedCopyOp>();
}

// ---- concat, split --------------------------------------------------------------------------

class BlockCopyOp : public CuOp {
 public:
  void Prepare(PrepareContext& ctx) override {
    const NodeInfo& node = ctx.node();
    concat_ = node.op == "concat";
    const Shape& whole = concat_ ? node.outputs[0].shape : node.inputs[0].shape;
    const auto axis = static_cast<size_t>(NormAxis(node.attrs.GetInt("axis", 0), whole.size()));
    elem_ = ElemBytes(concat_ ? node.outputs[0].dtype : node.inputs[0].dtype);
    outer_ = Product(whole, 0, axis);
    whole_cols_ = Product(whole, axis, whole.size());
    int64_t col0 = 0;
    const std::vector<TensorType>& parts = concat_ ? node.inputs : node.outputs;
    for (const TensorType& t : parts) {
      const int64_t cols = Product(t.shape, axis, t.shape.size());
      parts_.push_back({cols, col0});
      col0 += cols;
    }
  }
  void Enqueue(const EnqueueContext& ctx) override {
    for (size_t k = 0; k < parts_.size(); ++k) {
      const Part& p = parts_[k];
      if (outer_ * p.cols == 0) continue;
      if (concat_) {
        CheckLaunch(kern::LaunchCopy2D(elem_, ctx.inputs[k].data, ctx.outputs[0].data, outer_,
                                       p.cols, p.cols, 0, whole_cols_, p.col0, ctx.stream),
                    "concat");
      } else {
        CheckLaunch(kern::LaunchCopy2D(elem_, ctx.inputs[0].data, ctx.outputs[k].data, outer_,
                                       p.cols, whole_cols_, p.col0, p.cols, 0, ctx.stream),
                    "split");
      }
    }
  }

 private:
  struct Part {
    int64_t cols, col0;
  };
  bool concat_ = true;
  int elem_ = 4;
  int64_t outer_ = 0, whole_cols_ = 0;
  std::vector<Part> parts_;
};

std::unique_ptr<CuOp> CreateBlockCopy(const NodeInfo&) { return std::make_unique<BlockCopyOp>(); }

// ---- slice, pad, tile, depth_to_space, space_to_depth (index map) ---------------------------

struct MapDims {
  std::vector<int64_t> ydims, xdims, strides, steps, subs;
  void Add(int64_t ydim, int64_t xdim, int64_t stride, int64_t step, int64_t sub) {
    ydims.push_back(ydim);
    xdims.push_back(xdim);
    strides.push_back(stride);
    steps.push_back(step);
    subs.push_back(sub);
  }
  static MapDims Identity(const Shape& shape) {
    MapDims m;
    const std::vector<int64_t> strides = RowMajorStrides(shape);
    for (size_t d = 0; d < shape.size(); ++d) m.Add(shape[d], shape[d], strides[d], 1, 0);
    return m;
  }
  std::vector<int64_t> Meta() const {
    if (ydims.empty()) return {1, 1, 0, 0, 0};
    std::vector<int64_t> meta;
    for (const auto* v : {&ydims, &xdims, &strides, &steps, &subs}) {
      meta.insert(meta.end(), v->begin(), v->end());
    }
    return meta;
  }
  int Rank() const { return ydims.empty() ? 1 : static_cast<int>(ydims.size()); }
};

class IndexMapOp : public CuOp {
 public:
  void Prepare(PrepareContext& ctx) override {
    const NodeInfo& node = ctx.node();
    const Shape& in = node.inputs[0].shape;
    const std::string& op = node.op;
    elem_ = ElemBytes(node.inputs[0].dtype);
    count_ = ElementCount(node.outputs[0].shape);
    if (count_ == 0) return;
    MapDims m;
    if (op == "slice") {
      m = MapDims::Identity(in);
      m.ydims = node.outputs[0].shape;
      // Canonical (docs/plugin-abi.md): the host resolved the bounds; per axis, the
      // first index read and the step.
      const plugin::SliceWindow window =
          plugin::CanonicalSlice(node.attrs, in, node.outputs[0].shape);
      for (size_t a = 0; a < in.size(); ++a) {
        m.steps[a] = window.steps[a];
        m.subs[a] = -window.starts[a];
      }
    } else if (op == "pad") {
      m = MapDims::Identity(in);
      m.ydims = node.outputs[0].shape;
      const std::vector<int64_t> pads = node.attrs.GetInts("pads");
      for (size_t d = 0; d < in.size(); ++d) m.subs[d] = pads[d];
      const std::string mode = node.attrs.GetString("mode", "constant");
      mode_ = mode == "edge" ? 2 : mode == "reflect" ? 3 : 1;
      fill_ = ValueBits(node.inputs[0].dtype, node.attrs.GetFloat("value"));
    } else if (op == "tile") {
      m = MapDims::Identity(in);
      m.ydims = node.outputs[0].shape;
      mode_ = 4;
    } else if (op == "depth_to_space") {
      // x as [N, C', H, W] with channel = crd ? c*b*b + i*b + j : (i*b + j)*oc + c;
      // y as [N, oc, H, b(i), W, b(j)].
      const int64_t b = node.attrs.GetInt("blocksize", 1);
      const Shape& out = node.outputs[0].shape;
      const int64_t n = out[0], oc = out[1], ih = in[2], iw = in[3];
      const bool crd = node.attrs.GetString("mode", "DCR") == "CRD";
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
    } else {  // space_to_depth: y as [N, b(i), b(j), C, oh, ow]; x[n, c, h*b + i, w*b + j]
      const int64_t b = node.attrs.GetInt("blocksize", 1);
      const Shape& out = node.outputs[0].shape;
      const int64_t n = out[0], ic = in[1], ih = in[2], iw = in[3], oh = out[2], ow = out[3];
      m.Add(n, n, ic * ih * iw, 1, 0);
      m.Add(b, b, iw, 1, 0);
      m.Add(b, b, 1, 1, 0);
      m.Add(ic, ic, ih * iw, 1, 0);
      m.Add(oh, oh, b * iw, 1, 0);
      m.Add(ow, ow, b, 1, 0);
    }
    rank_ = m.Rank();
    meta_ = ctx.Upload(m.Meta());
  }
  void Enqueue(const EnqueueContext& ctx) override {
    if (count_ == 0) return;
    CheckLaunch(kern::LaunchIndexMap(elem_, ctx.inputs[0].data, ctx.outputs[0].data, count_, rank_,
                                     meta_, mode_, fill_, ctx.stream),
                "index map");
  }

 private:
  int elem_ = 4, rank_ = 1, mode_ = 0;
  int64_t count_ = 0;
  uint64_t fill_ = 0;
  const int64_t* meta_ = nullptr;
};

std::unique_ptr<CuOp> CreateIndexMap(const NodeInfo&) { return std::make_unique<IndexMapOp>(); }

bool SupportsDepthSpace(const NodeInfo& node, const DeviceCaps& caps, std::string& reason) {
  if (!SupportsAny(node, caps, reason)) return false;
  if (node.inputs[0].shape.size() != 4) {
    reason = node.op + " takes 4-D x";
    return false;
  }
  return true;
}

// ---- trilu ----------------------------------------------------------------------------------

class TriluOp : public CuOp {
 public:
  void Prepare(PrepareContext& ctx) override {
    const NodeInfo& node = ctx.node();
    const Shape& s = node.inputs[0].shape;
    rows_ = s[s.size() - 2];
    cols_ = s[s.size() - 1];
    k_ = node.attrs.GetInt("k", 0);
    upper_ = node.attrs.GetInt("upper", 1) == 1;
    elem_ = ElemBytes(node.inputs[0].dtype);
    count_ = ElementCount(s);
  }
  void Enqueue(const EnqueueContext& ctx) override {
    if (count_ == 0) return;
    CheckLaunch(kern::LaunchTrilu(elem_, ctx.inputs[0].data, ctx.outputs[0].data, count_, rows_,
                                  cols_, k_, upper_, ctx.stream),
                "trilu");
  }

 private:
  int64_t rows_ = 1, cols_ = 1, k_ = 0, count_ = 0;
  bool upper_ = true;
  int elem_ = 4;
};

std::unique_ptr<CuOp> CreateTrilu(const NodeInfo&) { return std::make_unique<TriluOp>(); }

bool SupportsTrilu(const NodeInfo& node, const DeviceCaps& caps, std::string& reason) {
  if (!SupportsAny(node, caps, reason)) return false;
  if (node.inputs[0].shape.size() < 2) {
    reason = "trilu takes x of rank >= 2";
    return false;
  }
  return true;
}

// ---- range ----------------------------------------------------------------------------------

// No inputs: the values are computed at prepare exactly as the reference does (start +
// i * delta in double for floats, wrapping int64 arithmetic for integers) and copied into
// the output on every execute.
class RangeOp : public CuOp {
 public:
  void Prepare(PrepareContext& ctx) override {
    const NodeInfo& node = ctx.node();
    const DType dt = node.outputs[0].dtype;
    const int64_t n = ElementCount(node.outputs[0].shape);
    const size_t es = DTypeSize(dt);
    bytes_ = static_cast<uint64_t>(n) * es;
    if (bytes_ == 0) return;
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
    if (bytes_ == 0) return;
    CheckCuda(
        cudaMemcpyAsync(ctx.outputs[0].data, values_, bytes_, cudaMemcpyDeviceToDevice, ctx.stream),
        "cudaMemcpyAsync (range)");
  }

 private:
  uint64_t bytes_ = 0;
  const int64_t* values_ = nullptr;
};

std::unique_ptr<CuOp> CreateRange(const NodeInfo&) { return std::make_unique<RangeOp>(); }

bool SupportsRange(const NodeInfo& node, const DeviceCaps& caps, std::string& reason) {
  if (!SupportsAny(node, caps, reason)) return false;
  if (node.outputs[0].dtype == DType::kBool) {
    return DeclineDType(node, DType::kBool, reason, "range takes F and I");
  }
  return true;
}

}  // namespace

void RegisterMovementOps(CuOpRegistry& registry) {
  registry.Add("reshape", SupportsAny, CreateReshape);
  registry.Add("transpose", SupportsAny, CreateStridedCopy);
  registry.Add("expand", SupportsAny, CreateStridedCopy);
  registry.Add("concat", SupportsAny, CreateBlockCopy);
  registry.Add("split", SupportsAny, CreateBlockCopy);
  registry.Add("slice", SupportsAny, CreateIndexMap);
  registry.Add("pad", SupportsAny, CreateIndexMap);
  registry.Add("tile", SupportsAny, CreateIndexMap);
  registry.Add("depth_to_space", SupportsDepthSpace, CreateIndexMap);
  registry.Add("space_to_depth", SupportsDepthSpace, CreateIndexMap);
  registry.Add("trilu", SupportsTrilu, CreateTrilu);
  registry.Add("range", SupportsRange, CreateRange);
}

}  // namespace sy::cuda
