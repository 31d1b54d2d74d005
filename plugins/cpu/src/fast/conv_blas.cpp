// Fast conv for f32 and f64 with two spatial dims (the common case) through im2col and
// cblas_sgemm / cblas_dgemm: for each batch item and group, y_g [M/g, OH*OW] = w_g [M/g, C/g*KH*KW]
// x col [C/g*KH*KW, OH*OW], then the bias is added. The col matrix is built for a band of output
// rows at a time, so its memory stays bounded (kColBudget floats) whatever the batch or image size;
// a 1x1 kernel with unit strides and no padding needs no col matrix at all (x itself is the
// right-hand matrix).
//
// Every other case (1 or 3 spatial dims, other dtypes, dimensions over BLAS's int range,
// misaligned buffers) goes to the reference kernel.
#include <cblas.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string_view>
#include <vector>

#include "fast/fast_kernels.h"
#include "fast/vec_math.h"
#include "ref/ref_kernels.h"

namespace sy::cpu {
namespace {

// The col buffer's size limit, in floats (16 MiB); a single output row may exceed it.
constexpr int64_t kColBudget = int64_t{4} << 20;

Status RunReference(const KernelContext& ctx) {
  const KernelFn ref = RefKernels().Find(ctx.op);
  if (ref == nullptr) return Internal("no reference kernel for op " + std::string(ctx.op));
  return ref(ctx);
}

bool FitsBlasInt(int64_t v) { return v >= 0 && v <= std::numeric_limits<blasint>::max(); }

// Smallest integer >= a / b, for b > 0.
int64_t CeilDiv(int64_t a, int64_t b) { return a >= 0 ? (a + b - 1) / b : -((-a) / b); }

struct Conv2d {
  int64_t channels_per_group, height, width;  // of x (per group)
  int64_t kh, kw, out_h, out_w;
  int64_t stride_h, stride_w, pad_h, pad_w, dil_h, dil_w;
};

// Fills col [C/g * KH * KW, (row_end - row_begin) * OW] with the taps of output rows
// [row_begin, row_end) over x_g [C/g, H, W]; taps in the padding are 0.
template <typename T>
void Im2Col(const Conv2d& p, const T* x_g, int64_t row_begin, int64_t row_end, T* col) {
  const int64_t rows = row_end - row_begin;
  const int64_t cols = rows * p.out_w;
  for (int64_t c = 0; c < p.channels_per_group; ++c) {
    const T* x_c = x_g + c * p.height * p.width;
    for (int64_t i = 0; i < p.kh; ++i) {
      for (int64_t j = 0; j < p.kw; ++j) {
        T* dst = col + ((c * p.kh + i) * p.kw + j) * cols;
        // Output columns ow whose input column ow * stride - pad + j * dilation is in [0, W).
        const int64_t shift = j * p.dil_w - p.pad_w;
        const int64_t ow_begin = std::clamp<int64_t>(CeilDiv(-shift, p.stride_w), 0, p.out_w);
        const int64_t ow_end =
            std::clamp<int64_t>(CeilDiv(p.width - shift, p.stride_w), ow_begin, p.out_w);
        for (int64_t oh = row_begin; oh < row_end; ++oh, dst += p.out_w) {
          const int64_t ih = oh * p.stride_h - p.pad_h + i * p.dil_h;
          if (ih < 0 || ih >= p.height) {
            std::fill(dst, dst + p.out_w, T(0));
            continue;
          }
          const T* x_row = x_c + ih * p.width;
          std::fill(dst, dst + ow_begin, T(0));
          if (p.stride_w == 1) {
            if (ow_end > ow_begin) {
              std::memcpy(dst + ow_begin, x_row + ow_begin + shift,
                          static_cast<size_t>(ow_end - ow_begin) * sizeof(T));
            }
          } else {
            for (int64_t ow = ow_begin; ow < ow_end; ++ow) {
              dst[ow] = x_row[ow * p.stride_w + shift];
            }
          }
          std::fill(dst + ow_end, dst + p.out_w, T(0));
        }
      }
    }
  }
}

// C = A [m, k] x B [k, n] (row-major, leading dims given), in T's BLAS.
void Gemm(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, const float* b, int64_t ldb,
          float* c, int64_t ldc) {
  const auto i = [](int64_t v) { return static_cast<blasint>(v); };
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, i(m), i(n), i(k), 1.0f, a, i(lda), b,
              i(ldb), 0.0f, c, i(ldc));
}
void Gemm(int64_t m, int64_t n, int64_t k, const double* a, int64_t lda, const double* b,
          int64_t ldb, double* c, int64_t ldc) {
  const auto i = [](int64_t v) { return static_cast<blasint>(v); };
  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, i(m), i(n), i(k), 1.0, a, i(lda), b,
              i(ldb), 0.0, c, i(ldc));
}

