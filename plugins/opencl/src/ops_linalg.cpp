// matmul (NumPy semantics: 1-D promotion, broadcast batch dims; floats and integers) and
// gemm (alpha, beta, trans_a, trans_b, C broadcast to [M, N]); one tiled kernel,
// kernels/linalg.cl sy_gemm, described by strides. quant_matmul on its own kernel over
// the packed weights (sy_quant_matmul). Accumulation: float for f32 f16 bf16,
// double for f64, 64-bit wrapping for the integers.
//
// Where the plugin was built with CLBlast (libclblast-dev), f32 and f64 products with
// M, N, K > 0 go to CLBlast's (batched) GEMM instead: 2 to 5 times faster on PoCL
// (docs/opencl.md has the figures). Prepare runs CLBlast once on scratch buffers of the
// node's sizes so that its kernels are compiled then, not at the first execute; if that
// fails the node falls back to the tiled kernel. SWITCHYARD_OPENCL_GEMM=tiled turns
// CLBlast off.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>

#ifdef SY_OPENCL_HAVE_CLBLAST
#include <clblast_c.h>
#endif

#include "cl_op.h"
#include "kernel_sources.h"

namespace sy::opencl {
namespace {

// The largest square tile (16, 8, 4, 2 or 1) whose work-group the device accepts and
// whose two local tiles of 8-byte accumulators fit in local memory.
int TileSize(const Device& device) {
  for (int ts : {16, 8, 4, 2}) {
    const auto items = static_cast<size_t>(ts * ts);
    const uint64_t local = static_cast<uint64_t>(ts) * (2 * ts + 1) * 8;
    if (items <= device.max_work_group_size &&
        (device.local_mem_bytes == 0 || local <= device.local_mem_bytes)) {
      return ts;
    }
  }
  return 1;
}

// Whether CLBlast may be used (built with it, and not turned off by the environment).
bool ClblastEnabled() {
#ifdef SY_OPENCL_HAVE_CLBLAST
  const char* choice = std::getenv("SWITCHYARD_OPENCL_GEMM");
  return choice == nullptr || std::strcmp(choice, "tiled") != 0;
#else
  return false;
#endif
}

std::string_view AccumulatorName(DType dtype) {
  if (dtype == DType::kF64) return "double";
  return IsFloat(dtype) ? "float" : "ulong";
}

class GemmOp : public ClOp {
 public:
  void Prepare(PrepareContext& ctx) override {
    const NodeInfo& node = ctx.node();
    const DType dtype = node.outputs[0].dtype;
    dtype_ = dtype;
    const Shape& out = node.outputs[0].shape;
    std::vector<int64_t> batch_offsets;
    integer_ = node.op == "matmul_integer";
    if (node.op == "matmul" || integer_) {
      Shape sa = node.inputs[0].shape, sb = node.inputs[1].shape;
      if (sa.size() == 1) sa.insert(sa.begin(), 1);
      if (sb.size() == 1) sb.push_back(1);
      m_ = sa[sa.size() - 2];
      k_ = sa.back();
      n_ = sb.back();
      sam_ = k_, sak_ = 1, sbk_ = n_, sbn_ = 1;
      const Shape batch_a(sa.begin(), sa.end() - 2), batch_b(sb.begin(), sb.end() - 2);
      const size_t rank = std::max(batch_a.size(), batch_b.size());
      Shape batch(rank);
      for (size_t i = 0; i < rank; ++i) {
        const size_t pa = rank - batch_a.size(), pb = rank - batch_b.size();
        const int64_t da = i < pa ? 1 : batch_a[i - pa];
        const int64_t db = i < pb ? 1 : batch_b[i - pb];
        batch[i] = da == 1 ? db : da;
      }
      batches_ = ElementCount(batch);
      // Per batch index, the element offset of its a and b matrices.
      std::vector<int64_t> meta;
      const Shape inputs[] = {batch_a, batch_b};
      const int r = CollapseBroadcast(batch, inputs, meta);
      for (int64_t bi = 0; bi < batches_; ++bi) {
        int64_t rest = bi, oa = 0, ob = 0;
        for (int d = r - 1; d >= 0; --d) {
          const int64_t dim = meta[static_cast<size_t>(d)];
          const int64_t idx = rest % dim;
          rest /= dim;
          oa += idx * meta[static_cast<size_t>(r + d)];
          ob += idx * meta[static_cast<size_t>(2 * r + d)];
        }
        batch_offsets.push_back(oa * m_ * k_);
        batch_offsets.push_back(ob * k_ * n_);
      }
    } else {  // gemm
      const bool trans_a = node.attrs.GetInt("trans_a", 0) != 0;
      const bool trans_b = node.attrs.GetInt("trans_b", 0) != 0;
      trans_a_ = trans_a;
      trans_b_ = trans_b;
      m_ = out[0];
      n_ = out[1];
      k_ = node.inputs[0].shape[trans_a ? 0 : 1];
      sam_ = trans_a ? 1 : k_;
      sak_ = trans_a ? m_ : 1;
      sbk_ = trans_b ? 1 : n_;
      sbn_ = trans_b ? k_ : 1;
      alpha_ = node.attrs.GetFloat("alpha", 1.0);
      beta_ = node.attrs.GetFloat("beta", 1.0);
      has_c_ = node.inputs.size() > 2;
      if (has_c_) {
        const Shape& c = node.inputs[2].shape;
        if (c.size() == 1) csn_ = c[0] == 1 ? 0 : 1;
        if (c.size() == 2) {
          csm_ = c[0] == 1 ? 0 : c[1];
          csn_ = c[1] == 1 ? 0 : 1;
        }
      }
      batches_ = 1;
      batch_offsets = {0, 0};
    }
    if (batch_offsets.empty()) batch_offsets = {0, 0};
    if (integer_) {
      // matmul_integer: a naive kernel, one work-item per output, zero points taken off
      // each operand as it is read, summed exactly in 64 bits (kernels/linalg.cl).
      batch_ = ctx.Upload(batch_offsets);
      za_count_ = node.inputs.size() > 2 ? ElementCount(node.inputs[2].shape) : 0;
      zb_count_ = node.inputs.size() > 3 ? ElementCount(node.inputs[3].shape) : 0;
      const std::string defines = SlotDefines('A', node.inputs[0].dtype) +
                                  SlotDefines('B', node.inputs[1].dtype) + SlotDefines('Y', dtype) +
                                  "#define MATMUL_INTEGER 1\n";
      kernel_ = ctx.Kernel("linalg", defines, false, "sy_matmul_integer");
      return;
    }
    if (ClblastEnabled() && (dtype == DType::kF32 || dtype == DType::kF64) && m_ > 0 && n_ > 0 &&
        k_ > 0 && batches_ > 0) {
      for (size_t i = 0; i < batch_offsets.size(); i += 2) {
        a_offsets_.push_back(static_cast<size_t>(batch_offsets[i]));
        b_offsets_.push_back(static_cast<size_t>(batch_offsets[i + 1]));
        c_offsets_.push_back(static_cast<size_t>(i / 2 * m_ * n_));
      }
      if (PrepareClblast(ctx)) return;
    }
    batch_ = ctx.Upload(batch_offsets);
    ts_ = TileSize(ctx.device());
    std::string defines = SlotDefines('A', node.inputs[0].dtype) +
                          SlotDefines('B', node.inputs[1].dtype) + SlotDefines('Y', dtype) +
                          "#define ACC_T " + std::string(AccumulatorName(dtype)) + "\n" +
                          "#define TS " + std::to_string(ts_) + "\n";
    if (has_c_) {
      defines += SlotDefines('C', node.inputs[2].dtype) + "#define HAS_C 1\n";
    } else if (node.op == "gemm") {
      defines += "#define HAS_ALPHA 1\n";
    }
    kernel_ = ctx.Kernel("linalg", defines, dtype == DType::kF64, "sy_gemm");
  }

