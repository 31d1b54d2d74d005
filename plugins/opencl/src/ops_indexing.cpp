// Indexing and element movement: slice, split, pad, tile, depth_to_space,
// space_to_depth (kernels/indexing.cl sy_index_map: each output element maps to one input
// coordinate per dim, or to pad's fill), trilu, gather_elements, scatter_elements (with
// its reductions), gather_nd, scatter_nd (likewise) and range (computed on the host at
// prepare, like the reference, and copied in). Semantics: plugins/cpu/src/ref/
// movement_ref.cpp and neural_ref.cpp. Movement is bit-exact on any dtype (elements move
// as unsigned integers of their size); the scatters' float reductions accumulate in
// double, as the reference does, and so need cl_khr_fp64.
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
#include "switchyard/half.h"

namespace sy::opencl {
namespace {

using plugin::FloatBits;
using plugin::IntBits;
using plugin::SaturatingToInt;
using plugin::ValueBits;

std::string RawDefine(DType dtype) {
  switch (DTypeSize(dtype)) {
    case 1:
      return "#define RT uchar\n";
    case 2:
      return "#define RT ushort\n";
    case 4:
      return "#define RT uint\n";
    default:
      return "#define RT ulong\n";
  }
}

std::vector<int64_t> RowMajorStrides(const Shape& s) {
  std::vector<int64_t> strides(s.size(), 1);
  for (size_t d = s.size(); d-- > 1;) strides[d - 1] = strides[d] * s[d];
  return strides;
}

int64_t Product(const Shape& s, size_t begin, size_t end) {
  int64_t p = 1;
  for (size_t i = begin; i < end; ++i) p *= s[i];
  return p;
}

int64_t NormAxis(int64_t axis, size_t rank) {
  return axis < 0 ? axis + static_cast<int64_t>(rank) : axis;
}

bool SupportsAny(const NodeInfo&, const DeviceCaps&, std::string&) { return true; }

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
    kernel_ = ctx.Kernel("indexing", RawDefine(node.inputs[0].dtype), false, "sy_index_map");
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
    kernel_ = ctx.Kernel("indexing", RawDefine(node.inputs[0].dtype), false, "sy_trilu");
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

// ---- gather_elements, scatter_elements -------------------------------------------------------

std::string IndexTypeDefine(DType dtype) {
  return std::string("#define IT ") + (dtype == DType::kI32 ? "int" : "long") + "\n";
}

std::string RangeMessage(const NodeInfo& node, int64_t axis, int64_t size) {
  return node.Describe() + ": an index is out of range for axis " + std::to_string(axis) +
         " of size " + std::to_string(size) + " (expected -" + std::to_string(size) +
         " <= index < " + std::to_string(size) + ")";
}

class GatherElementsOp : public ClOp {
 public:
  void Prepare(PrepareContext& ctx) override {
    const NodeInfo& node = ctx.node();
    const Shape& data = node.inputs[0].shape;
    const Shape& ind = node.inputs[1].shape;
    axis_ = static_cast<int>(NormAxis(node.attrs.GetInt("axis", 0), data.size()));
    size_ = data[static_cast<size_t>(axis_)];
    rank_ = static_cast<int>(data.size());
    std::vector<int64_t> meta(ind.begin(), ind.end());
    const std::vector<int64_t> xs = RowMajorStrides(data);
    meta.insert(meta.end(), xs.begin(), xs.end());
    meta_ = ctx.Upload(meta);
    slot_ = ctx.ErrorSlot(RangeMessage(node, axis_, size_));
    kernel_ = ctx.Kernel("indexing",
                         RawDefine(node.inputs[0].dtype) + IndexTypeDefine(node.inputs[1].dtype),
                         false, "sy_gather_elements");
  }
  void Enqueue(const EnqueueContext& ctx) override {
    const uint64_t n = static_cast<uint64_t>(ctx.inputs[1].count());
    if (n == 0) return;
    KernelArgs(kernel_.get())
        .Tensor(ctx.inputs[0])
        .Tensor(ctx.inputs[1])
        .Tensor(ctx.outputs[0])
        .Add(static_cast<cl_ulong>(n))
        .Add(static_cast<cl_int>(rank_))
        .Add(meta_.get())
        .Add(static_cast<cl_int>(axis_))
        .Add(static_cast<cl_long>(size_))
        .Add(ctx.error_flags)
        .Add(static_cast<cl_uint>(slot_));
    Launch1D(ctx.queue, kernel_.get(), n);
  }