template <typename T>
Status Conv2dBlas(const KernelContext& ctx) {
  const ConstTensorView& x = ctx.inputs[0];
  const ConstTensorView& w = ctx.inputs[1];
  const ConstTensorView* bias = ctx.inputs.size() > 2 ? &ctx.inputs[2] : nullptr;
  const TensorView& y = ctx.outputs[0];
  if (y.count() == 0) return Status::Ok();
  const std::vector<int64_t> strides = IntsOr(ctx.attrs, "strides", 2, 1);
  const std::vector<int64_t> pads = IntsOr(ctx.attrs, "pads", 4, 0);
  const std::vector<int64_t> dilations = IntsOr(ctx.attrs, "dilations", 2, 1);
  const int64_t group = ctx.attrs.GetInt("group", 1);
  const int64_t batch = x.shape()[0];
  const int64_t channels = x.shape()[1];
  const int64_t out_channels = y.shape()[1];
  const Conv2d p{channels / group, x.shape()[2], x.shape()[3], w.shape()[2], w.shape()[3],
                 y.shape()[2],     y.shape()[3], strides[0],   strides[1],   pads[0],
                 pads[1],          dilations[0], dilations[1]};
  const int64_t outs_per_group = out_channels / group;
  const int64_t in_count = p.height * p.width;
  const int64_t out_count = p.out_h * p.out_w;
  const int64_t depth = p.channels_per_group * p.kh * p.kw;  // the contracted dim
  const auto aligned = [](const void* q) {
    return reinterpret_cast<uintptr_t>(q) % alignof(T) == 0;
  };
  if (!aligned(x.data) || !aligned(w.data) || !aligned(y.data) ||
      (bias != nullptr && !aligned(bias->data)) || !FitsBlasInt(depth) || !FitsBlasInt(out_count) ||
      !FitsBlasInt(outs_per_group) || !FitsBlasInt(in_count)) {
    return RunReference(ctx);
  }
  const T* px = reinterpret_cast<const T*>(x.data);
  const T* pw = reinterpret_cast<const T*>(w.data);
  T* py = reinterpret_cast<T*>(y.data);
  const bool direct = p.kh == 1 && p.kw == 1 && p.stride_h == 1 && p.stride_w == 1 &&
                      p.pad_h == 0 && p.pad_w == 0 && pads[2] == 0 && pads[3] == 0;
  // Output rows per band, so that the col band stays within kColBudget.
  const int64_t band =
      depth == 0 ? p.out_h : std::clamp<int64_t>(kColBudget / (depth * p.out_w), 1, p.out_h);
  std::vector<T> col;
  if (!direct && depth > 0) col.resize(static_cast<size_t>(depth * band * p.out_w));
  for (int64_t nb = 0; nb < batch; ++nb) {
    T* y_n = py + nb * out_channels * out_count;
    for (int64_t g = 0; g < group; ++g) {
      const T* x_g = px + (nb * channels + g * p.channels_per_group) * in_count;
      const T* w_g = pw + g * outs_per_group * depth;
      T* y_g = y_n + g * outs_per_group * out_count;
      if (depth == 0 || outs_per_group == 0) {
        std::fill(y_g, y_g + outs_per_group * out_count, T(0));
      } else if (direct) {
        Gemm(outs_per_group, out_count, depth, w_g, depth, x_g, in_count, y_g, out_count);
      } else {
        for (int64_t row = 0; row < p.out_h; row += band) {
          const int64_t row_end = std::min(row + band, p.out_h);
          const int64_t cols = (row_end - row) * p.out_w;
          Im2Col(p, x_g, row, row_end, col.data());
          Gemm(outs_per_group, cols, depth, w_g, depth, col.data(), cols, y_g + row * p.out_w,
               out_count);
        }
      }
    }
    if (bias != nullptr) {
      const T* pb = reinterpret_cast<const T*>(bias->data);
      for (int64_t m = 0; m < out_channels; ++m) {
        T* y_m = y_n + m * out_count;
        for (int64_t o = 0; o < out_count; ++o) y_m[o] += pb[m];
      }
    }
  }
  return Status::Ok();
}

Status Conv(const KernelContext& ctx) {
  if (ctx.inputs[0].rank() != 4) return RunReference(ctx);
  if (ctx.outputs[0].dtype() == DType::kF32) return Conv2dBlas<float>(ctx);
  // f64: ONNX ConvInteger and QLinearConv import to an f64 conv (exact for their sums).
  if (ctx.outputs[0].dtype() == DType::kF64) return Conv2dBlas<double>(ctx);
  return RunReference(ctx);
}

}  // namespace

void AddConvBlasKernels(KernelTable& table) { table.Add("conv", Conv); }

}  // namespace sy::cpu