  void Enqueue(const EnqueueContext& ctx) override {
    if (m_ == 0 || n_ == 0 || batches_ == 0) return;
    if (integer_) {
      // Absent zero points: any buffer in their place, never read (count 0).
      const ClTensor& za = za_count_ > 0 ? ctx.inputs[2] : ctx.outputs[0];
      const ClTensor& zb = zb_count_ > 0 ? ctx.inputs[3] : ctx.outputs[0];
      KernelArgs args(kernel_.get());
      args.Tensor(ctx.inputs[0]).Tensor(ctx.inputs[1]).Tensor(za).Tensor(zb).Tensor(ctx.outputs[0]);
      for (int64_t v : {m_, n_, k_}) args.Add(static_cast<cl_long>(v));
      args.Add(batch_.get());
      for (int64_t v : {za_count_, zb_count_}) args.Add(static_cast<cl_long>(v));
      const size_t global[3] = {static_cast<size_t>(n_), static_cast<size_t>(m_),
                                static_cast<size_t>(batches_)};
      CheckCl(clEnqueueNDRangeKernel(ctx.queue, kernel_.get(), 3, nullptr, global, nullptr, 0,
                                     nullptr, nullptr),
              "clEnqueueNDRangeKernel(sy_matmul_integer)");
      return;
    }
    if (use_clblast_) {
      EnqueueClblast(ctx.queue, ctx.inputs, ctx.outputs[0]);
      return;
    }
    const ClTensor& c = has_c_ ? ctx.inputs[2] : ctx.outputs[0];  // unused without C
    KernelArgs args(kernel_.get());
    args.Tensor(ctx.inputs[0]).Tensor(ctx.inputs[1]).Tensor(c).Tensor(ctx.outputs[0]);
    for (int64_t v : {m_, n_, k_, sam_, sak_, sbk_, sbn_, csm_, csn_}) {
      args.Add(static_cast<cl_long>(v));
    }
    args.Add(batch_.get());
    if (IsFloat(dtype_)) {
      args.Scalar(dtype_, alpha_).Scalar(dtype_, beta_);
    } else {
      args.IntScalar(dtype_, 1).IntScalar(dtype_, 0);
    }
    const auto round_up = [this](int64_t v) {
      return static_cast<size_t>((v + ts_ - 1) / ts_ * ts_);
    };
    const size_t global[3] = {round_up(n_), round_up(m_), static_cast<size_t>(batches_)};
    const size_t local[3] = {static_cast<size_t>(ts_), static_cast<size_t>(ts_), 1};
    CheckCl(clEnqueueNDRangeKernel(ctx.queue, kernel_.get(), 3, nullptr, global, local, 0, nullptr,
                                   nullptr),
            "clEnqueueNDRangeKernel(sy_gemm)");
  }

