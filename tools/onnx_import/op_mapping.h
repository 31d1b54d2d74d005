// The table of ONNX ops the importer knows: for each, how to fold it on the host and how
// to map it onto catalogue ops. Each family registers its ops from its own file
// (fold_shape_ops.cpp, map_elementwise.cpp, map_movement.cpp, map_reductions.cpp,
// map_neural.cpp).
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "import_context.h"

namespace sy::onnx_import {

// The schema versions (since_version, onnx_schemas.h) a mapping was written and checked
// for, first to last. A model whose op resolves to a version no mapping claims is refused
// with the op, its domain and version; the coverage test (tests/unit/onnx_import/
// op_coverage_test.cpp) lists every tabled version that no mapping claims, so that a
// regenerated table with a newer opset shows each new version to be checked.
struct VersionRange {
  int64_t first = 1;
  int64_t last = 1;
  bool Contains(int64_t v) const { return v >= first && v <= last; }
};

// The default-domain opset every mapping registered without a range has been checked
// against (onnx 1.23's opset 28: docs/onnx-import.md lists what its versions 24 to 28
// changed and how each mapping takes it). Registering with All() claims every version
// up to it.
constexpr int64_t kMappingsCheckedThrough = 28;

struct OpMapping {
  // Emits catalogue nodes for the node (null: the op is only ever folded).
  OpMapper map = nullptr;
  // Evaluates the node on the host, binding constant outputs. Tried first when every
  // present input is a constant, or always when fold_needs_values is false (Shape, Size
  // and EyeLike only need their input's static type).
  OpMapper fold = nullptr;
  bool fold_needs_values = true;
};

// (domain, op) -> the mappings of its versions. The key is the op's name for the default
// domain and "domain:Op" for others ("com.microsoft:FastGelu").
class MappingTable {
 public:
  // The mapping of versions `versions` of `op` (created on first use). Every
  // registration of one op must claim the same range or disjoint ones.
  OpMapping& At(std::string_view op, VersionRange versions = All());
  // The mapping that handles version `since_version` of op `key`, or null.
  const OpMapping* Find(std::string_view key, int64_t since_version) const;
  // The ranges registered for `key` (empty when none).
  std::vector<VersionRange> Ranges(std::string_view key) const;
  bool Knows(std::string_view key) const { return entries_.count(key) != 0; }
  std::vector<std::string> Keys() const;
  static VersionRange All() { return {1, kMappingsCheckedThrough}; }