 private:
  int axis_ = 0, rank_ = 1;
  int64_t size_ = 0;
  uint32_t slot_ = 0;
  UniqueMem meta_;
  UniqueKernel kernel_;
};

std::unique_ptr<ClOp> CreateGatherElements(const NodeInfo&) {
  return std::make_unique<GatherElementsOp>();
}

int ReductionCode(const std::string& r) {
  if (r == "add") return 1;
  if (r == "mul") return 2;
  if (r == "max") return 3;
  if (r == "min") return 4;
  return 0;
}

// The program defines of scatter_elements and scatter_nd for the node's data and index
// dtypes and reduction: RT, IT, REDUCE (ReductionCode) and, for a reduction, ACC, LOADV,
// STOREV and REDUCE_FN. `f64` says whether the program accumulates in double.
std::string ScatterDefines(const NodeInfo& node, bool& f64) {
  const DType dt = node.inputs[0].dtype;
  const int reduce = ReductionCode(node.attrs.GetString("reduction", "none"));
  std::string defines = RawDefine(dt) + IndexTypeDefine(node.inputs[1].dtype) + "#define REDUCE " +
                        std::to_string(reduce) + "\n";
  f64 = false;
  if (reduce != 0) {
    defines += SlotDefines('A', dt);
    const bool is_float = IsFloat(dt);
    f64 = is_float;
    if (is_float) {
      defines += "#define ACC double\n#define LOADV(p, i) ((double)LOAD_A(p, i))\n";
      switch (dt) {
        case DType::kF32:
          defines += "#define STOREV(p, i, v) ((p)[i] = (float)(v))\n";
          break;
        case DType::kF16:
          defines +=
              "#define STOREV(p, i, v) vstore_half_rte(sy_double_to_float_odd(v), (i), (p))\n";
          break;
        case DType::kBF16:
          defines +=
              "#define STOREV(p, i, v) ((p)[i] = sy_float_to_bf16(sy_double_to_float_odd(v)))\n";
          break;
        default:
          defines += "#define STOREV(p, i, v) ((p)[i] = (v))\n";
          break;
      }
    } else {
      defines += "#define ACC long\n#define LOADV(p, i) LOAD_A(p, i)\n";
      defines += "#define STOREV(p, i, v) STORE_A(p, i, v)\n";
    }
    switch (reduce) {
      case 1:
        defines += is_float ? "#define REDUCE_FN(a, b) ((a) + (b))\n"
                            : "#define REDUCE_FN(a, b) ((long)((ulong)(a) + (ulong)(b)))\n";
        break;
      case 2:
        defines += is_float ? "#define REDUCE_FN(a, b) ((a) * (b))\n"
                            : "#define REDUCE_FN(a, b) ((long)((ulong)(a) * (ulong)(b)))\n";
        break;
      case 3:
        defines += is_float ? "#define REDUCE_FN(a, b) ((isnan(a) || isnan(b)) ? (double)NAN : "
                              "((a) < (b) ? (b) : (a)))\n"
                            : "#define REDUCE_FN(a, b) ((a) < (b) ? (b) : (a))\n";
        break;
      default:
        defines += is_float ? "#define REDUCE_FN(a, b) ((isnan(a) || isnan(b)) ? (double)NAN : "
                              "((b) < (a) ? (b) : (a)))\n"
                            : "#define REDUCE_FN(a, b) ((b) < (a) ? (b) : (a))\n";
        break;
    }
  }
  return defines;
}

class ScatterElementsOp : public ClOp {
 public:
  void Prepare(PrepareContext& ctx) override {
    const NodeInfo& node = ctx.node();
    const Shape& data = node.inputs[0].shape;
    const Shape& ind = node.inputs[1].shape;
    axis_ = static_cast<int>(NormAxis(node.attrs.GetInt("axis", 0), data.size()));
    rank_ = static_cast<int>(data.size());
    std::vector<int64_t> meta(data.begin(), data.end());
    meta.insert(meta.end(), ind.begin(), ind.end());
    const std::vector<int64_t> is = RowMajorStrides(ind);
    meta.insert(meta.end(), is.begin(), is.end());
    meta_ = ctx.Upload(meta);
    slot_ = ctx.ErrorSlot(RangeMessage(node, axis_, data[static_cast<size_t>(axis_)]));
    bool f64 = false;
    const std::string defines = ScatterDefines(node, f64);
    kernel_ = ctx.Kernel("indexing", defines, f64, "sy_scatter_elements");
  }
  void Enqueue(const EnqueueContext& ctx) override {
    const uint64_t n = static_cast<uint64_t>(ctx.outputs[0].count());
    const uint64_t j = static_cast<uint64_t>(ctx.inputs[1].count());
    if (n == 0 && j == 0) return;
    KernelArgs(kernel_.get())
        .Tensor(ctx.inputs[0])
        .Tensor(ctx.inputs[1])
        .Tensor(ctx.inputs[2])
        .Tensor(ctx.outputs[0])
        .Add(static_cast<cl_ulong>(n))
        .Add(static_cast<cl_ulong>(j))
        .Add(static_cast<cl_int>(rank_))
        .Add(meta_.get())
        .Add(static_cast<cl_int>(axis_))
        .Add(ctx.error_flags)
        .Add(static_cast<cl_uint>(slot_));
    Launch1D(ctx.queue, kernel_.get(), std::max(n, j));
  }