 private:
  DType dtype_ = DType::kF32;
  int64_t m_ = 0, n_ = 0, k_ = 0, batches_ = 0;
  int64_t sam_ = 0, sak_ = 0, sbk_ = 0, sbn_ = 0, csm_ = 0, csn_ = 0;
  double alpha_ = 1.0, beta_ = 1.0;
  bool has_c_ = false;
  bool integer_ = false;  // matmul_integer
  int64_t za_count_ = 0, zb_count_ = 0;
  int ts_ = 16;
  UniqueMem batch_;
  UniqueKernel kernel_;

  // ---- the CLBlast path ----
  // Compiles CLBlast's kernels for these sizes by running it once on scratch buffers;
  // false (use the tiled kernel) when CLBlast fails.
  bool PrepareClblast(PrepareContext& ctx) {
#ifdef SY_OPENCL_HAVE_CLBLAST
    const NodeInfo& node = ctx.node();
    if (has_c_) {
      // y = broadcast(c) first, then CLBlast adds alpha * a * b to beta * y.
      std::vector<int64_t> meta;
      const Shape inputs[] = {node.inputs[2].shape};
      c_rank_ = CollapseBroadcast(node.outputs[0].shape, inputs, meta);
      meta.push_back(0);
      c_meta_ = ctx.Upload(meta);
      const size_t size = DTypeSize(dtype_);
      c_copy_ = ctx.Kernel("movement", size == 8 ? "#define RT ulong\n" : "#define RT uint\n",
                           false, "sy_strided_copy");
    }
    try {
      Device& device = ctx.device();
      const size_t size = DTypeSize(dtype_);
      auto bytes = [size](const TensorType& t) {
        return std::max<uint64_t>(static_cast<uint64_t>(ElementCount(t.shape)) * size, size);
      };
      ClBuffer a(device, bytes(node.inputs[0])), b(device, bytes(node.inputs[1]));
      ClBuffer y(device, bytes(node.outputs[0]));
      const TensorType& ta = node.inputs[0];
      const TensorType& tb = node.inputs[1];
      const TensorType& ty = node.outputs[0];
      const ClTensor inputs[] = {{a.mem(), 0, &ta}, { b.mem(), 0, &tb }};
      const ClTensor out{y.mem(), 0, &ty};
      use_clblast_ = true;
      EnqueueClblast(device.queue.get(), std::span<const ClTensor>(inputs, 2), out,
                     /*skip_c=*/true);
      CheckCl(clFinish(device.queue.get()), "clFinish");
      return true;
    } catch (const sy_sdk::Error&) {
      use_clblast_ = false;
      return false;
    }
#else
    (void)ctx;
    return false;
#endif
  }