 private:
  std::map<std::string, std::vector<std::pair<VersionRange, OpMapping>>, std::less<>> entries_;
};

// The table key of an op: its name, or "domain:name" outside the default domain.
std::string MappingKey(std::string_view domain, std::string_view op);

void AddShapeFolds(MappingTable& table);
void AddElementwiseMappings(MappingTable& table);
void AddMovementMappings(MappingTable& table);
void AddReductionMappings(MappingTable& table);
void AddNeuralMappings(MappingTable& table);
void AddAttentionMappings(MappingTable& table);
void AddFlexAttentionMappings(MappingTable& table);
void AddRandomMappings(MappingTable& table);
void AddTrainingMappings(MappingTable& table);
void AddImageMappings(MappingTable& table);
void AddScatterLikeMappings(MappingTable& table);
void AddGeometryMappings(MappingTable& table);
void AddConvPoolMappings(MappingTable& table);
void AddLossMappings(MappingTable& table);
void AddQuantizationMappings(MappingTable& table);
void AddEinsumMappings(MappingTable& table);
void AddRecurrentMappings(MappingTable& table);
void AddSelectionMappings(MappingTable& table);
void AddContribMappings(MappingTable& table);
void AddContribAttentionMappings(MappingTable& table);
void AddSpectralMappings(MappingTable& table);
void AddControlFlowMappings(MappingTable& table);
void AddMlMappings(MappingTable& table);
void AddTreeEnsembleMappings(MappingTable& table);  // map_tree_ensemble.cpp, from AddMlMappings

// The ONNX ops mapped one to one (map_elementwise.cpp) and their catalogue ops, read from
// the catalogue's schemas (OpSchema::onnx_name), the one place that pairs the names. An
// entry no schema names has an empty catalogue op (op_coverage_test fails on it).
const std::map<std::string, std::string, std::less<>>& DirectOps();

// The whole table, built once.
const MappingTable& Mappings();

// Helpers shared by folds and mappings (op_params.cpp): how ONNX's versions pass the
// same parameter (attribute in early opsets, input later) resolved to one answer.

// Axes from input `input` when opset >= `input_since`, else from attribute "axes"; empty
// when absent (which every ONNX op taking axes treats like an empty list).
Expected<std::vector<int64_t>> AxesParam(NodeContext& ctx, size_t input, int64_t input_since);
// The output shape of Squeeze / Unsqueeze / Flatten / Reshape for the node's input 0.
Expected<Shape> SqueezeShape(NodeContext& ctx);
Expected<Shape> UnsqueezeShape(NodeContext& ctx);
Expected<Shape> FlattenShape(NodeContext& ctx);
Expected<Shape> ReshapeShape(NodeContext& ctx);
struct SliceParams {
  std::vector<int64_t> starts, ends, axes, steps;
};
Expected<SliceParams> SliceParamsOf(NodeContext& ctx);
// A catalogue conv of x and w (and bias) with the node's Conv attributes (auto_pad,
// strides, pads, dilations, group) resolved; shared by Conv and the quantized convs.
Expected<ValueId> EmitConv(NodeContext& ctx, ValueId x, ValueId w, std::optional<ValueId> bias);
// qlinear_conv over `inputs` in QLinearConv's order (x, x_scale, x_zero_point, w, w_scale,
// w_zero_point, y_scale, y_zero_point[, bias]), with Conv's window (auto_pad resolved).
Expected<ValueId> EmitQLinearConv(NodeContext& ctx, const std::vector<ValueId>& inputs);
// The node's AveragePool of x (its window attributes: kernel_shape, strides, pads or
// auto_pad, dilations, ceil_mode, count_include_pad), as map_conv_pool.cpp maps AveragePool.
Expected<ValueId> EmitAveragePool(NodeContext& ctx, ValueId x);
// The statistics of a norm over axes [axis, rank) of x, dims kept: the mean (centred only)
// and 1 / sqrt(variance + epsilon), the variance taken about the mean when `centred`, else
// the mean square (RMS norms). For the optional outputs of LayerNormalization and its
// relatives (map_neural.cpp, map_contrib.cpp).
struct NormStats {
  ValueId mean = -1;
  ValueId inv_std_dev = -1;
};
Expected<NormStats> EmitNormStats(NodeContext& ctx, ValueId x, int64_t axis, double epsilon,
                                  bool centred);
// x reshaped to `shape` (the catalogue's reshape: 0 copies a dim, -1 is inferred); x
// itself when it has that shape already.
Expected<ValueId> EmitReshape(NodeContext& ctx, ValueId x, std::vector<int64_t> shape);
// x with its dims permuted by `perm`.
Expected<ValueId> EmitTranspose(NodeContext& ctx, ValueId x, std::vector<int64_t> perm);
// x cast to `to` (x itself when it has that dtype already).
Expected<ValueId> CastTo(NodeContext& ctx, ValueId x, DType to);
// Identity, and Dropout (in inference its input; in training mode random drops): the
// mapping, also called by Dropout's fold when training mode is on (map_elementwise.cpp).
Status MapAlias(NodeContext& ctx);
// Numbers in [0, 1) of `dtype` (float), like's shape, from the node's seed (map_random.cpp).
Expected<ValueId> EmitRandomUniform(NodeContext& ctx, ValueId like, DType dtype);
// The rml-graph dtype for an ONNX `to` attribute / type code, or an unsupported-type error.
Expected<DType> DTypeParam(NodeContext& ctx, int64_t onnx_type, std::string_view what);

}  // namespace sy::onnx_import
