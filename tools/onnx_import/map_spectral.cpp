// ONNX's spectral ops, as products with constants built at import:
// - DFT (opsets 17, 20): the transform along one axis is one `matmul` of the signal (its
//   samples with their real and imaginary parts side by side, [..., M * c]) by the
//   [M * c, K * 2] matrix of twiddles e^(-+2 pi i k m / N) (scaled by 1 / N when inverse),
//   whose product is the spectrum with real and imaginary parts interleaved, as ONNX lays
//   it out. Zero-padding to dft_length needs no rows; truncation is a slice. onesided keeps
//   the first N / 2 + 1 bins; inverse with onesided is the real inverse of a one-sided
//   spectrum (numpy's irfft: bins 1 .. ceil(N / 2) - 1 counted twice, the imaginary parts
//   of DC and Nyquist ignored), as ONNX's reference computes it.
// - STFT (opset 17): the frames are a `gather` of the signal by a constant [frames,
//   frame_length] index table, times the window, then the DFT above over each frame.
// - MelWeightMatrix (opset 17): computed at import from its scalar inputs, as ONNX's
//   reference does (triangular filters between mel-spaced bins), and left a constant.
// A matmul DFT costs O(N^2) per transform where an FFT costs O(N log N): a debt
// (docs/onnx-import.md) that is small at the frame sizes of audio front-ends (N up to a
// few thousand, a BLAS matmul); matrices above 2^24 entries are refused.
#include <cmath>
#include <numbers>

#include "host_tensor_ops.h"
#include "op_mapping.h"
#include "switchyard/shape.h"