  void EnqueueClblast(cl_command_queue queue, std::span<const ClTensor> inputs, const ClTensor& out,
                      bool skip_c = false) {
#ifdef SY_OPENCL_HAVE_CLBLAST
    const size_t size = DTypeSize(dtype_);
    double beta = 0.0;
    if (has_c_ && !skip_c) {
      KernelArgs(c_copy_.get())
          .Tensor(inputs[2])
          .Tensor(out)
          .Add(static_cast<cl_ulong>(m_ * n_))
          .Add(static_cast<cl_int>(c_rank_))
          .Add(c_meta_.get());
      Launch1D(queue, c_copy_.get(), static_cast<uint64_t>(m_ * n_));
      beta = beta_;
    }
    // CLBlast takes element offsets: the tensors' byte offsets are multiples of the
    // element size (the host aligns views to 256 bytes).
    const size_t ao = inputs[0].offset / size, bo = inputs[1].offset / size, yo = out.offset / size;
    const CLBlastTranspose ta = trans_a_ ? CLBlastTransposeYes : CLBlastTransposeNo;
    const CLBlastTranspose tb = trans_b_ ? CLBlastTransposeYes : CLBlastTransposeNo;
    const size_t lda =
        ta == CLBlastTransposeYes ? static_cast<size_t>(m_) : static_cast<size_t>(k_);
    const size_t ldb =
        tb == CLBlastTransposeYes ? static_cast<size_t>(k_) : static_cast<size_t>(n_);
    const size_t ldc = static_cast<size_t>(n_);
    const auto m = static_cast<size_t>(m_), n = static_cast<size_t>(n_),
               k = static_cast<size_t>(k_);
    CLBlastStatusCode status;
    if (batches_ == 1) {
      status = dtype_ == DType::kF32
                   ? CLBlastSgemm(CLBlastLayoutRowMajor, ta, tb, m, n, k,
                                  static_cast<float>(alpha_), inputs[0].mem, ao + a_offsets_[0],
                                  lda, inputs[1].mem, bo + b_offsets_[0], ldb,
                                  static_cast<float>(beta), out.mem, yo, ldc, &queue, nullptr)
                   : CLBlastDgemm(CLBlastLayoutRowMajor, ta, tb, m, n, k, alpha_, inputs[0].mem,
                                  ao + a_offsets_[0], lda, inputs[1].mem, bo + b_offsets_[0], ldb,
                                  beta, out.mem, yo, ldc, &queue, nullptr);
    } else {
      std::vector<size_t> a_off(a_offsets_), b_off(b_offsets_), c_off(c_offsets_);
      for (size_t& v : a_off) v += ao;
      for (size_t& v : b_off) v += bo;
      for (size_t& v : c_off) v += yo;
      const auto count = static_cast<size_t>(batches_);
      if (dtype_ == DType::kF32) {
        const std::vector<float> alphas(count, static_cast<float>(alpha_)),
            betas(count, static_cast<float>(beta));
        status =
            CLBlastSgemmBatched(CLBlastLayoutRowMajor, ta, tb, m, n, k, alphas.data(),
                                inputs[0].mem, a_off.data(), lda, inputs[1].mem, b_off.data(), ldb,
                                betas.data(), out.mem, c_off.data(), ldc, count, &queue, nullptr);
      } else {
        const std::vector<double> alphas(count, alpha_), betas(count, beta);
        status =
            CLBlastDgemmBatched(CLBlastLayoutRowMajor, ta, tb, m, n, k, alphas.data(),
                                inputs[0].mem, a_off.data(), lda, inputs[1].mem, b_off.data(), ldb,
                                betas.data(), out.mem, c_off.data(), ldc, count, &queue, nullptr);
      }
    }
    if (status != CLBlastSuccess) {
      throw sy_sdk::Error(SY_ERROR_INTERNAL,
                          "CLBlast GEMM failed with status " + std::to_string(status));
    }
#else
    (void)queue, (void)inputs, (void)out, (void)skip_c;
#endif
  }

