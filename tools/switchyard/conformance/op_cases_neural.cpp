// Op cases of resize, depth_to_space, space_to_depth, attention, rotary_embedding and
// grid_sample.
#include <optional>
#include <string>

#include "conformance/op_cases_internal.h"

namespace sy::conformance::detail {
namespace {

Attrs Resize(std::string mode, std::vector<double> scales, std::vector<int64_t> sizes = {},
             std::string coordinate = "", std::string nearest = "") {
  Attrs a;
  if (mode != "nearest") a.Set("mode", Str(std::move(mode)));
  if (!sizes.empty()) {
    a.Set("sizes", Ints(std::move(sizes)));
  } else {
    a.Set("scales", Floats(std::move(scales)));
  }
  if (!coordinate.empty()) a.Set("coordinate_transformation_mode", Str(std::move(coordinate)));
  if (!nearest.empty()) a.Set("nearest_mode", Str(std::move(nearest)));
  return a;
}

// Mode cubic, with cubic_coeff_a and exclude_outside when they differ from the defaults.
Attrs Cubic(std::vector<double> scales, std::vector<int64_t> sizes = {},
            std::string coordinate = "", double a = -0.75, int64_t exclude_outside = 0) {
  Attrs attrs = Resize("cubic", std::move(scales), std::move(sizes), std::move(coordinate));
  if (a != -0.75) attrs.Set("cubic_coeff_a", F(a));
  if (exclude_outside != 0) attrs.Set("exclude_outside", I(exclude_outside));
  return attrs;
}

// Resize-18/19's extensions: antialias (linear, cubic), tf_crop_and_resize with its roi and
// extrapolation_value, half_pixel_symmetric, and scales given with sizes.
Attrs Antialias(std::string mode, std::vector<double> scales, std::vector<int64_t> sizes = {}) {
  Attrs a = Resize(std::move(mode), std::move(scales), std::move(sizes));
  a.Set("antialias", I(1));
  return a;
}
Attrs Crop(std::string mode, std::vector<int64_t> sizes, std::vector<double> roi,
           double extrapolation) {
  Attrs a = Resize(std::move(mode), {}, std::move(sizes), "tf_crop_and_resize");
  a.Set("roi", Floats(std::move(roi)));
  if (extrapolation != 0) a.Set("extrapolation_value", F(extrapolation));
  return a;
}
Attrs ScalesAndSizes(std::string mode, std::vector<double> scales, std::vector<int64_t> sizes) {
  Attrs a = Resize(std::move(mode), std::move(scales));
  a.Set("sizes", Ints(std::move(sizes)));
  return a;
}

// resize. Nearest cases pick scales whose coordinates are exact in any float precision
// (powers of two) or stay far from rounding ties, so that the neighbour chosen does not
// depend on how a plugin computes the coordinate; ties that are exact (asymmetric x / 2)
// test the nearest modes. Linear cases may be inexact: their weights are compared under
// a tolerance; so may cubic ones (weights of either sign, up to 16 taps in 2-D).
std::vector<OpCase> ResizeCases() {
  struct R {
    std::string label;
    Shape x;
    Attrs attrs;
  };
  const Shape x = {1, 2, 5, 7};
  const std::vector<R> cases = {
      {"[1,2,5,7] nearest scales=[1,1,2,2]", x, Resize("nearest", {1, 1, 2, 2})},
      {"[1,2,5,7] nearest scales=[1,1,2,4] asymmetric floor", x,
       Resize("nearest", {1, 1, 2, 4}, {}, "asymmetric", "floor")},
      {"[1,2,5,7] nearest scales=[1,1,2,2] asymmetric ceil", x,
       Resize("nearest", {1, 1, 2, 2}, {}, "asymmetric", "ceil")},
      {"[1,2,5,7] nearest scales=[1,1,2,2] asymmetric round_prefer_ceil", x,
       Resize("nearest", {1, 1, 2, 2}, {}, "asymmetric", "round_prefer_ceil")},
      {"[1,2,5,7] nearest scales=[1,1,2,2] asymmetric", x,
       Resize("nearest", {1, 1, 2, 2}, {}, "asymmetric")},
      {"[1,2,5,7] nearest scales=[1,1,0.5,0.5]", x, Resize("nearest", {1, 1, 0.5, 0.5})},
      {"[1,2,5,7] nearest sizes=[1,2,9,11]", x, Resize("nearest", {}, {1, 2, 9, 11})},
      {"[1,2,5,7] nearest sizes=[1,2,9,11] round_prefer_ceil", x,
       Resize("nearest", {}, {1, 2, 9, 11}, "", "round_prefer_ceil")},
      {"[1,2,5,7] linear scales=[1,1,2,2]", x, Resize("linear", {1, 1, 2, 2})},
      {"[1,2,5,7] linear sizes=[1,2,9,11] align_corners", x,
       Resize("linear", {}, {1, 2, 9, 11}, "align_corners")},
      {"[1,2,5,7] linear scales=[1,1,0.75,0.75] asymmetric", x,
       Resize("linear", {1, 1, 0.75, 0.75}, {}, "asymmetric")},
      {"[1,2,5,7] linear sizes=[1,2,3,4]", x, Resize("linear", {}, {1, 2, 3, 4})},
      {"[3,5] linear scales=[2,1.5]", {3, 5}, Resize("linear", {2, 1.5})},
      {"[2,3,5] nearest sizes=[2,6,10]", {2, 3, 5}, Resize("nearest", {}, {2, 6, 10})},
      {"[1,1,7,13] linear sizes=[1,1,13,20]", {1, 1, 7, 13}, Resize("linear", {}, {1, 1, 13, 20})},
      {"[1,2,5,7] cubic scales=[1,1,2,2]", x, Cubic({1, 1, 2, 2})},
      {"[1,2,5,7] cubic sizes=[1,2,3,4] align_corners", x,
       Cubic({}, {1, 2, 3, 4}, "align_corners")},
      {"[1,2,5,7] cubic scales=[1,1,1.5,0.8] asymmetric a=-0.5 exclude_outside", x,
       Cubic({1, 1, 1.5, 0.8}, {}, "asymmetric", -0.5, 1)},
      {"[1,2,5,7] cubic sizes=[1,2,9,11] exclude_outside", x,
       Cubic({}, {1, 2, 9, 11}, "", -0.75, 1)},
      {"[3,5] cubic scales=[2,1.5] pytorch_half_pixel",
       {3, 5},
       Cubic({2, 1.5}, {}, "pytorch_half_pixel")},
      {"[1,2,5,7] cubic sizes=[1,2,1,9] pytorch_half_pixel", x,
       Cubic({}, {1, 2, 1, 9}, "pytorch_half_pixel")},
      {"[1,2,5,7] linear sizes=[1,2,1,9] pytorch_half_pixel", x,
       Resize("linear", {}, {1, 2, 1, 9}, "pytorch_half_pixel")},
      {"[1,2,5,7] nearest scales=[1,1,2,2] tf_half_pixel_for_nn", x,
       Resize("nearest", {1, 1, 2, 2}, {}, "tf_half_pixel_for_nn")},
      {"[1,2,5,7] linear sizes=[1,2,3,4] tf_half_pixel_for_nn", x,
       Resize("linear", {}, {1, 2, 3, 4}, "tf_half_pixel_for_nn")},
      {"[2,3,5] cubic scales=[1.5,2,0.6]", {2, 3, 5}, Cubic({1.5, 2, 0.6})},
      {"[1,1,7,13] cubic sizes=[1,1,13,20]", {1, 1, 7, 13}, Cubic({}, {1, 1, 13, 20})},
      {"scalar [] scales=[]", {}, Resize("nearest", {})},
      {"empty [0,2,5,7] scales=[1,1,2,2]", {0, 2, 5, 7}, Resize("nearest", {1, 1, 2, 2})},
      {"empty [1,2,5,7] sizes=[1,2,0,4]", x, Resize("linear", {}, {1, 2, 0, 4})},
      {"[1,2,9,13] linear antialias scales=[1,1,0.45,0.3]",
       {1, 2, 9, 13},
       Antialias("linear", {1, 1, 0.45, 0.3})},
      {"[1,2,9,13] cubic antialias sizes=[1,2,4,5]",
       {1, 2, 9, 13},
       Antialias("cubic", {}, {1, 2, 4, 5})},
      {"[1,2,5,7] linear antialias scales=[1,1,2,0.5]", x, Antialias("linear", {1, 1, 2, 0.5})},
      {"[1,2,5,7] linear tf_crop_and_resize sizes=[1,2,4,4] inside", x,
       Crop("linear", {1, 2, 4, 4}, {0, 0, 0.2, 0.1, 1, 1, 0.9, 0.7}, 0)},
      {"[1,2,5,7] cubic tf_crop_and_resize sizes=[1,2,3,6] extrapolation=-3", x,
       Crop("cubic", {1, 2, 3, 6}, {0, 0, -0.3, 0.5, 1, 1, 0.7, 1.4}, -3)},
      {"[1,2,5,7] nearest tf_crop_and_resize sizes=[1,2,4,4]", x,
       Crop("nearest", {1, 2, 4, 4}, {0, 0, 0.25, 0.5, 1, 1, 0.75, 1.5}, 0)},
      {"[1,2,5,7] linear scales=[1,1,1.7,2.3] half_pixel_symmetric", x,
       Resize("linear", {1, 1, 1.7, 2.3}, {}, "half_pixel_symmetric")},
      {"[1,2,5,7] nearest scales=[1,1,1.5,1.5] sizes=[1,2,8,11]", x,
       ScalesAndSizes("nearest", {1, 1, 1.5, 1.5}, {1, 2, 8, 11})},
  };
  CaseBuilder b("resize");
  for (DType d : SchemaDTypes("resize")) {
    for (const R& c : cases) b.Add(d, c.label, {In(d, c.x)}, c.attrs);
    // Nearest only copies, so NaN and infinities come through as they are. (Linear
    // weights of 0 meet infinities: 0 * inf is NaN unless the tap is skipped, which ONNX's
    // reference does not do and cpu-ref does; not something to hold plugins to.)
    b.Special(d, "special " + cases[0].label, {In(d, x)}, cases[0].attrs);
  }
  b.Large(DType::kF32, "1M [1,4,256,256] linear sizes=[1,4,512,512]",
          {In(DType::kF32, {1, 4, 256, 256})}, Resize("linear", {}, {1, 4, 512, 512}));
  return b.Take();
}

// depth_to_space / space_to_depth: every dtype; only elements move.
std::vector<OpCase> BlockCases(std::string_view op) {
  struct R {
    std::string label;
    Shape x;
    Attrs attrs;
  };
  auto block = [](int64_t size, std::string mode = "") {
    Attrs a = A({{"blocksize", I(size)}});
    if (!mode.empty()) a.Set("mode", Str(std::move(mode)));
    return a;
  };
  std::vector<R> cases;
  R large;
  if (op == "depth_to_space") {
    cases = {
        {"[1,8,3,5] b=2", {1, 8, 3, 5}, block(2)},
        {"[1,8,3,5] b=2 CRD", {1, 8, 3, 5}, block(2, "CRD")},
        {"[2,9,2,3] b=3", {2, 9, 2, 3}, block(3, "DCR")},
        {"[2,9,2,3] b=3 CRD", {2, 9, 2, 3}, block(3, "CRD")},
        {"[1,3,7,13] b=1", {1, 3, 7, 13}, block(1)},
        {"[1,4,1,1] b=2", {1, 4, 1, 1}, block(2)},
        {"[2,12,3,5] b=2 CRD", {2, 12, 3, 5}, block(2, "CRD")},
        {"empty [0,4,2,2] b=2", {0, 4, 2, 2}, block(2)},
        {"empty [1,4,0,3] b=2", {1, 4, 0, 3}, block(2)},
    };
    large = {"[1,64,128,128] b=2", {1, 64, 128, 128}, block(2)};
  } else {
    cases = {
        {"[1,2,6,10] b=2", {1, 2, 6, 10}, block(2)},
        {"[2,3,9,6] b=3", {2, 3, 9, 6}, block(3)},
        {"[1,3,7,13] b=1", {1, 3, 7, 13}, block(1)},
        {"[1,1,2,2] b=2", {1, 1, 2, 2}, block(2)},
        {"[2,5,4,14] b=2", {2, 5, 4, 14}, block(2)},
        {"empty [0,2,4,4] b=2", {0, 2, 4, 4}, block(2)},
        {"empty [1,2,0,4] b=2", {1, 2, 0, 4}, block(2)},
    };
    large = {"[1,16,256,256] b=2", {1, 16, 256, 256}, block(2)};
  }
  CaseBuilder b(op);
  for (DType d : SchemaDTypes(op)) {
    for (const R& c : cases) b.Add(d, c.label, {In(d, c.x)}, c.attrs);
    if (IsFloat(d)) b.Special(d, "special " + cases[0].label, {In(d, cases[0].x)}, cases[0].attrs);
  }
  b.Large(DType::kF32, "1M " + large.label, {In(DType::kF32, large.x)}, large.attrs);
  return b.Take();
}

// attention: q [B, Hq, S, D], k [B, Hkv, T, D], v [B, Hkv, T, Dv], optional mask (q's
// dtype, additive, or bool) broadcasting to [B, Hq, S, T]. No special values: a score
// q.k through 1e30 overflows in f32 where cpu-ref's double does not.
std::vector<OpCase> AttentionCases() {
  struct R {
    std::string label;
    Shape q, k, v;
    Attrs attrs;
    Shape mask;
    int mask_kind = 0;  // 0: none, 1: q's dtype (additive), 2: bool
  };
  auto causal = [] { return A({{"is_causal", I(1)}}); };
  auto scale = [](double s) { return A({{"scale", F(s)}}); };
  const std::vector<R> cases = {
      {"q=[1,2,5,8] kv=[1,2,7,8]", {1, 2, 5, 8}, {1, 2, 7, 8}, {1, 2, 7, 8}, {}},
      {"gqa q=[2,4,5,8] kv=[2,2,7,8]", {2, 4, 5, 8}, {2, 2, 7, 8}, {2, 2, 7, 8}, {}},
      {"mqa q=[1,4,3,16] kv=[1,1,9,16]", {1, 4, 3, 16}, {1, 1, 9, 16}, {1, 1, 9, 16}, {}},
      {"causal q=[1,2,7,8] kv=[1,2,7,8]", {1, 2, 7, 8}, {1, 2, 7, 8}, {1, 2, 7, 8}, causal()},
      {"causal q=[1,2,3,8] kv=[1,2,7,8]", {1, 2, 3, 8}, {1, 2, 7, 8}, {1, 2, 7, 8}, causal()},
      {"causal q=[1,2,7,8] kv=[1,2,3,8]", {1, 2, 7, 8}, {1, 2, 3, 8}, {1, 2, 3, 8}, causal()},
      {"scale=0.5 q=[1,2,5,8] kv=[1,2,7,8]", {1, 2, 5, 8}, {1, 2, 7, 8}, {1, 2, 7, 8}, scale(0.5)},
      {"scale=-0.25 q=[1,2,5,8] kv=[1,2,7,8]",
       {1, 2, 5, 8},
       {1, 2, 7, 8},
       {1, 2, 7, 8},
       scale(-0.25)},
      {"q=[1,2,5,8] k=[1,2,7,8] v=[1,2,7,6]", {1, 2, 5, 8}, {1, 2, 7, 8}, {1, 2, 7, 6}, {}},
      {"mask [1,1,5,7]", {1, 2, 5, 8}, {1, 2, 7, 8}, {1, 2, 7, 8}, {}, {1, 1, 5, 7}, 1},
      {"mask [5,7]", {1, 2, 5, 8}, {1, 2, 7, 8}, {1, 2, 7, 8}, {}, {5, 7}, 1},
      {"mask [2,1,1,7] q=[2,2,5,8]", {2, 2, 5, 8}, {2, 2, 7, 8}, {2, 2, 7, 8}, {}, {2, 1, 1, 7}, 1},
      {"mask causal [1,2,5,5]",
       {1, 2, 5, 8},
       {1, 2, 5, 8},
       {1, 2, 5, 8},
       causal(),
       {1, 2, 5, 5},
       1},
      {"mask=bool [5,7]", {1, 2, 5, 8}, {1, 2, 7, 8}, {1, 2, 7, 8}, {}, {5, 7}, 2},
      {"mask=bool [1,2,5,7]", {1, 2, 5, 8}, {1, 2, 7, 8}, {1, 2, 7, 8}, {}, {1, 2, 5, 7}, 2},
      {"mask=bool causal [7]", {1, 2, 7, 8}, {1, 2, 7, 8}, {1, 2, 7, 8}, causal(), {7}, 2},
      {"decode q=[1,4,1,16] kv=[1,2,33,16]", {1, 4, 1, 16}, {1, 2, 33, 16}, {1, 2, 33, 16}, {}},
      {"T=1 q=[1,2,5,8] kv=[1,2,1,8]", {1, 2, 5, 8}, {1, 2, 1, 8}, {1, 2, 1, 8}, {}},
      {"[2,3,17,24] kv=[2,3,19,24]", {2, 3, 17, 24}, {2, 3, 19, 24}, {2, 3, 19, 24}, {}},
      {"empty S=0 q=[1,2,0,8]", {1, 2, 0, 8}, {1, 2, 7, 8}, {1, 2, 7, 8}, {}},
      {"empty T=0 kv=[1,2,0,8]", {1, 2, 5, 8}, {1, 2, 0, 8}, {1, 2, 0, 8}, {}},
      {"empty B=0 q=[0,2,5,8]", {0, 2, 5, 8}, {0, 2, 7, 8}, {0, 2, 7, 8}, {}},
  };
  CaseBuilder b("attention");
  for (DType d : SchemaDTypes("attention")) {
    for (const R& c : cases) {
      std::vector<CaseInput> in = {In(d, c.q), In(d, c.k), In(d, c.v)};
      if (c.mask_kind != 0) in.push_back(In(c.mask_kind == 1 ? d : DType::kBool, c.mask));
      b.Add(d, c.label, std::move(in), c.attrs);
    }
  }
  const DType f = DType::kF32;
  b.Large(f, "1M q=[1,16,1024,64] kv=[1,16,32,64]",
          {In(f, {1, 16, 1024, 64}), In(f, {1, 16, 32, 64}), In(f, {1, 16, 32, 64})});
  return b.Take();
}

// linear_attention: q [B, Hq, T, Dk], k [B, Hkv, T, Dk], v [B, Hkv, T, Dv], state
// [B, Hkv, Dk, Dv], decay [B, Hkv, T, 1 or Dk] (kSmall: exp(decay) in [0.6, 1.65), so
// the state stays within a few units over these lengths), beta [B, Hkv or 1, T, 1]
// (kProbability); with and without the delta correction. Keys are not normalised as
// models normalise them, so the delta cases keep Dk * T small: the correction
// (I - beta k k^T) grows the state by about |1 - beta |k|^2| a step.
std::vector<OpCase> LinearAttentionCases() {
  struct R {
    std::string label;
    int64_t batch, hq, hkv, steps, dk, dv, decay_width, beta_heads;
    int64_t delta;
    std::optional<double> scale;
  };
  const std::vector<R> cases = {
      {"linear [1,2,5,4,4]", 1, 2, 2, 5, 4, 4, 1, 1, 0, {}},
      {"gated per head [2,2,6,8,4]", 2, 2, 2, 6, 8, 4, 1, 2, 0, {}},
      {"gated per key [1,2,5,4,6]", 1, 2, 2, 5, 4, 6, 4, 1, 0, {}},
      {"delta [1,2,7,4,4]", 1, 2, 2, 7, 4, 4, 1, 2, 1, {}},
      {"gated delta gqa [2,4,2,6,8,8]", 2, 4, 2, 6, 8, 8, 1, 2, 1, {}},
      {"gated delta mqa beta shared [1,4,1,5,4,4]", 1, 4, 1, 5, 4, 4, 4, 1, 1, {}},
      {"scale=0.3 delta [1,2,4,4,6]", 1, 2, 2, 4, 4, 6, 1, 2, 1, 0.3},
      {"one step [2,2,1,8,8]", 2, 2, 2, 1, 8, 8, 1, 2, 1, {}},
      {"empty T=0 [1,2,0,4,4]", 1, 2, 2, 0, 4, 4, 1, 2, 1, {}},
      {"empty B=0", 0, 2, 2, 3, 4, 4, 1, 2, 1, {}},
  };
  CaseBuilder b("linear_attention");
  for (DType d : SchemaDTypes("linear_attention")) {
    for (const R& c : cases) {
      Attrs attrs = A({{"delta", I(c.delta)}});
      if (c.scale) attrs.Set("scale", F(*c.scale));
      b.Add(d, c.label,
            {In(d, {c.batch, c.hq, c.steps, c.dk}, Domain::kUnit),
             In(d, {c.batch, c.hkv, c.steps, c.dk}, Domain::kUnit),
             In(d, {c.batch, c.hkv, c.steps, c.dv}, Domain::kUnit),
             In(d, {c.batch, c.hkv, c.dk, c.dv}, Domain::kUnit),
             In(d, {c.batch, c.hkv, c.steps, c.decay_width}, Domain::kSmall),
             In(d, {c.batch, c.beta_heads, c.steps, 1}, Domain::kProbability)},
            attrs, 2);
    }
  }
  const DType f = DType::kF32;
  // q and y 1M elements each; 4 kv heads over 1024 steps.
  b.Large(f, "1M q=[1,16,1024,64] kv=[1,4,1024,64]",
          {In(f, {1, 16, 1024, 64}, Domain::kUnit), In(f, {1, 4, 1024, 64}, Domain::kUnit),
           In(f, {1, 4, 1024, 64}, Domain::kUnit), In(f, {1, 4, 64, 64}, Domain::kUnit),
           In(f, {1, 4, 1024, 1}, Domain::kSmall), In(f, {1, 4, 1024, 1}, Domain::kProbability)},
          A({{"delta", I(0)}}), 2);  // delta with unnormalised random keys would diverge
  return b.Take();
}

// rotary_embedding: x [B, H, S, D], cos and sin [S, rotary_dim / 2] drawn from kUnit
// (they are cosines and sines; kUnit also keeps special values out of them, so that
// x * cos - y * sin with a special x cannot overflow differently in f32 than in double).
std::vector<OpCase> RotaryCases() {
  struct R {
    std::string label;
    Shape x;
    int64_t half;  // rotary_dim / 2
    Attrs attrs;
  };
  auto attrs = [](int64_t interleaved, int64_t rotary_dim) {
    Attrs a;
    if (interleaved != 0) a.Set("interleaved", I(interleaved));
    if (rotary_dim != 0) a.Set("rotary_dim", I(rotary_dim));
    return a;
  };
  const std::vector<R> cases = {
      {"[1,2,5,8]", {1, 2, 5, 8}, 4, {}},
      {"[1,2,5,8] interleaved", {1, 2, 5, 8}, 4, attrs(1, 0)},
      {"[2,3,7,16] rotary_dim=8", {2, 3, 7, 16}, 4, attrs(0, 8)},
      {"[2,3,7,16] rotary_dim=8 interleaved", {2, 3, 7, 16}, 4, attrs(1, 8)},
      {"[1,3,7,10] rotary_dim=6 interleaved", {1, 3, 7, 10}, 3, attrs(1, 6)},
      {"[1,1,1,2]", {1, 1, 1, 2}, 1, {}},
      {"[1,4,9,6]", {1, 4, 9, 6}, 3, {}},
      {"[2,2,33,64]", {2, 2, 33, 64}, 32, {}},
      {"empty B=0 [0,2,5,8]", {0, 2, 5, 8}, 4, {}},
      {"empty S=0 [1,2,0,8]", {1, 2, 0, 8}, 4, {}},
  };
  auto inputs = [](DType d, const R& c) {
    const Shape cache = {c.x[2], c.half};
    return std::vector<CaseInput>{In(d, c.x), In(d, cache, Domain::kUnit),
                                  In(d, cache, Domain::kUnit)};
  };
  CaseBuilder b("rotary_embedding");
  for (DType d : SchemaDTypes("rotary_embedding")) {
    for (const R& c : cases) b.Add(d, c.label, inputs(d, c), c.attrs);
    b.Special(d, "special " + cases[0].label, inputs(d, cases[0]), cases[0].attrs);
    b.Special(d, "special " + cases[1].label, inputs(d, cases[1]), cases[1].attrs);
  }
  b.Large(DType::kF32, "1M [1,16,1024,64]", inputs(DType::kF32, {"", {1, 16, 1024, 64}, 32, {}}),
          {});
  return b.Take();
}

// grid_sample: x [N, C, H, W] and grid [N, Ho, Wo, 2] (and the volumetric form), both in
// [-2, 2), so that about
// half the grid points fall outside the input and the padding modes matter. H and W stay
// small: a plugin computes the coordinate g * W / 2 + (W - 1) / 2 in its float type, and
// its rounding error, about W * 2^-24 in f32, times the slope of the data must stay within
// the interpolation tolerance. Special values only in x and only for nearest (which
// copies): interpolating weights meet infinities and 1e30s that cancel differently in f32.
std::vector<OpCase> GridSampleCases() {
  auto attrs = [](std::string mode, std::string padding, int64_t align) {
    Attrs a;
    if (mode != "bilinear") a.Set("mode", Str(std::move(mode)));
    if (padding != "zeros") a.Set("padding_mode", Str(std::move(padding)));
    if (align != 0) a.Set("align_corners", I(align));
    return a;
  };
  struct R {
    std::string label;
    Shape x, grid;
    Attrs attrs;
  };
  std::vector<R> cases;
  const Shape x = {2, 3, 5, 7};
  const Shape grid = {2, 4, 6, 2};
  for (const char* mode : {"bilinear", "nearest", "bicubic"}) {
    for (const char* padding : {"zeros", "border", "reflection"}) {
      for (int64_t align : {0, 1}) {
        cases.push_back({std::string("[2,3,5,7] grid=[2,4,6,2] ") + mode + " " + padding +
                             (align != 0 ? " align_corners" : ""),
                         x, grid, attrs(mode, padding, align)});
      }
    }
  }
  cases.push_back({"[1,2,1,1] grid=[1,3,5,2] bilinear reflection align_corners",
                   {1, 2, 1, 1},
                   {1, 3, 5, 2},
                   attrs("bilinear", "reflection", 1)});
  cases.push_back({"[1,2,1,6] grid=[1,3,5,2] bicubic border",
                   {1, 2, 1, 6},
                   {1, 3, 5, 2},
                   attrs("bicubic", "border", 0)});
  cases.push_back({"[3,1,13,11] grid=[3,7,9,2] bicubic reflection",
                   {3, 1, 13, 11},
                   {3, 7, 9, 2},
                   attrs("bicubic", "reflection", 0)});
  for (const char* mode : {"bilinear", "nearest"}) {  // volumetric (x 5-D, grid [..., 3])
    for (const char* padding : {"zeros", "reflection"}) {
      cases.push_back({std::string("[2,2,3,4,5] grid=[2,2,3,4,3] ") + mode + " " + padding,
                       {2, 2, 3, 4, 5},
                       {2, 2, 3, 4, 3},
                       attrs(mode, padding, std::string(padding) == "zeros" ? 0 : 1)});
    }
  }
  cases.push_back({"empty [0,2,5,7] grid=[0,4,6,2]", {0, 2, 5, 7}, {0, 4, 6, 2}, {}});
  cases.push_back({"empty [1,2,5,7] grid=[1,0,6,2]", {1, 2, 5, 7}, {1, 0, 6, 2}, {}});
  cases.push_back({"empty [1,0,0,0] grid=[1,4,6,2]", {1, 0, 0, 0}, {1, 4, 6, 2}, {}});
  CaseBuilder b("grid_sample");
  for (DType d : SchemaDTypes("grid_sample")) {
    for (const R& c : cases) b.Add(d, c.label, {In(d, c.x), In(d, c.grid)}, c.attrs);
    for (const char* padding : {"zeros", "border"}) {
      b.Special(d, std::string("special [2,3,5,7] grid=[2,4,6,2] nearest ") + padding,
                {In(d, x), In(d, grid, Domain::kUnit)}, attrs("nearest", padding, 0));
    }
  }
  const DType f = DType::kF32;
  b.Large(f, "1M [1,16,16,16] grid=[1,256,256,2]",
          {In(f, {1, 16, 16, 16}), In(f, {1, 256, 256, 2})}, {});
  return b.Take();
}

}  // namespace

std::vector<OpCase> NeuralCases(std::string_view op) {
  if (op == "resize") return ResizeCases();
  if (op == "depth_to_space" || op == "space_to_depth") return BlockCases(op);
  if (op == "attention") return AttentionCases();
  if (op == "linear_attention") return LinearAttentionCases();
  if (op == "rotary_embedding") return RotaryCases();
  if (op == "grid_sample") return GridSampleCases();
  return {};
}

}  // namespace sy::conformance::detail
