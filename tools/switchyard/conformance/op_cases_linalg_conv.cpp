// Op cases of linear algebra, convolution and pooling: matmul, gemm, det, quant_matmul,
// matmul_integer, qlinear_conv, roi_align, deform_conv, conv, conv_transpose, max_pool,
// avg_pool and global_avg_pool.
//
// Sizes are odd and not multiples of any vector width or tile (7, 13, 17, 33, 65) so that
// blocked kernels hit their remainders. The 1M cases have about 1M outputs at a modest
// reduction length (K = 32 for matmul, 36 for conv), so that cpu-ref's plain loops stay
// within a second each.
#include <string>
#include <tuple>
#include <vector>

#include "conformance/op_cases_internal.h"

namespace sy::conformance::detail {
namespace {

// A case: label, input shapes (all of the op's dtype), attributes.
struct Shapes {
  std::string label;
  std::vector<Shape> inputs;
  Attrs attrs;
};

std::vector<OpCase> Expand(std::string_view op, const std::vector<Shapes>& cases,
                           const std::vector<Shapes>& special, const Shapes& large) {
  CaseBuilder b(op);
  auto inputs = [](DType d, const Shapes& c) {
    std::vector<CaseInput> in;
    for (const Shape& s : c.inputs) in.push_back(In(d, s));
    return in;
  };
  for (DType d : SchemaDTypes(op)) {
    for (const Shapes& c : cases) b.Add(d, c.label, inputs(d, c), c.attrs);
    if (!IsFloat(d)) continue;
    for (const Shapes& c : special) b.Special(d, "special " + c.label, inputs(d, c), c.attrs);
  }
  b.Large(DType::kF32, "1M " + large.label, inputs(DType::kF32, large), large.attrs);
  return b.Take();
}

// matmul (floats and integers; integer products wrap like NumPy's): 2-D, the 1-D
// promotions, batches with broadcasting, K = 0 (a sum of nothing: zeros) and M = 0.
std::vector<OpCase> MatmulCases() {
  return Expand("matmul",
                {
                    {"[3,5]x[5,7]", {{3, 5}, {5, 7}}, {}},
                    {"[17,33]x[33,65]", {{17, 33}, {33, 65}}, {}},
                    {"[1,13]x[13,1]", {{1, 13}, {13, 1}}, {}},
                    {"[5]x[5]", {{5}, {5}}, {}},
                    {"[5]x[5,7]", {{5}, {5, 7}}, {}},
                    {"[3,5]x[5]", {{3, 5}, {5}}, {}},
                    {"[2,3,5]x[2,5,7]", {{2, 3, 5}, {2, 5, 7}}, {}},
                    {"[2,1,3,5]x[4,5,7]", {{2, 1, 3, 5}, {4, 5, 7}}, {}},
                    {"[2,3,5]x[5,4]", {{2, 3, 5}, {5, 4}}, {}},
                    {"[7]x[3,7,2]", {{7}, {3, 7, 2}}, {}},
                    {"empty K=0 [3,0]x[0,4]", {{3, 0}, {0, 4}}, {}},
                    {"empty M=0 [0,5]x[5,4]", {{0, 5}, {5, 4}}, {}},
                    {"empty batch [0,3,5]x[5,4]", {{0, 3, 5}, {5, 4}}, {}},
                },
                {}, {"[1024,32]x[32,1025]", {{1024, 32}, {32, 1025}}, {}});
}

Attrs Gemm(double alpha, double beta, int64_t trans_a, int64_t trans_b) {
  Attrs a;
  if (alpha != 1) a.Set("alpha", F(alpha));
  if (beta != 1) a.Set("beta", F(beta));
  if (trans_a != 0) a.Set("trans_a", I(trans_a));
  if (trans_b != 0) a.Set("trans_b", I(trans_b));
  return a;
}

std::vector<OpCase> GemmCases() {
  return Expand(
      "gemm",
      {
          {"[3,5]x[5,7]", {{3, 5}, {5, 7}}, {}},
          {"[3,5]x[5,7]+[7]", {{3, 5}, {5, 7}, {7}}, {}},
          {"[3,5]x[5,7]+[3,7]", {{3, 5}, {5, 7}, {3, 7}}, {}},
          {"[3,5]x[5,7]+[3,1]", {{3, 5}, {5, 7}, {3, 1}}, {}},
          {"[3,5]x[5,7]+[]", {{3, 5}, {5, 7}, {}}, {}},
          {"trans_a [5,3]x[5,7]+[7]", {{5, 3}, {5, 7}, {7}}, Gemm(1, 1, 1, 0)},
          {"trans_b [3,5]x[7,5]+[7]", {{3, 5}, {7, 5}, {7}}, Gemm(1, 1, 0, 1)},
          {"trans_a trans_b [5,3]x[7,5]", {{5, 3}, {7, 5}}, Gemm(1, 1, 1, 1)},
          {"alpha=0.5 beta=2 [3,5]x[5,7]+[3,7]", {{3, 5}, {5, 7}, {3, 7}}, Gemm(0.5, 2, 0, 0)},
          {"beta=0 [3,5]x[5,7]+[7]", {{3, 5}, {5, 7}, {7}}, Gemm(1, 0, 0, 0)},
          {"alpha=-1.5 trans_b [17,33]x[65,33]+[65]",
           {{17, 33}, {65, 33}, {65}},
           Gemm(-1.5, 1, 0, 1)},
          {"empty K=0 [3,0]x[0,4]+[4]", {{3, 0}, {0, 4}, {4}}, {}},
          {"empty M=0 [0,5]x[5,4]+[4]", {{0, 5}, {5, 4}, {4}}, {}},
      },
      {}, {"[1024,32]x[32,1025]+[1025]", {{1024, 32}, {32, 1025}, {1025}}, {}});
}

// det: square matrices of a few sizes and batches; generated inputs are far from singular
// only by chance, so the tolerance is the sums' (a determinant is a sum of products).
std::vector<OpCase> DetCases() {
  return Expand("det",
                {
                    {"[1,1]", {{1, 1}}, {}},
                    {"[2,2]", {{2, 2}}, {}},
                    {"[3,3]", {{3, 3}}, {}},
                    {"[4,3,3]", {{4, 3, 3}}, {}},
                    {"[2,3,5,5]", {{2, 3, 5, 5}}, {}},
                    {"empty batch [0,4,4]", {{0, 4, 4}}, {}},
                    {"empty matrix [3,0,0]", {{3, 0, 0}}, {}},
                },
                {}, {"[65536,4,4]", {{65536, 4, 4}}, {}});
}

// quant_matmul: 4- and 8-bit codes (any byte: the generator's integers wrap), block sizes
// 16 and 32, K filling its last block or not, with zero points in [0, 16) and without,
// a batch dim, no rows, and accuracy_level 4 (int8 activations allowed).
std::vector<OpCase> QuantMatmulCases() {
  auto attrs = [](int64_t bits, int64_t block_size) {
    Attrs a;
    a.Set("bits", I(bits));
    a.Set("block_size", I(block_size));
    return a;
  };
  const DType q = DType::kU8;
  auto in = [&](DType d, Shape a, int64_t n, int64_t bits, int64_t bs, bool zeros) {
    const int64_t k = a.back();
    const int64_t blocks = (k + bs - 1) / bs;
    std::vector<CaseInput> v = {In(d, std::move(a)), In(q, {n, blocks, bs * bits / 8}),
                                In(d, {n, blocks}, Domain::kSmall)};
    if (zeros) v.push_back(In(q, {n, blocks}, Domain::kNonNegativeIndex, 16));
    return v;
  };
  CaseBuilder b("quant_matmul");
  for (DType d : SchemaDTypes("quant_matmul")) {
    b.Add(d, "4-bit block 16 [3,20] N=5", in(d, {3, 20}, 5, 4, 16, false), attrs(4, 16));
    b.Add(d, "4-bit block 16 zero points [3,20] N=5", in(d, {3, 20}, 5, 4, 16, true), attrs(4, 16));
    b.Add(d, "4-bit block 32 [2,3,64] N=7", in(d, {2, 3, 64}, 7, 4, 32, true), attrs(4, 32));
    b.Add(d, "4-bit block 16 [17] N=3", in(d, {17}, 3, 4, 16, false), attrs(4, 16));
    b.Add(d, "8-bit block 16 zero points [1,33] N=3", in(d, {1, 33}, 3, 8, 16, true), attrs(8, 16));
    b.Add(d, "8-bit block 32 [5,32] N=9", in(d, {5, 32}, 9, 8, 32, false), attrs(8, 32));
    b.Add(d, "empty rows [0,16] N=4", in(d, {0, 16}, 4, 4, 16, false), attrs(4, 16));
    // accuracy_level 4 lets a backend quantize a to int8 per block (docs/ops.md): each
    // output within sum over blocks of max|a| / 254 * sum |w| of the exact product. Here
    // |a| < 2, |w| <= 15 (4 bits) or 255 (8 bits) times 0.5, K = 64 or 32: elements
    // within 64 * 2 / 254 * 7.5 and 32 * 2 / 254 * 127.5, and the error's norm, about
    // 1 / 250 of the output's for random data, within 2% of it.
    Attrs level4 = attrs(4, 32);
    level4.Set("accuracy_level", I(4));
    b.Add(d, "4-bit block 32 accuracy level 4 [4,64] N=33", in(d, {4, 64}, 33, 4, 32, true), level4)
        .tolerance = Tolerance{false, 0, 3.8, 0, 0.02};
    Attrs level4_8 = attrs(8, 16);
    level4_8.Set("accuracy_level", I(4));
    b.Add(d, "8-bit block 16 accuracy level 4 [1,32] N=17", in(d, {1, 32}, 17, 8, 16, false),
          level4_8)
        .tolerance = Tolerance{false, 0, 32.2, 0, 0.02};
  }
  const DType f = DType::kF32;
  b.Large(f, "1M 4-bit block 32 [1024,64] N=1024", in(f, {1024, 64}, 1024, 4, 32, true),
          attrs(4, 32));
  return b.Take();
}

// matmul_integer: every pairing of u8 and i8 operands (the generator's integers wrap into
// the whole byte range), without zero points, with scalar ones, with a's per row and b's
// per column, a batch against one matrix and against a batch, a 1-D a, no rows; the
// result is exact (i32).
std::vector<OpCase> MatmulIntegerCases() {
  const DType u8 = DType::kU8, i8 = DType::kI8;
  CaseBuilder b("matmul_integer");
  for (const DType ta : {u8, i8}) {
    for (const DType tb : {u8, i8}) {
      const std::string x = "x " + std::string(DTypeName(tb)) + " ";
      b.Add(ta, x + "[3,5]x[5,7]", {In(ta, {3, 5}), In(tb, {5, 7})});
      b.Add(ta, x + "zero points [3,5]x[5,7]",
            {In(ta, {3, 5}), In(tb, {5, 7}), In(ta, {}), In(tb, {})});
      b.Add(ta, x + "per-row and per-column zero points [17,33]x[33,13]",
            {In(ta, {17, 33}), In(tb, {33, 13}), In(ta, {17}), In(tb, {13})});
      b.Add(ta, x + "batch [2,3,5]x[5,7] zero points [1] [7]",
            {In(ta, {2, 3, 5}), In(tb, {5, 7}), In(ta, {1}), In(tb, {7})});
      b.Add(ta, x + "batches [2,3,5]x[2,5,7]", {In(ta, {2, 3, 5}), In(tb, {2, 5, 7})});
      b.Add(ta, x + "1-D a [5]x[5,7]", {In(ta, {5}), In(tb, {5, 7}), In(ta, {})});
      b.Add(ta, x + "empty M=0 [0,5]x[5,4]", {In(ta, {0, 5}), In(tb, {5, 4})});
    }
  }
  b.Large(u8, "x i8 1M [1024,32]x[32,1024]",
          {In(u8, {1024, 32}), In(i8, {32, 1024}), In(u8, {}), In(i8, {1024})});
  return b.Take();
}

// qlinear_conv's operands: x and w of the case's shapes; the scales given (f32), so that
// the multiplier x_scale * w_scale / y_scale decides what the results exercise; the zero
// points, data and bias drawn (u8 in [0, 40], i8 in [-20, 20], i32 in [-20, 20]) unless
// given. x's and y's scale and zero point have shape `scalar` ([] or [1]); w's are [M]
// where per channel, else `scalar`.
struct QConv {
  Shape x, w;
  Attrs attrs;
  double x_scale = 0.05, y_scale = 0.02;
  std::vector<double> w_scale = {0.02};  // [M] values where w_scale_per_channel
  bool w_scale_per_channel = false, w_zero_per_channel = false, bias = false;
  Shape scalar = {};
  std::vector<double> x_values, w_values, x_zero, w_zero, y_zero, bias_values;  // empty: drawn
};

std::vector<CaseInput> QConvInputs(DType tx, DType tw, DType ty, const QConv& q) {
  const auto given = [](DType dtype, Shape shape, std::vector<double> values) {
    CaseInput in = In(dtype, std::move(shape));
    in.values = std::move(values);
    return in;
  };
  const Shape per_channel = {q.w[0]};
  const DType f = DType::kF32;
  std::vector<CaseInput> in = {given(tx, q.x, q.x_values),
                               given(f, q.scalar, {q.x_scale}),
                               given(tx, q.scalar, q.x_zero),
                               given(tw, q.w, q.w_values),
                               given(f, q.w_scale_per_channel ? per_channel : q.scalar, q.w_scale),
                               given(tw, q.w_zero_per_channel ? per_channel : q.scalar, q.w_zero),
                               given(f, q.scalar, {q.y_scale}),
                               given(ty, q.scalar, q.y_zero)};
  if (q.bias) in.push_back(given(DType::kI32, per_channel, q.bias_values));
  return in;
}

// qlinear_conv (ONNX QLinearConv): every pairing of u8 and i8 for x, w and y, each with
// per-tensor and per-channel w scales and zero points, bias, groups, strides, pads and
// dilations in 1 to 3 spatial dims, multipliers that spread the results over the output's
// range, saturate them at both ends, or make ties (1/16: every sum 8 mod 16 rounds half to
// even); then, for u8 x i8 (ONNX Runtime's default) and i8 x i8, depthwise and 3-D, sums
// past 2^24 (f32(acc) rounds: biases near 2^31, and sums whose f32 is a tie where the exact
// product is not), a product of scales that is subnormal
// (the multiplier must still equal the host's f32 arithmetic bit for bit), the bytes'
// extremes with nonzero zero points, [1]-shaped scalars, empty outputs, and bad scales
// (a run-time error of the reference, so the plugin must fail too).
std::vector<OpCase> QLinearConvCases() {
  const DType u8 = DType::kU8, i8 = DType::kI8;
  CaseBuilder b("qlinear_conv");
  const QConv plain{{1, 2, 7, 13}, {4, 2, 3, 3}, Window({}, {1, 1, 1, 1}, {})};
  const auto name = [](DType tw, DType ty) {
    return "w " + std::string(DTypeName(tw)) + " y " + std::string(DTypeName(ty)) + " ";
  };
  for (const DType tx : {u8, i8}) {
    for (const DType tw : {u8, i8}) {
      for (const DType ty : {u8, i8}) {
        const std::string at = name(tw, ty);
        const auto add = [&](const std::string& label, const QConv& q) {
          b.Add(tx, at + label, QConvInputs(tx, tw, ty, q), q.attrs);
        };
        add("[1,2,7,13] w=[4,2,3,3] pads=[1,1,1,1]", plain);
        QConv channels{{2, 3, 9, 11}, {5, 3, 3, 3}, Window({2, 2}, {1, 0, 2, 1}, {1, 2})};
        channels.w_scale = {0.02, 0.005, 0.011, 0.0375, 0.0013};
        channels.w_scale_per_channel = channels.w_zero_per_channel = channels.bias = true;
        channels.bias_values = {-3000, 1500, 0, 777, -12345};
        add("per-channel bias [2,3,9,11] w=[5,3,3,3] s=[2,2] p=[1,0,2,1] d=[1,2]", channels);
        QConv groups{{2, 4, 17}, {6, 2, 5}, Window({2}, {2, 1}, {}, 2)};
        groups.w_zero_per_channel = groups.bias = true;
        add("1-D group=2 per-channel zero points [2,4,17] w=[6,2,5]", groups);
        QConv saturate = plain;  // multiplier 2 * 1.5 / 0.25 = 12
        saturate.x_scale = 2;
        saturate.w_scale = {1.5};
        saturate.y_scale = 0.25;
        add("saturates [1,2,7,13] w=[4,2,3,3] multiplier 12", saturate);
        QConv ties = plain;  // multiplier 0.25 * 0.25 / 1 = 1/16
        ties.x_scale = 0.25;
        ties.w_scale = {0.25};
        ties.y_scale = 1;
        ties.bias = true;
        add("ties [1,2,7,13] w=[4,2,3,3] multiplier 1/16", ties);
      }
    }
  }
  for (const auto& types : {std::tuple{u8, i8, u8}, std::tuple{i8, i8, i8}}) {
    const DType tx = std::get<0>(types), tw = std::get<1>(types), ty = std::get<2>(types);
    const std::string at = name(tw, ty);
    const auto add = [&](const std::string& label, const QConv& q) {
      return b.Add(tx, at + label, QConvInputs(tx, tw, ty, q), q.attrs);
    };
    QConv depthwise{{2, 6, 7, 9}, {6, 1, 3, 3}, Window({1, 2}, {1, 1, 1, 1}, {}, 6)};
    depthwise.w_scale = {0.02, 0.05, 0.013, 0.0071, 0.04, 0.1};
    depthwise.w_scale_per_channel = depthwise.w_zero_per_channel = depthwise.bias = true;
    depthwise.y_scale = 0.01;
    add("depthwise per-channel [2,6,7,9] w=[6,1,3,3]", depthwise);
    QConv volume{{1, 2, 5, 6, 7}, {3, 2, 3, 3, 3}, Window({1, 2, 1}, {1, 0, 1, 1, 1, 0}, {})};
    volume.w_scale = {0.01, 0.03, 0.007};
    volume.w_scale_per_channel = volume.bias = true;
    add("3-D per-channel scale [1,2,5,6,7] w=[3,2,3,3,3]", volume);
    QConv dilated{{1, 3, 11, 12}, {4, 3, 3, 2}, Window({2, 3}, {1, 0, 2, 1}, {2, 1})};
    dilated.x_zero = {7};
    dilated.w_zero = {-3};
    dilated.y_zero = {5};
    if (tw == u8) dilated.w_zero = {3};
    add("zero points 7 -3 5 [1,3,11,12] w=[4,3,3,2] s=[2,3] d=[2,1]", dilated);
    // Sums near 2^31: f32(acc) rounds before the product (multiplier about 6e-8).
    QConv wide{{1, 2, 5, 5}, {4, 2, 2, 2}, {}};
    wide.x_scale = 0.0003;
    wide.w_scale = {0.0007};
    wide.y_scale = 3.5;
    wide.bias = true;
    wide.bias_values = {2147483647, -2147483648.0, 16777217, -1073741827};
    add("bias near 2^31 [1,2,5,5] w=[4,2,2,2]", wide);
    // acc is the bias (w equals its zero point), multiplier 0.75 * 2^-24: f32(55924057) *
    // the multiplier is 2.5 exactly (to 2), where the exact product, 2.50000016, and its
    // f32, 2.50000024, round to 3; f32(78293669) makes 3.5 (to 4) of 3.49999975 (3).
    QConv rounding = plain;
    rounding.x_scale = 0.75;
    rounding.w_scale = {0x1p-24};
    rounding.y_scale = 1;
    rounding.w_values = {3};
    rounding.w_zero = {3};
    rounding.bias = true;
    rounding.bias_values = {55924057, -55924057, 78293669, -78293669};
    add("f32(acc) rounds to ties [1,2,7,13] w=[4,2,3,3]", rounding);
    // x_scale * w_scale is subnormal (about 1.2e-40: 17 significant bits), y_scale too.
    QConv tiny = plain;
    tiny.x_scale = 1e-20;
    tiny.w_scale = {1.2345e-20};
    tiny.y_scale = 1.1e-38;
    add("subnormal scales [1,2,7,13] w=[4,2,3,3]", tiny);
    // The bytes' extremes less nonzero zero points (multiplier 1e-4: sums reach 10^6).
    QConv extremes = plain;
    extremes.x_values = tx == u8 ? std::vector<double>{0, 255, 128, 1, 254, 37, 200}
                                 : std::vector<double>{-128, 127, 0, -1, 100, -77, 126};
    extremes.w_values = tw == u8 ? std::vector<double>{255, 0, 3, 250, 129}
                                 : std::vector<double>{127, -128, 3, -120, 64};
    extremes.x_zero = {tx == u8 ? 128.0 : -5.0};
    extremes.w_zero = {tw == u8 ? 131.0 : 2.0};
    extremes.y_zero = {ty == u8 ? 255.0 : -128.0};
    extremes.x_scale = 0.01;
    extremes.w_scale = {0.001};
    extremes.y_scale = 0.1;
    add("byte extremes [1,2,7,13] w=[4,2,3,3]", extremes);
    QConv shaped = plain;
    shaped.scalar = {1};
    shaped.bias = true;
    add("[1] scales and zero points [1,2,7,13] w=[4,2,3,3]", shaped);
    QConv no_batch{{0, 2, 7, 13}, {4, 2, 3, 3}, {}};
    add("empty N=0 [0,2,7,13] w=[4,2,3,3]", no_batch);
    QConv no_channels{{1, 2, 7, 13}, {0, 2, 3, 3}, {}};
    add("empty M=0 [1,2,7,13] w=[0,2,3,3]", no_channels);
    // Scales the reference refuses: a run-time error, which the plugin must report too.
    QConv zero = plain;
    zero.y_scale = 0;
    add("error y_scale 0 [1,2,7,13] w=[4,2,3,3]", zero);
    QConv negative = plain;
    negative.w_scale = {0.02, 0.01, -0.01, 0.02};
    negative.w_scale_per_channel = true;
    add("error w_scale[2] < 0 [1,2,7,13] w=[4,2,3,3]", negative);
    QConv overflow = plain;
    overflow.x_scale = 3e38;
    overflow.w_scale = {10};
    overflow.y_scale = 1;
    add("error multiplier overflows [1,2,7,13] w=[4,2,3,3]", overflow);
  }
  QConv large{{1, 4, 256, 256}, {16, 4, 3, 3}, Window({}, {1, 1, 1, 1}, {})};
  large.w_scale = {0.02, 0.005, 0.011, 0.0375, 0.0013, 0.05, 0.017, 0.008};
  large.w_scale_per_channel = large.w_zero_per_channel = large.bias = true;
  b.Large(u8, name(i8, u8) + "1M [1,4,256,256] w=[16,4,3,3] per-channel bias",
          QConvInputs(u8, i8, u8, large), large.attrs);
  return b.Take();
}

// deform_conv: offsets in [-2, 2) move samples across the edges; with and without bias and
// mask, groups and offset groups, strides, pads and dilations.
std::vector<OpCase> DeformConvCases() {
  auto attrs = [](int64_t stride, int64_t pad, int64_t dilation, int64_t group, int64_t og) {
    Attrs a;
    a.Set("strides", Ints({stride, stride}));
    a.Set("pads", Ints({pad, pad, pad, pad}));
    a.Set("dilations", Ints({dilation, dilation}));
    a.Set("group", I(group));
    a.Set("offset_group", I(og));
    return a;
  };
  CaseBuilder b("deform_conv");
  for (DType d : SchemaDTypes("deform_conv")) {
    b.Add(d, "[1,2,5,6] w=[3,2,3,3]",
          {In(d, {1, 2, 5, 6}), In(d, {3, 2, 3, 3}), In(d, {1, 18, 3, 4})}, attrs(1, 0, 1, 1, 1));
    b.Add(d, "[2,4,6,6] w=[4,2,2,2] pads=1 group=2 offset_group=2 bias mask",
          {In(d, {2, 4, 6, 6}), In(d, {4, 2, 2, 2}), In(d, {2, 16, 7, 7}), In(d, {4}),
           In(d, {2, 8, 7, 7})},
          attrs(1, 1, 1, 2, 2));
    b.Add(d, "[1,3,9,8] w=[2,3,3,3] strides=2 dilations=2 bias",
          {In(d, {1, 3, 9, 8}), In(d, {2, 3, 3, 3}), In(d, {1, 18, 3, 2}), In(d, {2})},
          attrs(2, 0, 2, 1, 1));
    b.Add(d, "[2,2,4,4] w=[2,1,3,3] pads=1 group=2 mask",
          {In(d, {2, 2, 4, 4}), In(d, {2, 1, 3, 3}), In(d, {2, 18, 4, 4}), In(d, {2}),
           In(d, {2, 9, 4, 4})},
          attrs(1, 1, 1, 2, 1));
    b.Add(d, "empty [0,2,5,6]", {In(d, {0, 2, 5, 6}), In(d, {3, 2, 3, 3}), In(d, {0, 18, 3, 4})},
          attrs(1, 0, 1, 1, 1));
  }
  // 1M input elements over small planes: a plugin computes the sample coordinates in its
  // float type, whose rounding times the data's slope must stay within the tolerance.
  const DType f = DType::kF32;
  b.Large(f, "1M [1,1024,32,32] w=[2,1024,1,1]",
          {In(f, {1, 1024, 32, 32}), In(f, {2, 1024, 1, 1}), In(f, {1, 2, 32, 32})},
          attrs(1, 0, 1, 1, 1));
  return b.Take();
}

// roi_align: rois drawn in [0.1, 4) scaled by spatial_scale 2 over an 8 x 10 input, so
// that boxes fall inside, across the edge and (x2 < x1) empty; batch indices valid.
std::vector<OpCase> RoiAlignCases() {
  auto attrs = [](std::string mode, int64_t h, int64_t w, int64_t ratio, std::string coord) {
    Attrs a;
    a.Set("mode", Str(std::move(mode)));
    a.Set("output_height", I(h));
    a.Set("output_width", I(w));
    a.Set("sampling_ratio", I(ratio));
    a.Set("spatial_scale", F(2.0));
    a.Set("coordinate_transformation_mode", Str(std::move(coord)));
    return a;
  };
  CaseBuilder b("roi_align");
  for (DType d : SchemaDTypes("roi_align")) {
    for (DType ti : {DType::kI64, DType::kI32}) {
      const std::string t = ti == DType::kI64 ? " i64" : " i32";
      const std::vector<CaseInput> in = {In(d, {2, 3, 8, 10}), In(d, {5, 4}, Domain::kPositive),
                                         In(ti, {5}, Domain::kNonNegativeIndex, 2)};
      b.Add(d, "avg 2x3 ratio 2 half_pixel" + t, in, attrs("avg", 2, 3, 2, "half_pixel"));
      b.Add(d, "avg 3x3 adaptive output_half_pixel" + t, in,
            attrs("avg", 3, 3, 0, "output_half_pixel"));
      b.Add(d, "max 2x2 ratio 1 half_pixel" + t, in, attrs("max", 2, 2, 1, "half_pixel"));
    }
    b.Add(d, "no rois", {In(d, {2, 3, 8, 10}), In(d, {0, 4}), In(DType::kI64, {0})},
          attrs("avg", 2, 2, 0, "half_pixel"));
  }
  const DType f = DType::kF32;
  b.Large(f, "1M [1,1,1024,1024] 4 rois",
          {In(f, {1, 1, 1024, 1024}), In(f, {4, 4}, Domain::kPositive),
           In(DType::kI64, {4}, Domain::kNonNegativeIndex, 1)},
          attrs("avg", 2, 2, 2, "half_pixel"));
  return b.Take();
}

std::vector<OpCase> ConvCases() {
  return Expand(
      "conv",
      {
          {"[1,2,7,13] w=[4,2,3,3]", {{1, 2, 7, 13}, {4, 2, 3, 3}}, {}},
          {"[1,2,7,13] w=[4,2,3,3] bias", {{1, 2, 7, 13}, {4, 2, 3, 3}, {4}}, {}},
          {"[2,3,9,11] w=[5,3,3,3] strides=[2,2]",
           {{2, 3, 9, 11}, {5, 3, 3, 3}, {5}},
           Window({2, 2}, {}, {})},
          {"[1,2,7,13] w=[4,2,3,3] pads=[1,1,1,1]",
           {{1, 2, 7, 13}, {4, 2, 3, 3}, {4}},
           Window({}, {1, 1, 1, 1}, {})},
          {"[1,2,7,13] w=[3,2,3,5] pads=[0,1,2,0]",
           {{1, 2, 7, 13}, {3, 2, 3, 5}},
           Window({}, {0, 1, 2, 0}, {})},
          {"[1,2,9,13] w=[4,2,3,3] dilations=[2,3]",
           {{1, 2, 9, 13}, {4, 2, 3, 3}, {4}},
           Window({}, {}, {2, 3})},
          {"[1,3,11,12] w=[4,3,3,2] s=[2,3] p=[1,0,2,1] d=[2,1]",
           {{1, 3, 11, 12}, {4, 3, 3, 2}, {4}},
           Window({2, 3}, {1, 0, 2, 1}, {2, 1})},
          {"[1,4,7,13] w=[6,2,3,3] group=2",
           {{1, 4, 7, 13}, {6, 2, 3, 3}, {6}},
           Window({}, {1, 1, 1, 1}, {}, 2)},
          {"[2,6,7,9] w=[6,1,3,3] depthwise",
           {{2, 6, 7, 9}, {6, 1, 3, 3}, {6}},
           Window({1, 2}, {1, 1, 1, 1}, {}, 6)},
          {"[1,5,7,13] w=[3,5,1,1]", {{1, 5, 7, 13}, {3, 5, 1, 1}}, {}},
          {"[1,2,5,6] w=[3,2,5,6] full", {{1, 2, 5, 6}, {3, 2, 5, 6}, {3}}, {}},
          {"1-D [2,3,17] w=[4,3,5]", {{2, 3, 17}, {4, 3, 5}, {4}}, Window({2}, {2, 1}, {})},
          {"3-D [1,2,5,6,7] w=[3,2,3,3,3]",
           {{1, 2, 5, 6, 7}, {3, 2, 3, 3, 3}, {3}},
           Window({1, 2, 1}, {1, 0, 1, 1, 1, 0}, {})},
          {"empty N=0 [0,2,7,13] w=[4,2,3,3]", {{0, 2, 7, 13}, {4, 2, 3, 3}}, {}},
          {"empty C=0 [1,0,7,13] w=[4,0,3,3] bias", {{1, 0, 7, 13}, {4, 0, 3, 3}, {4}}, {}},
      },
      {},
      {"[1,4,256,256] w=[16,4,3,3] pads=[1,1,1,1]",
       {{1, 4, 256, 256}, {16, 4, 3, 3}, {16}},
       Window({}, {1, 1, 1, 1}, {})});
}

std::vector<OpCase> ConvTransposeCases() {
  auto output_padding = [](Attrs a, std::vector<int64_t> op) {
    a.Set("output_padding", Ints(std::move(op)));
    return a;
  };
  return Expand("conv_transpose",
                {
                    {"[1,2,5,7] w=[2,3,3,3]", {{1, 2, 5, 7}, {2, 3, 3, 3}}, {}},
                    {"[1,2,5,7] w=[2,3,3,3] bias", {{1, 2, 5, 7}, {2, 3, 3, 3}, {3}}, {}},
                    {"[2,3,5,6] w=[3,2,3,3] strides=[2,2]",
                     {{2, 3, 5, 6}, {3, 2, 3, 3}, {2}},
                     Window({2, 2}, {}, {})},
                    {"[1,2,5,7] w=[2,3,3,3] strides=[2,2] pads=[1,1,1,1]",
                     {{1, 2, 5, 7}, {2, 3, 3, 3}, {3}},
                     Window({2, 2}, {1, 1, 1, 1}, {})},
                    {"[1,2,5,7] w=[2,3,3,4] s=[2,3] output_padding=[1,2]",
                     {{1, 2, 5, 7}, {2, 3, 3, 4}, {3}},
                     output_padding(Window({2, 3}, {0, 1, 1, 0}, {}), {1, 2})},
                    {"[1,2,5,7] w=[2,3,3,3] dilations=[2,2]",
                     {{1, 2, 5, 7}, {2, 3, 3, 3}},
                     Window({}, {}, {2, 2})},
                    {"[1,4,5,7] w=[4,2,3,3] group=2",
                     {{1, 4, 5, 7}, {4, 2, 3, 3}, {4}},
                     Window({2, 1}, {1, 0, 0, 1}, {}, 2)},
                    {"1-D [2,3,9] w=[3,4,5]", {{2, 3, 9}, {3, 4, 5}, {4}}, Window({3}, {1, 2}, {})},
                    {"3-D [1,2,3,4,5] w=[2,3,2,3,2]",
                     {{1, 2, 3, 4, 5}, {2, 3, 2, 3, 2}, {3}},
                     Window({2, 1, 2}, {}, {})},
                    {"empty N=0 [0,2,5,7] w=[2,3,3,3]", {{0, 2, 5, 7}, {2, 3, 3, 3}}, {}},
                },
                {},
                {"[1,16,128,128] w=[16,16,2,2] strides=[2,2]",
                 {{1, 16, 128, 128}, {16, 16, 2, 2}, {16}},
                 Window({2, 2}, {}, {})});
}

Attrs Pool(std::vector<int64_t> kernel, std::vector<int64_t> strides = {},
           std::vector<int64_t> pads = {}, std::vector<int64_t> dilations = {},
           int64_t ceil_mode = 0) {
  Attrs a = Window(std::move(strides), std::move(pads), std::move(dilations));
  a.Set("kernel_shape", Ints(std::move(kernel)));
  if (ceil_mode != 0) a.Set("ceil_mode", I(ceil_mode));
  return a;
}

std::vector<OpCase> PoolCases(std::string_view op) {
  std::vector<Shapes> cases = {
      {"[1,2,7,13] k=[3,3]", {{1, 2, 7, 13}}, Pool({3, 3})},
      {"[2,3,9,11] k=[2,2] s=[2,2]", {{2, 3, 9, 11}}, Pool({2, 2}, {2, 2})},
      {"[1,2,7,13] k=[3,3] pads=[1,1,1,1]", {{1, 2, 7, 13}}, Pool({3, 3}, {}, {1, 1, 1, 1})},
      {"[1,2,7,13] k=[3,2] s=[2,3] p=[1,0,0,1]",
       {{1, 2, 7, 13}},
       Pool({3, 2}, {2, 3}, {1, 0, 0, 1})},
      {"[1,2,8,13] k=[3,3] s=[2,2] ceil", {{1, 2, 8, 13}}, Pool({3, 3}, {2, 2}, {}, {}, 1)},
      {"[1,2,9,13] k=[2,3] dilations=[2,2]", {{1, 2, 9, 13}}, Pool({2, 3}, {}, {}, {2, 2})},
      {"[1,3,7,13] k=[1,1]", {{1, 3, 7, 13}}, Pool({1, 1})},
      {"[1,2,7,13] k=[7,13]", {{1, 2, 7, 13}}, Pool({7, 13})},
      {"1-D [2,3,17] k=[3] s=[2] p=[1,1]", {{2, 3, 17}}, Pool({3}, {2}, {1, 1})},
      {"3-D [1,2,5,6,7] k=[2,3,2] s=[1,2,2]", {{1, 2, 5, 6, 7}}, Pool({2, 3, 2}, {1, 2, 2})},
      {"empty N=0 [0,2,7,13] k=[3,3]", {{0, 2, 7, 13}}, Pool({3, 3})},
  };
  if (op == "avg_pool") {
    Attrs include = Pool({3, 3}, {2, 2}, {1, 1, 1, 1});
    include.Set("count_include_pad", I(1));
    cases.push_back(
        {"[1,2,7,13] k=[3,3] s=[2,2] p=[1,1,1,1] count_include_pad", {{1, 2, 7, 13}}, include});
    Attrs include_ceil = Pool({3, 3}, {2, 2}, {1, 0, 1, 0}, {}, 1);
    include_ceil.Set("count_include_pad", I(1));
    cases.push_back(
        {"[1,2,8,12] k=[3,3] s=[2,2] ceil count_include_pad", {{1, 2, 8, 12}}, include_ceil});
  }
  std::vector<OpCase> out = Expand(op, cases, {},
                                   {"[1,16,256,256] k=[3,3] pads=[1,1,1,1]",
                                    {{1, 16, 256, 256}},
                                    Pool({3, 3}, {}, {1, 1, 1, 1})});
  if (op == "max_pool") {
    // NaN through the window: cpu-ref propagates it (like reduce_max); ONNX does not say,
    // so this is outside the mandatory scope. (avg_pool has no special values: an f32
    // window sum of two -3e38 overflows where cpu-ref's double sum does not.)
    CaseBuilder b(op);
    for (DType d : SchemaDTypes(op)) {
      b.Special(d, "special [1,2,7,13] k=[3,3] pads=[1,1,1,1]", {In(d, {1, 2, 7, 13})},
                Pool({3, 3}, {}, {1, 1, 1, 1}))
          .mandatory = false;
    }
    for (OpCase& c : b.Take()) out.push_back(std::move(c));
  }
  return out;
}

std::vector<OpCase> GlobalAvgPoolCases() {
  return Expand("global_avg_pool",
                {
                    {"[1,2,7,13]", {{1, 2, 7, 13}}, {}},
                    {"[2,3,17]", {{2, 3, 17}}, {}},
                    {"[1,2,3,4,5]", {{1, 2, 3, 4, 5}}, {}},
                    {"[1,3,1,1]", {{1, 3, 1, 1}}, {}},
                    {"[2,2,31,33]", {{2, 2, 31, 33}}, {}},
                    {"empty N=0 [0,2,7,13]", {{0, 2, 7, 13}}, {}},
                    {"empty C=0 [2,0,5,5]", {{2, 0, 5, 5}}, {}},
                    {"empty H=0 [1,2,0,5]", {{1, 2, 0, 5}}, {}},
                },
                {}, {"[2,16,181,181]", {{2, 16, 181, 181}}, {}});
}

}  // namespace

std::vector<OpCase> LinalgConvCases(std::string_view op) {
  if (op == "matmul") return MatmulCases();
  if (op == "gemm") return GemmCases();
  if (op == "det") return DetCases();
  if (op == "quant_matmul") return QuantMatmulCases();
  if (op == "matmul_integer") return MatmulIntegerCases();
  if (op == "qlinear_conv") return QLinearConvCases();
  if (op == "roi_align") return RoiAlignCases();
  if (op == "deform_conv") return DeformConvCases();
  if (op == "conv") return ConvCases();
  if (op == "conv_transpose") return ConvTransposeCases();
  if (op == "max_pool" || op == "avg_pool") return PoolCases(op);
  if (op == "global_avg_pool") return GlobalAvgPoolCases();
  return {};
}

}  // namespace sy::conformance::detail
