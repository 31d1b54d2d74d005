// The op tag table (switchyard/op_tags.h). Append only: a new op takes the next free tag
// at the end, and no line here is ever edited or removed (tests/data/op_tags.txt and
// op_tags_test hold the table to that). Comments give seed 000's name where the tag is
// the seed's.
#include "switchyard/op_tags.h"

#include <algorithm>
#include <array>

namespace sy {
namespace {

constexpr OpTag kTags[] = {
    {0, "matmul"},             // seed 000: Matmul
    {1, "add"},                // seed 000: Add
    {2, "mul"},                // seed 000: Mul
    {3, "sub"},                // seed 000: Sub
    {4, "div"},                // seed 000: Div
    {5, "transpose"},          // seed 000: Transpose
    {6, "reshape"},            // seed 000: Reshape
    {8, "concat"},             // seed 000: Concat
    {9, "split"},              // seed 000: Split
    {11, "clip"},              // seed 000: Clamp
    {20, "attention"},         // seed 000: Sdpa
    {23, "cache_write"},       // seed 000: KvCache
    {26, "rotary_embedding"},  // seed 000: Rope
    {40, "rms_norm"},          // seed 000: RmsNorm
    {41, "layer_norm"},        // seed 000: LayerNorm
    {42, "batch_norm"},        // seed 000: BatchNorm
    {43, "group_norm"},        // seed 000: GroupNorm
    {44, "instance_norm"},     // seed 000: InstanceNorm
    {60, "silu"},              // seed 000: Silu
    {61, "gelu"},              // seed 000: Gelu
    {65, "relu"},              // seed 000: Relu
    {66, "leaky_relu"},        // seed 000: LeakyRelu
    {67, "prelu"},             // seed 000: PRelu
    {68, "sigmoid"},           // seed 000: Sigmoid
    {69, "tanh"},              // seed 000: Tanh
    {70, "softmax"},           // seed 000: Softmax
    {144, "sample"},           // seed 000: Sample
    {181, "add_layer_norm"},   // seed 000: FusedSkipNorm
    {199, "argmax"},           // seed 000: Argmax
    {200, "abs"},
    {201, "acos"},
    {202, "acosh"},
    {203, "and"},
    {204, "argmin"},
    {205, "asin"},
    {206, "asinh"},
    {207, "atan"},
    {208, "atanh"},
    {209, "avg_pool"},
    {210, "bit_shift"},
    {211, "bitcast"},
    {212, "bitwise_and"},
    {213, "bitwise_not"},
    {214, "bitwise_or"},
    {215, "bitwise_xor"},
    {216, "cast"},
    {217, "ceil"},
    {218, "compress"},
    {219, "conv"},
    {220, "conv_transpose"},
    {221, "cos"},
    {222, "cumprod"},
    {223, "cumsum"},
    {224, "deform_conv"},
    {225, "depth_to_space"},
    {226, "det"},
    {227, "elu"},
    {228, "equal"},
    {229, "erf"},
    {230, "exp"},
    {231, "expand"},
    {232, "floor"},
    {233, "fused_conv"},
    {234, "fused_matmul"},
    {235, "gather"},
    {236, "gather_elements"},
    {237, "gather_nd"},
    {238, "gemm"},
    {239, "global_avg_pool"},
    {240, "greater"},
    {241, "greater_equal"},
    {242, "grid_sample"},
    {243, "hard_sigmoid"},
    {244, "hard_swish"},
    {245, "less"},
    {246, "less_equal"},
    {247, "linear_attention"},
    {248, "log"},
    {249, "log_softmax"},
    {250, "matmul_integer"},
    {251, "max"},
    {252, "max_pool"},
    {253, "min"},
    {254, "mish"},
    {255, "mod"},
    {256, "neg"},
    {257, "non_max_suppression"},
    {258, "non_zero"},
    {259, "not"},
    {260, "or"},
    {261, "pad"},
    {262, "pow"},
    {263, "quant_matmul"},
    {264, "random_normal"},
    {265, "random_uniform"},
    {266, "range"},
    {267, "reciprocal"},
    {268, "reduce_max"},
    {269, "reduce_mean"},
    {270, "reduce_min"},
    {271, "reduce_prod"},
    {272, "reduce_sum"},
    {273, "resize"},
    {274, "roi_align"},
    {275, "round"},
    {276, "rsqrt"},
    {277, "scatter_elements"},
    {278, "scatter_nd"},
    {279, "selu"},
    {280, "sign"},
    {281, "sin"},
    {282, "slice"},
    {283, "softplus"},
    {284, "softsign"},
    {285, "space_to_depth"},
    {286, "sqrt"},
    {287, "tan"},
    {288, "tfidf_vectorizer"},
    {289, "tile"},
    {290, "topk"},
    {291, "tree_ensemble"},
    {292, "trilu"},
    {293, "unique"},
    {294, "where"},
    {295, "xor"},
    {296, "qlinear_conv"},
};

constexpr bool SortedAndUnique() {
  for (size_t i = 1; i < std::size(kTags); ++i) {
    if (kTags[i - 1].tag >= kTags[i].tag) return false;
  }
  return true;
}
static_assert(SortedAndUnique(), "op tags must be listed in increasing order, each once");

// Names sorted, for lookup by name; built once.
struct ByName {
  std::array<OpTag, std::size(kTags)> entries;
  ByName() {
    std::copy(std::begin(kTags), std::end(kTags), entries.begin());
    std::sort(entries.begin(), entries.end(),
              [](const OpTag& a, const OpTag& b) { return a.op < b.op; });
  }
};

}  // namespace

std::span<const OpTag> OpTagTable() { return kTags; }

std::optional<uint16_t> FindOpTag(std::string_view op) {
  static const ByName by_name;
  const auto it =
      std::lower_bound(by_name.entries.begin(), by_name.entries.end(), op,
                       [](const OpTag& entry, std::string_view name) { return entry.op < name; });
  if (it == by_name.entries.end() || it->op != op) return std::nullopt;
  return it->tag;
}

std::string_view OpOfTag(uint16_t tag) {
  const auto it =
      std::lower_bound(std::begin(kTags), std::end(kTags), tag,
                       [](const OpTag& entry, uint16_t wanted) { return entry.tag < wanted; });
  if (it == std::end(kTags) || it->tag != tag) return {};
  return it->op;
}

}  // namespace sy