 private:
  int axis_ = 0, rank_ = 1;
  uint32_t slot_ = 0;
  UniqueMem meta_;
  UniqueKernel kernel_;
};

std::unique_ptr<ClOp> CreateScatterElements(const NodeInfo&) {
  return std::make_unique<ScatterElementsOp>();
}

// ---- gather_nd, scatter_nd -----------------------------------------------------------------

// The index tuples of gather_nd / scatter_nd over data's dims first .. first + k - 1 (k =
// the last dim of the indices): meta = those dims' sizes, then their row-major strides
// (the tuple's position among them), as sy_tuple_position reads it.
std::vector<int64_t> TupleMeta(const Shape& data, size_t first, size_t k) {
  const Shape dims(data.begin() + static_cast<std::ptrdiff_t>(first),
                   data.begin() + static_cast<std::ptrdiff_t>(first + k));
  std::vector<int64_t> meta(dims.begin(), dims.end());
  const std::vector<int64_t> strides = RowMajorStrides(dims);
  meta.insert(meta.end(), strides.begin(), strides.end());
  return meta;
}

std::string TupleRangeMessage(const NodeInfo& node, size_t first, size_t k) {
  const Shape& data = node.inputs[0].shape;
  const Shape dims(data.begin() + static_cast<std::ptrdiff_t>(first),
                   data.begin() + static_cast<std::ptrdiff_t>(first + k));
  return node.Describe() + ": an index is out of range for the axis it indexes (axes " +
         std::to_string(first) + " to " + std::to_string(first + k - 1) + " of data, sizes " +
         ShapeToString(dims) + "; expected -size <= index < size)";
}

class GatherNDOp : public ClOp {
 public:
  void Prepare(PrepareContext& ctx) override {
    const NodeInfo& node = ctx.node();
    const Shape& data = node.inputs[0].shape;
    const Shape& ind = node.inputs[1].shape;
    const auto b = static_cast<size_t>(node.attrs.GetInt("batch_dims", 0));
    const auto k = static_cast<size_t>(ind.back());
    k_ = static_cast<int>(k);
    positions_ = Product(data, b, b + k);
    inner_ = Product(data, b + k, data.size());
    const int64_t tuples = ElementCount(ind) / static_cast<int64_t>(k);
    const int64_t batches = Product(data, 0, b);
    per_batch_ = tuples > 0 ? tuples / batches : 1;
    meta_ = ctx.Upload(TupleMeta(data, b, k));
    slot_ = ctx.ErrorSlot(TupleRangeMessage(node, b, k));
    kernel_ = ctx.Kernel("indexing",
                         RawDefine(node.inputs[0].dtype) + IndexTypeDefine(node.inputs[1].dtype),
                         false, "sy_gather_nd");
  }
  void Enqueue(const EnqueueContext& ctx) override {
    const uint64_t n = static_cast<uint64_t>(ctx.outputs[0].count());
    const uint64_t e = static_cast<uint64_t>(ctx.inputs[1].count());
    if (n == 0 && e == 0) return;
    KernelArgs(kernel_.get())
        .Tensor(ctx.inputs[0])
        .Tensor(ctx.inputs[1])
        .Tensor(ctx.outputs[0])
        .Add(static_cast<cl_ulong>(n))
        .Add(static_cast<cl_ulong>(e))
        .Add(static_cast<cl_int>(k_))
        .Add(static_cast<cl_ulong>(inner_ == 0 ? 1 : inner_))
        .Add(static_cast<cl_ulong>(per_batch_))
        .Add(static_cast<cl_long>(positions_))
        .Add(meta_.get())
        .Add(ctx.error_flags)
        .Add(static_cast<cl_uint>(slot_));
    Launch1D(ctx.queue, kernel_.get(), std::max(n, e));
  }