  bool use_clblast_ = false;
  bool trans_a_ = false, trans_b_ = false;
  std::vector<size_t> a_offsets_, b_offsets_, c_offsets_;  // elements, per batch
  int c_rank_ = 1;
  UniqueMem c_meta_;
  UniqueKernel c_copy_;
};

bool SupportsGemm(const NodeInfo& node, const DeviceCaps& device, std::string& reason) {
  if (!node.inputs.empty() && node.inputs[0].dtype == DType::kBool) {
    reason = node.op + " does not take bool";
    return false;
  }
  return DTypesUsable(node.inputs, device, reason);
}

std::unique_ptr<ClOp> CreateGemm(const NodeInfo&) { return std::make_unique<GemmOp>(); }

// quant_matmul: one work-item per output element over the packed weights
// (kernels/linalg.cl, sy_quant_matmul).
class QuantMatmulOp : public ClOp {
 public:
  void Prepare(PrepareContext& ctx) override {
    const NodeInfo& node = ctx.node();
    const Shape& b = node.inputs[1].shape;
    n_ = b[0];
    k_ = node.inputs[0].shape.back();
    n_blocks_ = b[1];
    block_bytes_ = b[2];
    block_size_ = node.attrs.GetInt("block_size", 32);
    bits_ = node.attrs.GetInt("bits", 4);
    has_zero_ = node.inputs.size() > 3;
    n_out_ = ElementCount(node.outputs[0].shape);
    const DType dtype = node.inputs[0].dtype;
    kernel_ = ctx.Kernel("linalg",
                         SlotDefines('A', dtype) + SlotDefines('Y', node.outputs[0].dtype) +
                             "#define QUANT_MATMUL 1\n",
                         dtype == DType::kF64, "sy_quant_matmul");
  }

  void Enqueue(const EnqueueContext& ctx) override {
    if (n_out_ == 0) return;
    // Absent zero points: bound to b, never read.
    const ClTensor& zeros = has_zero_ ? ctx.inputs[3] : ctx.inputs[1];
    KernelArgs args(kernel_.get());
    args.Tensor(ctx.inputs[0])
        .Tensor(ctx.inputs[1])
        .Tensor(ctx.inputs[2])
        .Tensor(zeros)
        .Tensor(ctx.outputs[0])
        .Add(static_cast<cl_ulong>(n_out_));
    for (int64_t v : {n_, k_, n_blocks_, block_bytes_, block_size_}) {
      args.Add(static_cast<cl_long>(v));
    }
    args.Add(static_cast<cl_int>(bits_)).Add(static_cast<cl_int>(has_zero_ ? 1 : 0));
    Launch1D(ctx.queue, kernel_.get(), static_cast<uint64_t>(n_out_));
  }

 private:
  int64_t n_ = 0, k_ = 0, n_blocks_ = 0, block_bytes_ = 0, block_size_ = 0, bits_ = 4;
  int64_t n_out_ = 0;
  bool has_zero_ = false;
  UniqueKernel kernel_;
};

std::unique_ptr<ClOp> CreateQuantMatmul(const NodeInfo&) {
  return std::make_unique<QuantMatmulOp>();
}

}  // namespace

void RegisterLinalgOps(ClOpRegistry& registry) {
  registry.Add("matmul", SupportsGemm, CreateGemm);
  registry.Add("matmul_integer", SupportsGemm, CreateGemm);
  registry.Add("gemm", SupportsGemm, CreateGemm);
  registry.Add("quant_matmul", SupportsFloatOnly, CreateQuantMatmul);
}

}  // namespace sy::opencl