namespace sy::onnx_import {
namespace {

constexpr int64_t kMaxTwiddles = int64_t{1} << 24;

struct DftSpec {
  int64_t length = 0;  // N
  bool inverse = false;
  bool onesided = false;
};

// The DFT of x [..., M_in, c] (c = 1: real, 2: complex) along dim rank - 2, giving
// [..., K, 2], or [..., N, 1] for the inverse of a one-sided spectrum.
Expected<ValueId> EmitDft(NodeContext& ctx, ValueId x, const DftSpec& spec) {
  const TensorType type = ctx.TypeOf(x);  // a copy: emitting may move the graph's types
  const size_t rank = type.shape.size();
  const int64_t m_in = type.shape[rank - 2];
  const int64_t c = type.shape[rank - 1];
  const int64_t n = spec.length;
  if (c != 1 && c != 2) {
    return ctx.Invalid("the last dim of the signal must be 1 (real) or 2 (complex), not " +
                       std::to_string(c));
  }
  if (n < 1) return ctx.Invalid("dft_length must be >= 1, not " + std::to_string(n));
  const bool irfft = spec.inverse && spec.onesided;
  const int64_t rows = irfft ? std::min(m_in, n / 2 + 1) : std::min(m_in, n);
  const int64_t cols = irfft || !spec.onesided ? n : n / 2 + 1;
  const int64_t parts = irfft ? 1 : 2;
  if (rows * c > kMaxTwiddles / (cols * parts)) {
    return ctx.UnsupportedOp("a DFT of length " + std::to_string(n) + " over " +
                             std::to_string(rows) +
                             " samples needs a twiddle matrix above 2^24 entries (the "
                             "importer computes DFTs as a matmul)");
  }
  ValueId signal = x;
  if (rows < m_in) {
    Attrs slice;
    slice.Set("starts", std::vector<int64_t>{0});
    slice.Set("ends", std::vector<int64_t>{rows});
    slice.Set("axes", std::vector<int64_t>{static_cast<int64_t>(rank) - 2});
    SY_ASSIGN_OR_RETURN(signal, ctx.Emit1("slice", {signal}, std::move(slice)));
  }
  std::vector<int64_t> flat(rank - 2, 0);
  flat.push_back(rows * c);
  SY_ASSIGN_OR_RETURN(signal, EmitReshape(ctx, signal, flat));
  // Row (m, j): sample m, part j (0 real, 1 imaginary); column (k, p): bin or sample k,
  // part p. The angle is reduced mod N in integers so that it stays exact.
  std::vector<double> w(static_cast<size_t>(rows * c * cols * parts), 0.0);
  const double two_pi = 2 * std::numbers::pi;
  const double scale = spec.inverse ? 1.0 / static_cast<double>(n) : 1.0;
  for (int64_t m = 0; m < rows; ++m) {
    for (int64_t k = 0; k < cols; ++k) {
      const double theta = two_pi * static_cast<double>((m * k) % n) / static_cast<double>(n);
      const auto at = [&](int64_t j, int64_t p) -> double& {
        return w[static_cast<size_t>(((m * c + j) * cols + k) * parts + p)];
      };
      if (irfft) {  // x_k = (1 / N) sum_m weight_m (Re X_m cos - Im X_m sin)
        const bool edge = m == 0 || (n % 2 == 0 && m == n / 2);
        const double weight = (edge ? 1.0 : 2.0) * scale;
        at(0, 0) = weight * std::cos(theta);
        if (c == 2) at(1, 0) = edge ? 0.0 : -weight * std::sin(theta);
        continue;
      }
      const double phi = spec.inverse ? theta : -theta;
      const double cs = scale * std::cos(phi), sn = scale * std::sin(phi);
      at(0, 0) = cs;
      at(0, 1) = sn;
      if (c == 2) {
        at(1, 0) = -sn;
        at(1, 1) = cs;
      }
    }
  }
  SY_ASSIGN_OR_RETURN(Tensor twiddles, FromDoubles(type.dtype, {rows * c, cols * parts}, w));
  const ValueId w_id = ctx.state().AddConstant(twiddles, ctx.node().output(0) + "/twiddles");
  SY_ASSIGN_OR_RETURN(ValueId y, ctx.Emit1("matmul", {signal, w_id}));
  std::vector<int64_t> shaped(rank - 2, 0);
  shaped.push_back(cols);
  shaped.push_back(parts);
  return EmitReshape(ctx, y, shaped);
}

// A static size along `axis` of x, or an error naming what needs it.
Expected<int64_t> StaticDim(NodeContext& ctx, ValueId x, size_t axis, std::string_view what) {
  const std::vector<DimExpr> dims = ctx.state().DimsOfValue(x);
  if (axis < dims.size() && !dims[axis].is_const()) {
    return ctx.UnsupportedOp(std::string(what) + " needs the signal's length (dim " +
                             std::to_string(axis) + ") fixed at import");
  }
  return ctx.TypeOf(x).shape[axis];
}

Status MapDft(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(ValueId x, ctx.Input(0));
  const TensorType type = ctx.TypeOf(x);
  const int64_t rank = static_cast<int64_t>(type.shape.size());
  if (rank < 2) return ctx.Invalid("input must have rank >= 2 ([..., signal, 1 or 2])");
  if (!IsFloat(type.dtype)) return ctx.Invalid("input must be a float tensor");
  int64_t axis = ctx.AttrInt("axis", 1);
  if (ctx.since_version() >= 20) {
    axis = -2;
    if (ctx.HasInput(2)) {
      SY_ASSIGN_OR_RETURN(double a, ctx.StaticScalar(2, "axis"));
      axis = static_cast<int64_t>(a);
    }
  }
  if (axis < -rank || axis >= rank) return ctx.Invalid("axis is out of range");
  if (axis < 0) axis += rank;
  if (axis == rank - 1) {
    return ctx.Invalid("axis is the last dim, which holds the real and imaginary parts");
  }
  DftSpec spec;
  spec.inverse = ctx.AttrInt("inverse", 0) != 0;
  spec.onesided = ctx.AttrInt("onesided", 0) != 0;
  SY_ASSIGN_OR_RETURN(const int64_t m_in, StaticDim(ctx, x, static_cast<size_t>(axis), "DFT"));
  spec.length = spec.inverse && spec.onesided ? 2 * (m_in - 1) : m_in;
  if (ctx.HasInput(1)) {
    SY_ASSIGN_OR_RETURN(double length, ctx.StaticScalar(1, "dft_length"));
    spec.length = static_cast<int64_t>(length);
  }
  // The signal axis moved next to the last dim, and back afterwards.
  std::vector<int64_t> perm;
  for (int64_t d = 0; d < rank - 1; ++d) {
    if (d != axis) perm.push_back(d);
  }
  perm.push_back(axis);
  perm.push_back(rank - 1);
  const bool moved = axis != rank - 2;
  if (moved) {
    SY_ASSIGN_OR_RETURN(x, EmitTranspose(ctx, x, perm));
  }
  SY_ASSIGN_OR_RETURN(ValueId y, EmitDft(ctx, x, spec));
  if (moved) {
    std::vector<int64_t> back(perm.size());
    for (size_t i = 0; i < perm.size(); ++i)
      back[static_cast<size_t>(perm[i])] = static_cast<int64_t>(i);
    SY_ASSIGN_OR_RETURN(y, EmitTranspose(ctx, y, back));
  }
  ctx.SetOutput(0, y);
  return Status::Ok();
}

Status MapStft(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(ValueId x, ctx.Input(0));
  const TensorType type = ctx.TypeOf(x);
  if (type.shape.size() != 3 || !IsFloat(type.dtype)) {
    return ctx.Invalid("signal must be a float [batch, length, 1 or 2], not " +
                       ShapeToString(type.shape));
  }
  SY_ASSIGN_OR_RETURN(const int64_t length, StaticDim(ctx, x, 1, "STFT"));
  SY_ASSIGN_OR_RETURN(double step_value, ctx.StaticScalar(1, "frame_step"));
  const auto step = static_cast<int64_t>(step_value);
  if (step < 1) return ctx.Invalid("frame_step must be >= 1");
  std::optional<ValueId> window;
  int64_t frame_length = length;
  if (ctx.HasInput(2)) {
    SY_ASSIGN_OR_RETURN(ValueId win, ctx.Input(2));
    const Shape ws = ctx.TypeOf(win).shape;
    if (ws.size() != 1) return ctx.Invalid("window must be 1-D");
    SY_ASSIGN_OR_RETURN(win, CastTo(ctx, win, type.dtype));
    window = win;
    frame_length = ws[0];
  }
  if (ctx.HasInput(3)) {
    SY_ASSIGN_OR_RETURN(double fl, ctx.StaticScalar(3, "frame_length"));
    frame_length = static_cast<int64_t>(fl);
  }
  if (window && ctx.TypeOf(*window).shape[0] != frame_length) {
    return ctx.Invalid("window's length differs from frame_length " + std::to_string(frame_length));
  }
  if (frame_length < 1 || frame_length > length) {
    return ctx.Invalid("frame_length " + std::to_string(frame_length) +
                       " must be in [1, the signal's length " + std::to_string(length) + "]");
  }
  const int64_t frames = 1 + (length - frame_length) / step;
  if (frames * frame_length > kMaxTwiddles) return ctx.UnsupportedOp("too many frame samples");
  std::vector<double> index(static_cast<size_t>(frames * frame_length));
  for (int64_t f = 0; f < frames; ++f) {
    for (int64_t i = 0; i < frame_length; ++i) {
      index[static_cast<size_t>(f * frame_length + i)] = static_cast<double>(f * step + i);
    }
  }
  SY_ASSIGN_OR_RETURN(Tensor table, FromDoubles(DType::kI64, {frames, frame_length}, index));
  const ValueId table_id = ctx.state().AddConstant(table, ctx.node().output(0) + "/frames");
  Attrs gather;
  gather.Set("axis", int64_t{1});
  SY_ASSIGN_OR_RETURN(ValueId framed, ctx.Emit1("gather", {x, table_id}, std::move(gather)));
  if (window) {  // [batch, frames, frame_length, c] times window[frame_length, 1]
    SY_ASSIGN_OR_RETURN(ValueId w, EmitReshape(ctx, *window, {frame_length, 1}));
    SY_ASSIGN_OR_RETURN(framed, ctx.Emit1("mul", {framed, w}));
  }
  DftSpec spec;
  spec.length = frame_length;
  spec.onesided = ctx.AttrInt("onesided", 1) != 0;
  SY_ASSIGN_OR_RETURN(ValueId y, EmitDft(ctx, framed, spec));
  ctx.SetOutput(0, y);
  return Status::Ok();
}

Status MapMelWeightMatrix(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(double mel_bins_value, ctx.StaticScalar(0, "num_mel_bins"));
  SY_ASSIGN_OR_RETURN(double dft_length_value, ctx.StaticScalar(1, "dft_length"));
  SY_ASSIGN_OR_RETURN(double sample_rate, ctx.StaticScalar(2, "sample_rate"));
  SY_ASSIGN_OR_RETURN(double lower, ctx.StaticScalar(3, "lower_edge_hertz"));
  SY_ASSIGN_OR_RETURN(double upper, ctx.StaticScalar(4, "upper_edge_hertz"));
  const auto mel_bins = static_cast<int64_t>(mel_bins_value);
  const auto dft_length = static_cast<int64_t>(dft_length_value);
  if (mel_bins < 1 || dft_length < 1 || !(sample_rate > 0) || mel_bins > (1 << 16) ||
      dft_length > (1 << 24)) {
    return ctx.Invalid("num_mel_bins, dft_length and sample_rate must be positive (and sane)");
  }
  SY_ASSIGN_OR_RETURN(DType dtype,
                      DTypeParam(ctx, ctx.AttrInt("output_datatype", 1), "output_datatype"));
  const int64_t spectrogram_bins = dft_length / 2 + 1;
  if (spectrogram_bins * mel_bins > kMaxTwiddles) {
    return ctx.UnsupportedOp("the mel weight matrix is above 2^24 entries");
  }
  // Mel-spaced edges (2595 log10(1 + f / 700)), back to Hz, then to spectrogram bins.
  const double low_mel = 2595 * std::log1p(lower / 700) / std::log(10.0);
  const double high_mel = 2595 * std::log1p(upper / 700) / std::log(10.0);
  const double mel_step = (high_mel - low_mel) / static_cast<double>(mel_bins + 2);
  std::vector<int64_t> edge(static_cast<size_t>(mel_bins + 2));
  for (int64_t i = 0; i < mel_bins + 2; ++i) {
    const double mel = static_cast<double>(i) * mel_step + low_mel;
    const double hz = 700 * std::expm1(mel / 2595 * std::log(10.0));
    edge[static_cast<size_t>(i)] =
        static_cast<int64_t>(std::floor(static_cast<double>(dft_length + 1) * hz / sample_rate));
  }
  std::vector<double> out(static_cast<size_t>(spectrogram_bins * mel_bins), 0.0);
  auto set = [&](int64_t row, int64_t col, double v) -> Status {
    if (row < 0 || row >= spectrogram_bins) {
      return ctx.Invalid("the mel filter edges reach bin " + std::to_string(row) +
                         ", outside the " + std::to_string(spectrogram_bins) +
                         " spectrogram bins (check the edge frequencies and sample_rate)");
    }
    out[static_cast<size_t>(row * mel_bins + col)] = v;
    return Status::Ok();
  };
  for (int64_t i = 0; i < mel_bins; ++i) {
    const int64_t left = edge[static_cast<size_t>(i)];
    const int64_t centre = edge[static_cast<size_t>(i + 1)];
    const int64_t right = edge[static_cast<size_t>(i + 2)];
    if (centre == left) {
      SY_RETURN_IF_ERROR(set(centre, i, 1.0));
    } else {
      for (int64_t j = left; j <= centre; ++j) {
        SY_RETURN_IF_ERROR(
            set(j, i, static_cast<double>(j - left) / static_cast<double>(centre - left)));
      }
    }
    for (int64_t j = centre; j < right; ++j) {
      SY_RETURN_IF_ERROR(
          set(j, i, static_cast<double>(right - j) / static_cast<double>(right - centre)));
    }
  }
  SY_ASSIGN_OR_RETURN(Tensor matrix, FromDoubles(dtype, {spectrogram_bins, mel_bins}, out));
  ctx.SetOutputConstant(0, std::move(matrix));
  return Status::Ok();
}

}  // namespace

void AddSpectralMappings(MappingTable& table) {
  table.At("DFT").map = MapDft;
  table.At("STFT").map = MapStft;
  table.At("MelWeightMatrix").map = MapMelWeightMatrix;
}

}  // namespace sy::onnx_import