 private:
  int k_ = 1;
  int64_t positions_ = 1, inner_ = 1, per_batch_ = 1;
  uint32_t slot_ = 0;
  UniqueMem meta_;
  UniqueKernel kernel_;
};

std::unique_ptr<ClOp> CreateGatherND(const NodeInfo&) { return std::make_unique<GatherNDOp>(); }

// Three launches (kernels/indexing.cl): the first and last tuple naming each position of
// data's first k dims, found with 32-bit atomics into a scratch buffer (so at most
// INT_MAX tuples, SupportsScatter), then one work-item per output element.
class ScatterNDOp : public ClOp {
 public:
  void Prepare(PrepareContext& ctx) override {
    const NodeInfo& node = ctx.node();
    const Shape& data = node.inputs[0].shape;
    const Shape& ind = node.inputs[1].shape;
    const auto k = static_cast<size_t>(ind.back());
    k_ = static_cast<int>(k);
    positions_ = Product(data, 0, k);
    inner_ = Product(data, k, data.size());
    count_ = ElementCount(data);
    tuples_ = ElementCount(ind) / static_cast<int64_t>(k);
    meta_ = ctx.Upload(TupleMeta(data, 0, k));
    slot_ = ctx.ErrorSlot(TupleRangeMessage(node, 0, k));
    // Never empty buffers: a kernel argument must be a valid cl_mem.
    tuple_positions_ = std::make_unique<ClBuffer>(
        ctx.device(), static_cast<uint64_t>(std::max<int64_t>(tuples_, 1)) * 8);
    ranges_ = std::make_unique<ClBuffer>(ctx.device(),
                                         static_cast<uint64_t>(count_ > 0 ? positions_ : 1) * 8);
    bool f64 = false;
    const std::string defines = ScatterDefines(node, f64);
    init_ = ctx.Kernel("indexing", defines, f64, "sy_scatter_nd_init");
    index_ = ctx.Kernel("indexing", defines, f64, "sy_scatter_nd_index");
    apply_ = ctx.Kernel("indexing", defines, f64, "sy_scatter_nd");
  }
  void Enqueue(const EnqueueContext& ctx) override {
    const bool with_ranges = count_ > 0;
    if (with_ranges) {
      KernelArgs(init_.get()).Add(ranges_->mem()).Add(static_cast<cl_ulong>(positions_));
      Launch1D(ctx.queue, init_.get(), static_cast<uint64_t>(positions_));
    }
    if (tuples_ > 0) {
      KernelArgs(index_.get())
          .Tensor(ctx.inputs[1])
          .Add(static_cast<cl_ulong>(tuples_))
          .Add(static_cast<cl_int>(k_))
          .Add(meta_.get())
          .Add(tuple_positions_->mem())
          .Add(ranges_->mem())
          .Add(static_cast<cl_int>(with_ranges ? 1 : 0))
          .Add(ctx.error_flags)
          .Add(static_cast<cl_uint>(slot_));
      Launch1D(ctx.queue, index_.get(), static_cast<uint64_t>(tuples_));
    }
    if (with_ranges) {
      KernelArgs(apply_.get())
          .Tensor(ctx.inputs[0])
          .Tensor(ctx.inputs[2])
          .Tensor(ctx.outputs[0])
          .Add(static_cast<cl_ulong>(count_))
          .Add(static_cast<cl_ulong>(inner_))
          .Add(tuple_positions_->mem())
          .Add(ranges_->mem());
      Launch1D(ctx.queue, apply_.get(), static_cast<uint64_t>(count_));
    }
  }

