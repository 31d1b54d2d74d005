// ONNX ops of image geometry, each as a product with a constant built at import:
// - AffineGrid (opset 20): the normalised coordinates of every output position, (x, y, 1)
//   or (x, y, z, 1), as a constant [P, 3 or 4] matrix; the grid is that matrix times each
//   theta transposed (a batched `matmul`), reshaped to [N, (D,) H, W, 2 or 3]. The size
//   input must be known at import.
// - Col2Im (opset 18): summing sliding blocks back into an image is a grouped
//   `conv_transpose` of the columns (viewed as [N, C * K, L1, L2, ...]) with a one-hot
//   kernel [C * K, 1, k1, k2, ...] (block element k of channel c goes to kernel position
//   k), group C, the op's strides, dilations and pads; output padding makes up the sizes
//   the strides do not reach.
#include "host_tensor_ops.h"
#include "op_mapping.h"
#include "switchyard/shape.h"

namespace sy::onnx_import {
namespace {

// The normalised coordinates of n positions: -1 .. 1 inclusive with align_corners, else
// the centres of n equal cells of [-1, 1] (ONNX's reference).
std::vector<double> Coordinates(int64_t n, bool align_corners) {
  std::vector<double> c(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    c[static_cast<size_t>(i)] =
        align_corners
            ? (n == 1 ? -1.0 : -1.0 + 2.0 * static_cast<double>(i) / static_cast<double>(n - 1))
            : -1.0 + (2.0 * static_cast<double>(i) + 1.0) / static_cast<double>(n);
  }
  return c;
}

Status MapAffineGrid(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(ValueId theta, ctx.Input(0));
  SY_ASSIGN_OR_RETURN(std::vector<int64_t> size, ctx.StaticInts(1, "size"));
  const TensorType type = ctx.TypeOf(theta);
  if (size.size() != 4 && size.size() != 5) {
    return ctx.Invalid("size must be [N, C, H, W] or [N, C, D, H, W]");
  }
  const size_t spatial = size.size() - 2;
  if (type.shape.size() != 3 || type.shape[1] != static_cast<int64_t>(spatial) ||
      type.shape[2] != static_cast<int64_t>(spatial) + 1) {
    return ctx.Invalid("theta must be [N, " + std::to_string(spatial) + ", " +
                       std::to_string(spatial + 1) + "], not " + ShapeToString(type.shape));
  }
  if (type.shape[0] != size[0]) {
    return ctx.Invalid("theta's batch " + std::to_string(type.shape[0]) + " differs from size's " +
                       std::to_string(size[0]));
  }
  const bool align = ctx.AttrInt("align_corners", 0) != 0;
  // Spatial sizes outermost first (D, H, W); the coordinates innermost first (x of W).
  std::vector<std::vector<double>> axes;
  Shape out_spatial;
  for (size_t d = 0; d < spatial; ++d) {
    const int64_t n = size[d + 2];
    if (n < 0) return ctx.Invalid("size holds a negative dim");
    axes.push_back(Coordinates(n, align));
    out_spatial.push_back(n);
  }
  SY_ASSIGN_OR_RETURN(const int64_t points, CheckedElementCount(out_spatial));
  if (points > (int64_t{1} << 26)) return ctx.UnsupportedOp("the grid is too large to tabulate");
  const size_t width = spatial + 1;
  std::vector<double> base(static_cast<size_t>(points) * width);
  for (int64_t p = 0; p < points; ++p) {
    int64_t rest = p;
    std::vector<double> coord(spatial);
    for (size_t d = spatial; d-- > 0;) {
      const int64_t n = out_spatial[d];
      coord[d] = axes[d][static_cast<size_t>(rest % n)];
      rest /= n;
    }
    double* row = &base[static_cast<size_t>(p) * width];
    for (size_t d = 0; d < spatial; ++d) row[d] = coord[spatial - 1 - d];  // x first
    row[spatial] = 1.0;
  }
  SY_ASSIGN_OR_RETURN(Tensor grid,
                      FromDoubles(type.dtype, {points, static_cast<int64_t>(width)}, base));
  const ValueId grid_id = ctx.state().AddConstant(grid, ctx.node().output(0) + "/base_grid");
  Attrs perm;
  perm.Set("perm", std::vector<int64_t>{0, 2, 1});
  SY_ASSIGN_OR_RETURN(ValueId theta_t, ctx.Emit1("transpose", {theta}, std::move(perm)));
  SY_ASSIGN_OR_RETURN(ValueId flat, ctx.Emit1("matmul", {grid_id, theta_t}));  // [N, P, s]
  std::vector<int64_t> shape{size[0]};
  shape.insert(shape.end(), out_spatial.begin(), out_spatial.end());
  shape.push_back(static_cast<int64_t>(spatial));
  Attrs reshape;
  reshape.Set("shape", shape);
  SY_ASSIGN_OR_RETURN(ValueId out, ctx.Emit1("reshape", {flat}, std::move(reshape)));
  ctx.SetOutput(0, out);
  return Status::Ok();
}

Status MapCol2Im(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(ValueId x, ctx.Input(0));
  SY_ASSIGN_OR_RETURN(std::vector<int64_t> image, ctx.StaticInts(1, "image_shape"));
  SY_ASSIGN_OR_RETURN(std::vector<int64_t> block, ctx.StaticInts(2, "block_shape"));
  const TensorType type = ctx.TypeOf(x);
  const std::vector<DimExpr> dims = ctx.state().DimsOfValue(x);
  const size_t spatial = image.size();
  if (type.shape.size() != 3 || spatial == 0 || block.size() != spatial) {
    return ctx.Invalid(
        "needs input [N, C * prod(block_shape), L] and image_shape and "
        "block_shape of one length");
  }
  if (!dims[1].is_const() || !dims[2].is_const()) {
    return ctx.UnsupportedOp("Col2Im needs its input's dims 1 and 2 fixed at import");
  }
  if (!IsFloat(type.dtype)) {
    return ctx.UnsupportedOp("Col2Im of " + std::string(DTypeName(type.dtype)) +
                             " (the catalogue's conv_transpose takes floats)");
  }
  const auto ints = [&](std::string_view name, size_t n, int64_t fallback) {
    return ctx.AttrInts(name).value_or(std::vector<int64_t>(n, fallback));
  };
  const std::vector<int64_t> strides = ints("strides", spatial, 1);
  const std::vector<int64_t> dilations = ints("dilations", spatial, 1);
  const std::vector<int64_t> pads = ints("pads", 2 * spatial, 0);
  if (strides.size() != spatial || dilations.size() != spatial || pads.size() != 2 * spatial) {
    return ctx.Invalid("strides, dilations or pads do not match image_shape");
  }
  int64_t k = 1, l = 1;
  std::vector<int64_t> blocks, output_padding;
  for (size_t d = 0; d < spatial; ++d) {
    if (block[d] <= 0 || strides[d] <= 0 || dilations[d] <= 0 || image[d] <= 0) {
      return ctx.Invalid("image_shape, block_shape, strides and dilations must be positive");
    }
    const int64_t span = dilations[d] * (block[d] - 1) + 1;
    const int64_t n = (image[d] + pads[d] + pads[d + spatial] - span) / strides[d] + 1;
    if (n <= 0) return ctx.Invalid("no block fits in the padded image");
    blocks.push_back(n);
    output_padding.push_back(image[d] -
                             ((n - 1) * strides[d] + span - pads[d] - pads[d + spatial]));
    k *= block[d];
    l *= n;
  }
  if (type.shape[1] % k != 0 || type.shape[2] != l) {
    return ctx.Invalid("input " + ShapeToString(type.shape) + " does not hold C * " +
                       std::to_string(k) + " rows of " + std::to_string(l) + " blocks");
  }
  const int64_t channels = type.shape[1] / k;
  std::vector<int64_t> view{0, type.shape[1]};
  view.insert(view.end(), blocks.begin(), blocks.end());
  Attrs reshape;
  reshape.Set("shape", view);
  SY_ASSIGN_OR_RETURN(ValueId columns, ctx.Emit1("reshape", {x}, std::move(reshape)));
  // Kernel [C * K, 1, block...]: row c * K + j is 1 at block element j.
  Shape kernel_shape{channels * k, 1};
  kernel_shape.insert(kernel_shape.end(), block.begin(), block.end());
  SY_ASSIGN_OR_RETURN(const int64_t kernel_count, CheckedElementCount(kernel_shape));
  if (kernel_count > (int64_t{1} << 26)) return ctx.UnsupportedOp("the block kernel is too large");
  std::vector<double> kernel(static_cast<size_t>(kernel_count), 0.0);
  for (int64_t row = 0; row < channels * k; ++row) {
    kernel[static_cast<size_t>(row * k + row % k)] = 1.0;
  }
  SY_ASSIGN_OR_RETURN(Tensor w, FromDoubles(type.dtype, kernel_shape, kernel));
  const ValueId w_id = ctx.state().AddConstant(w, ctx.node().output(0) + "/one_hot_kernel");
  Attrs attrs;
  attrs.Set("strides", strides);
  attrs.Set("dilations", dilations);
  attrs.Set("pads", pads);
  attrs.Set("group", channels);
  attrs.Set("output_padding", output_padding);
  SY_ASSIGN_OR_RETURN(ValueId out, ctx.Emit1("conv_transpose", {columns, w_id}, std::move(attrs)));
  ctx.SetOutput(0, out);
  return Status::Ok();
}

}  // namespace

void AddGeometryMappings(MappingTable& table) {
  table.At("AffineGrid").map = MapAffineGrid;
  table.At("Col2Im").map = MapCol2Im;
}

}  // namespace sy::onnx_import
