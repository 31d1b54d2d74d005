// Op cases of the fused ops: fused_matmul, fused_conv and add_layer_norm (float dtypes
// only; docs/ops.md, "Fused ops").
//
// Every activation appears in fused_matmul's and fused_conv's cases (clip with both
// bounds, with one, and as relu6), with bias and residual each present and absent, and
// add_layer_norm's cases ask for one output (y) and for both (y and the sum a + b). The
// shapes are those of the matmul, conv and layer_norm cases they build on: odd, so that
// tiled kernels hit their remainders.
//
// No special values: like matmul, conv and the norms, these sum products or square values,
// and 1e30 squared is finite in cpu-ref's double but infinite in an f32 intermediate, a
// difference of intermediate precision, not of semantics.
#include <string>

#include "conformance/op_cases_internal.h"

namespace sy::conformance::detail {
namespace {

// A case: label, input shapes (all of the op's dtype), attributes, number of outputs.
struct Fused {
  std::string label;
  std::vector<Shape> inputs;
  Attrs attrs;
  int num_outputs = 1;
};

std::vector<OpCase> Expand(std::string_view op, const std::vector<Fused>& cases,
                           const Fused& large) {
  CaseBuilder b(op);
  auto inputs = [](DType d, const Fused& c) {
    std::vector<CaseInput> in;
    for (const Shape& s : c.inputs) in.push_back(In(d, s));
    return in;
  };
  for (DType d : SchemaDTypes(op)) {
    for (const Fused& c : cases) b.Add(d, c.label, inputs(d, c), c.attrs, c.num_outputs);
  }
  b.Large(DType::kF32, "1M " + large.label, inputs(DType::kF32, large), large.attrs,
          large.num_outputs);
  return b.Take();
}

// `attrs` with activation `name` (and its parameters, where it takes them).
Attrs Act(Attrs attrs, std::string name) {
  attrs.Set("activation", Str(std::move(name)));
  return attrs;
}
Attrs Act(std::string name) { return Act({}, std::move(name)); }
Attrs Clip(Attrs attrs, double lo, double hi) {
  attrs = Act(std::move(attrs), "clip");
  attrs.Set("clip_min", F(lo));
  attrs.Set("clip_max", F(hi));
  return attrs;
}
Attrs TransB(Attrs attrs) {
  attrs.Set("trans_b", I(1));
  return attrs;
}

std::vector<OpCase> FusedMatmulCases() {
  Attrs leaky = Act("leaky_relu");
  leaky.Set("activation_alpha", F(0.2));
  Attrs clip_max = Act("clip");
  clip_max.Set("clip_max", F(1.0));
  return Expand(
      "fused_matmul",
      {
          {"[3,5]x[5,7]", {{3, 5}, {5, 7}}, {}},
          {"[3,5]x[5,7]+[7] relu", {{3, 5}, {5, 7}, {7}}, Act("relu")},
          {"[3,5]x[5,7]+[7]+res leaky_relu=0.2", {{3, 5}, {5, 7}, {7}, {3, 7}}, leaky},
          {"[3,5]x[5,7]+[3,1] clip=[-0.5,0.5]", {{3, 5}, {5, 7}, {3, 1}}, Clip({}, -0.5, 0.5)},
          {"[3,5]x[5,7]+[]+res clip max=1", {{3, 5}, {5, 7}, {}, {3, 7}}, clip_max},
          {"[3,5]x[5,7]+[7] gelu", {{3, 5}, {5, 7}, {7}}, Act("gelu")},
          {"trans_b [3,5]x[7,5]+[7]+res gelu_tanh",
           {{3, 5}, {7, 5}, {7}, {3, 7}},
           TransB(Act("gelu_tanh"))},
          {"[2,1,3,5]x[4,5,7]+[7]+res silu",
           {{2, 1, 3, 5}, {4, 5, 7}, {7}, {2, 4, 3, 7}},
           Act("silu")},
          {"trans_b [2,3,5]x[2,7,5]+[3,7] sigmoid",
           {{2, 3, 5}, {2, 7, 5}, {3, 7}},
           TransB(Act("sigmoid"))},
          {"[5]x[5,7]+[7] tanh", {{5}, {5, 7}, {7}}, Act("tanh")},
          {"[3,5]x[5]+[3]+res relu", {{3, 5}, {5}, {3}, {3}}, Act("relu")},
          {"[2,3,5]x[5,4]+[4]+res", {{2, 3, 5}, {5, 4}, {4}, {2, 3, 4}}, {}},
          {"[17,33]x[33,65]+[65]+res gelu", {{17, 33}, {33, 65}, {65}, {17, 65}}, Act("gelu")},
          {"empty K=0 [3,0]x[0,4]+[4] relu", {{3, 0}, {0, 4}, {4}}, Act("relu")},
          {"empty M=0 [0,5]x[5,4]+[4]+res silu", {{0, 5}, {5, 4}, {4}, {0, 4}}, Act("silu")},
      },
      {"[1024,32]x[32,1025]+[1025]+res relu",
       {{1024, 32}, {32, 1025}, {1025}, {1024, 1025}},
       Act("relu")});
}

std::vector<OpCase> FusedConvCases() {
  Attrs leaky = Act(Window({}, {1, 1, 1, 1}, {}), "leaky_relu");
  leaky.Set("activation_alpha", F(0.1));
  return Expand(
      "fused_conv",
      {
          {"[1,2,7,13] w=[4,2,3,3]", {{1, 2, 7, 13}, {4, 2, 3, 3}}, {}},
          {"[1,2,7,13] w=[4,2,3,3] bias relu", {{1, 2, 7, 13}, {4, 2, 3, 3}, {4}}, Act("relu")},
          {"[2,3,9,11] w=[5,3,3,3] strides=[2,2] bias+res relu6",
           {{2, 3, 9, 11}, {5, 3, 3, 3}, {5}, {2, 5, 4, 5}},
           Clip(Window({2, 2}, {}, {}), 0, 6)},
          {"[1,2,7,13] w=[4,2,3,3] pads=[1,1,1,1] bias+res leaky_relu=0.1",
           {{1, 2, 7, 13}, {4, 2, 3, 3}, {4}, {1, 4, 7, 13}},
           leaky},
          {"[1,4,7,13] w=[6,2,3,3] group=2 bias+res gelu",
           {{1, 4, 7, 13}, {6, 2, 3, 3}, {6}, {1, 6, 7, 13}},
           Act(Window({}, {1, 1, 1, 1}, {}, 2), "gelu")},
          {"[2,6,7,9] w=[6,1,3,3] depthwise bias+res silu",
           {{2, 6, 7, 9}, {6, 1, 3, 3}, {6}, {2, 6, 7, 5}},
           Act(Window({1, 2}, {1, 1, 1, 1}, {}, 6), "silu")},
          {"[1,2,9,13] w=[4,2,3,3] dilations=[2,3] bias sigmoid",
           {{1, 2, 9, 13}, {4, 2, 3, 3}, {4}},
           Act(Window({}, {}, {2, 3}), "sigmoid")},
          {"[1,3,11,12] w=[4,3,3,2] s=[2,3] p=[1,0,2,1] d=[2,1] bias+res tanh",
           {{1, 3, 11, 12}, {4, 3, 3, 2}, {4}, {1, 4, 5, 4}},
           Act(Window({2, 3}, {1, 0, 2, 1}, {2, 1}), "tanh")},
          {"[1,5,7,13] w=[3,5,1,1] bias+res clip=[-1,1]",
           {{1, 5, 7, 13}, {3, 5, 1, 1}, {3}, {1, 3, 7, 13}},
           Clip({}, -1, 1)},
          {"1-D [2,3,17] w=[4,3,5] bias+res gelu_tanh",
           {{2, 3, 17}, {4, 3, 5}, {4}, {2, 4, 8}},
           Act(Window({2}, {2, 1}, {}), "gelu_tanh")},
          {"3-D [1,2,5,6,7] w=[3,2,3,3,3] bias relu",
           {{1, 2, 5, 6, 7}, {3, 2, 3, 3, 3}, {3}},
           Act(Window({1, 2, 1}, {1, 0, 1, 1, 1, 0}, {}), "relu")},
          {"empty N=0 [0,2,7,13] w=[4,2,3,3] bias+res relu",
           {{0, 2, 7, 13}, {4, 2, 3, 3}, {4}, {0, 4, 5, 11}},
           Act("relu")},
          {"empty C=0 [1,0,7,13] w=[4,0,3,3] bias silu",
           {{1, 0, 7, 13}, {4, 0, 3, 3}, {4}},
           Act("silu")},
      },
      {"[1,4,256,256] w=[16,4,3,3] pads=[1,1,1,1] bias+res relu",
       {{1, 4, 256, 256}, {16, 4, 3, 3}, {16}, {1, 16, 256, 256}},
       Act(Window({}, {1, 1, 1, 1}, {}), "relu")});
}

Attrs Axis(int64_t axis) { return A({{"axis", I(axis)}}); }

// add_layer_norm: b broadcasts to a; scale and bias to the normalised dims. Each shape
// asks for y alone and, labelled "sum", for y and a + b.
std::vector<OpCase> AddLayerNormCases() {
  const std::vector<Fused> shapes = {
      {"[3,5]+[3,5]", {{3, 5}, {3, 5}, {5}, {5}}, {}},
      {"[3,5]+[5]", {{3, 5}, {5}, {5}, {5}}, {}},
      {"[2,3,5]+[3,5] axis=-2", {{2, 3, 5}, {3, 5}, {3, 5}, {3, 5}}, Axis(-2)},
      {"[2,3,5]+[3,1] axis=1 scale=[1,5]", {{2, 3, 5}, {3, 1}, {1, 5}, {5}}, Axis(1)},
      {"[2,3,4]+[] axis=0", {{2, 3, 4}, {}, {2, 3, 4}, {2, 3, 4}}, Axis(0)},
      {"[1,1,7,13]+[1,1,7,13]", {{1, 1, 7, 13}, {1, 1, 7, 13}, {13}, {13}}, {}},
      {"[3,1031]+[3,1031]", {{3, 1031}, {3, 1031}, {1031}, {1031}}, {}},
      {"[3,5]+[3,5] epsilon=0.1", {{3, 5}, {3, 5}, {5}, {5}}, A({{"epsilon", F(0.1)}})},
      {"[4,1]+[4,1]", {{4, 1}, {4, 1}, {1}, {1}}, {}},
      {"[3,5]+[3,5] no bias", {{3, 5}, {3, 5}, {5}}, {}},
      {"empty [0,5]+[5]", {{0, 5}, {5}, {5}, {5}}, {}},
      {"empty [3,0]+[3,0]", {{3, 0}, {3, 0}, {0}, {0}}, {}},
  };
  std::vector<Fused> cases;
  for (const Fused& c : shapes) {
    cases.push_back(c);
    Fused both = c;
    both.label += " sum";
    both.num_outputs = 2;
    cases.push_back(std::move(both));
  }
  // Two outputs of 1M each plus a: b is one row, so that the case stays near 3M elements.
  return Expand("add_layer_norm", cases,
                {"[1024,1025]+[1025] sum", {{1024, 1025}, {1025}, {1025}, {1025}}, {}, 2});
}

}  // namespace

std::vector<OpCase> FusedCases(std::string_view op) {
  if (op == "fused_matmul") return FusedMatmulCases();
  if (op == "fused_conv") return FusedConvCases();
  if (op == "add_layer_norm") return AddLayerNormCases();
  return {};
}

}  // namespace sy::conformance::detail