 private:
  int k_ = 1;
  int64_t positions_ = 1, inner_ = 1, count_ = 0, tuples_ = 0;
  uint32_t slot_ = 0;
  UniqueMem meta_;
  std::unique_ptr<ClBuffer> tuple_positions_, ranges_;
  UniqueKernel init_, index_, apply_;
};

std::unique_ptr<ClOp> CreateScatterND(const NodeInfo&) { return std::make_unique<ScatterNDOp>(); }

// Float reductions accumulate in double, as the reference does. scatter_nd counts its
// tuples in 32-bit atomics.
bool SupportsScatter(const NodeInfo& node, const DeviceCaps& device, std::string& reason) {
  if (!DTypesUsable(node.inputs, device, reason)) return false;
  if (IsFloat(node.inputs[0].dtype) && node.attrs.GetString("reduction", "none") != "none" &&
      !device.fp64) {
    reason = node.op + "'s float reductions accumulate in double, which needs cl_khr_fp64";
    return false;
  }
  if (node.op == "scatter_nd") {
    const Shape& ind = node.inputs[1].shape;
    if (ElementCount(ind) / ind.back() > std::numeric_limits<int32_t>::max()) {
      reason = "scatter_nd takes at most 2^31 - 1 index tuples on OpenCL";
      return false;
    }
  }
  return true;
}

}  // namespace

void RegisterIndexingOps(ClOpRegistry& registry) {
  registry.Add("slice", SupportsAny, CreateIndexMap);
  registry.Add("split", SupportsAny, CreateIndexMap);
  registry.Add("pad", SupportsAny, CreateIndexMap);
  registry.Add("tile", SupportsAny, CreateIndexMap);
  registry.Add("depth_to_space", SupportsAny, CreateIndexMap);
  registry.Add("space_to_depth", SupportsAny, CreateIndexMap);
  registry.Add("trilu", SupportsAny, CreateTrilu);
  registry.Add("range", SupportsAny, CreateRange);
  registry.Add("gather_elements", SupportsAny, CreateGatherElements);
  registry.Add("scatter_elements", SupportsScatter, CreateScatterElements);
  registry.Add("gather_nd", SupportsAny, CreateGatherND);
  registry.Add("scatter_nd", SupportsScatter, CreateScatterND);
}

}  // namespace sy::opencl
