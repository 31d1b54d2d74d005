#!/usr/bin/env python3
"""Writes tests/data/kernels/neural/: inputs and expected outputs for the CPU reference
kernels of the neural-network ops (tests/unit/plugins/cpu/ref/neural_ref_test.cpp,
normalization_ref_test.cpp; depth_to_space / space_to_depth in movement_ref_test.cpp).

Every expected output is computed here in float64 by plain NumPy written from the ONNX
operator definitions (spec/ops.md), independently of Switchyard's C++ kernels: softmax
and the norms as whole-array NumPy formulas, resize as a separable per-axis gather
(cubic with Keys' kernel written piecewise), depth_to_space / space_to_depth as the
reshape-transpose-reshape of the ONNX docs, attention with einsum, rotary_embedding by
slicing and grid_sample as a vectorized gather of every output position's taps. Inputs are stored in the dtype the
test feeds the kernel (f32, f64 or f16; bf16 tests use f32 files whose values are exact
in bf16). Deterministic: a fixed seed, so rerunning rewrites identical files.

    python3 tools/kernel_refs/neural.py               # writes the files
    python3 tools/kernel_refs/neural.py --check-onnx  # also compares with onnx.reference

The optional check (needs the `onnx` package) runs the ONNX reference evaluator on the
resize, attention, rotary, normalization and grid_sample cases, as a cross-check of these
formulas (not the tf_half_pixel_for_nn resize cases: the reference no longer has it).
It reports, and does not fail on, known differences from our decisions: the ONNX
reference multiplies zero-weight resize neighbours (0 * NaN = NaN, so resize
linear_special and nearest_special differ) and takes the square root of the attention
scale (a negative scale gives NaN, so attention negscale differs), and takes
pytorch_half_pixel's coordinate as -0.5 where the output length is 1 (the operator's
definition says 0; resize cubic_pytorch_half_pixel_to_one differs). Its grid_sample
divides by zero reflecting over a single element (align_corners with H or W of 1), so
the bilinear and bicubic grid_sample row_* / one_* reflection cases have no reference.
"""
import os
import sys

import numpy as np

OUT = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                   "tests", "data", "kernels", "neural")
rng = np.random.default_rng(20240607)
F64 = np.float64


def save(name, array):
    np.save(os.path.join(OUT, name + ".npy"), np.ascontiguousarray(array))


def normal(shape, dtype=np.float32, sigma=1.0):
    return (rng.standard_normal(shape) * sigma).astype(dtype)


def grid(shape, lo=-40, hi=40):
    """f32 values k / 16 with |k| <= 40: exact in bf16 and f16."""
    return (rng.integers(lo, hi + 1, size=shape) / 16.0).astype(np.float32)


# ----------------------------------------------------------------------------------------
# softmax / log_softmax


def softmax(x, axis):
    x = x.astype(F64)
    with np.errstate(invalid="ignore", over="ignore"):
        e = np.exp(x - np.max(x, axis=axis, keepdims=True))
        return e / np.sum(e, axis=axis, keepdims=True)


def log_softmax(x, axis):
    x = x.astype(F64)
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        shifted = x - np.max(x, axis=axis, keepdims=True)
        return shifted - np.log(np.sum(np.exp(shifted), axis=axis, keepdims=True))


def softmax_cases():
    x = normal((2, 3, 4), sigma=2.0)
    save("softmax_x", x)
    save("softmax_axis1_y", softmax(x, 1))
    save("softmax_axisneg1_y", softmax(x, -1))
    save("log_softmax_axis0_y", log_softmax(x, 0))
    save("log_softmax_axisneg2_y", log_softmax(x, -2))
    inf, nan = np.inf, np.nan
    special = np.array([[-inf, -inf, -inf], [1, nan, 2], [inf, 1, 2], [0, -inf, 1],
                        [1000, 1001, 999], [-1000, -1001, -999]], dtype=F64)
    save("softmax_special_x", special)
    save("softmax_special_y", softmax(special, -1))
    save("log_softmax_special_y", log_softmax(special, -1))
    x16 = normal((3, 5), np.float16, sigma=3.0)
    save("softmax_f16_x", x16)
    save("softmax_f16_y", softmax(x16, -1))
    xb = grid((2, 6))
    save("softmax_bf16_x", xb)
    save("log_softmax_bf16_axis0_y", log_softmax(xb, 0))


# ----------------------------------------------------------------------------------------
# layer_norm, rms_norm, batch_norm, group_norm, instance_norm


def layer_norm(x, scale, bias, axis, eps):
    x = x.astype(F64)
    axes = tuple(range(axis % x.ndim, x.ndim))
    mean = x.mean(axis=axes, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=axes, keepdims=True)
    y = (x - mean) / np.sqrt(var + eps) * scale.astype(F64)
    return y if bias is None else y + bias.astype(F64)


def rms_norm(x, scale, axis, eps):
    x = x.astype(F64)
    axes = tuple(range(axis % x.ndim, x.ndim))
    return x / np.sqrt((x * x).mean(axis=axes, keepdims=True) + eps) * scale.astype(F64)


def per_channel(p, ndim):
    return p.astype(F64).reshape((1, -1) + (1,) * (ndim - 2))


def batch_norm(x, scale, bias, mean, var, eps):
    x = x.astype(F64)
    n = x.ndim
    return ((x - per_channel(mean, n)) / np.sqrt(per_channel(var, n) + eps) *
            per_channel(scale, n) + per_channel(bias, n))


def group_norm(x, scale, bias, groups, eps):
    x = x.astype(F64)
    g = x.reshape((x.shape[0], groups, -1))
    mean = g.mean(axis=2, keepdims=True)
    var = g.var(axis=2, keepdims=True)
    y = ((g - mean) / np.sqrt(var + eps)).reshape(x.shape)
    return y * per_channel(scale, x.ndim) + per_channel(bias, x.ndim)


def instance_norm(x, scale, bias, eps):
    x = x.astype(F64)
    axes = tuple(range(2, x.ndim))
    mean = x.mean(axis=axes, keepdims=True)
    var = x.var(axis=axes, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * per_channel(scale, x.ndim) + per_channel(bias, x.ndim)


def norm_cases():
    x = normal((2, 3, 4), sigma=2.0) + 1
    save("norm_x", x)
    s4, b31 = normal((4,)), normal((3, 1))
    save("ln_axis1_scale", s4)
    save("ln_axis1_bias", b31)
    save("ln_axis1_y", layer_norm(x, s4, b31, 1, 1e-5))
    save("ln_axisneg1_y", layer_norm(x, s4, None, -1, 1e-3))  # scale ln_axis1_scale, eps 1e-3
    x64 = normal((3, 2, 2), F64)
    s22, b1 = normal((2, 2), F64), normal((1,), F64)
    save("ln_f64_x", x64)
    save("ln_f64_scale", s22)
    save("ln_f64_bias", b1)
    save("ln_f64_axis0_y", layer_norm(x64, s22, b1, 0, 1e-5))
    x16, s16, b16 = normal((2, 8), np.float16), normal((8,), np.float16), normal((8,), np.float16)
    save("ln_f16_x", x16)
    save("ln_f16_scale", s16)
    save("ln_f16_bias", b16)
    save("ln_f16_y", layer_norm(x16, s16, b16, -1, 1e-5))

    s34 = normal((3, 4))
    save("rms_scale", s34)
    save("rms_axisneg2_y", rms_norm(x, s34, -2, 1e-5))  # x = norm_x
    xr, sr = normal((4, 5), F64), normal((5,), F64)
    save("rms_f64_x", xr)
    save("rms_f64_scale", sr)
    save("rms_f64_y", rms_norm(xr, sr, -1, 0.5))
    xb, sb = grid((3, 4)), grid((4,))
    save("rms_bf16_x", xb)
    save("rms_bf16_scale", sb)
    save("rms_bf16_y", rms_norm(xb, sb, -1, 1e-5))

    xbn = normal((2, 3, 2, 2))
    params = [normal((3,)), normal((3,)), normal((3,)), np.abs(normal((3,))) + 0.1]
    save("bn_x", xbn)
    for name, p in zip(["scale", "bias", "mean", "var"], params):
        save("bn_" + name, p)
    save("bn_y", batch_norm(xbn, *params, 1e-5))
    xbn2 = normal((4, 3), F64)
    params2 = [normal((3,), F64), normal((3,), F64), normal((3,), F64),
               np.abs(normal((3,), F64)) + 0.1]
    save("bn_rank2_x", xbn2)
    for name, p in zip(["scale", "bias", "mean", "var"], params2):
        save("bn_rank2_" + name, p)
    save("bn_rank2_y", batch_norm(xbn2, *params2, 1e-3))

    xg = normal((2, 6, 3, 2), sigma=3.0) - 1
    sg, bg = normal((6,)), normal((6,))
    save("gn_x", xg)
    save("gn_scale", sg)
    save("gn_bias", bg)
    for groups in (1, 3, 6):
        save("gn_g%d_y" % groups, group_norm(xg, sg, bg, groups, 1e-5))
    xg16, sg16, bg16 = normal((2, 4, 5), np.float16), normal((4,), np.float16), normal((4,), np.float16)
    save("gn_f16_x", xg16)
    save("gn_f16_scale", sg16)
    save("gn_f16_bias", bg16)
    save("gn_f16_g2_y", group_norm(xg16, sg16, bg16, 2, 1e-5))

    si, bi = normal((3,)), normal((3,))
    save("in_scale", si)
    save("in_bias", bi)
    save("in_y", instance_norm(x, si, bi, 1e-5))  # x = norm_x [2, 3, 4]
    x5, s5, b5 = normal((1, 2, 2, 3, 2), F64), normal((2,), F64), normal((2,), F64)
    save("in_rank5_x", x5)
    save("in_rank5_scale", s5)
    save("in_rank5_bias", b5)
    save("in_rank5_y", instance_norm(x5, s5, b5, 0.01))


# ----------------------------------------------------------------------------------------
# resize


def resize_coords(coord, out_len, in_len, scale):
    """Input coordinate of every output index along one axis (ONNX Resize formulas)."""
    x = np.arange(out_len, dtype=F64)
    if coord == "half_pixel":
        return (x + 0.5) / scale - 0.5
    if coord == "asymmetric":
        return x / scale
    if coord == "pytorch_half_pixel":  # the operator's definition: 0 for a length of 1
        return (x + 0.5) / scale - 0.5 if out_len > 1 else np.zeros(out_len)
    if coord == "tf_half_pixel_for_nn":
        return (x + 0.5) / scale
    length = scale * in_len  # align_corners: the un-floored output length
    return np.zeros(out_len) if length == 1 else x * (in_len - 1) / (length - 1)


def keys_cubic(d, a):
    """Keys' cubic convolution kernel W(d) (the piecewise form, |d| < 2)."""
    d = np.abs(d)
    return np.where(d <= 1, ((a + 2) * d - (a + 3)) * d * d + 1,
                    np.where(d < 2, a * d ** 3 - 5 * a * d ** 2 + 8 * a * d - 4 * a, 0.0))


def resize(x, mode="nearest", coord="half_pixel", nearest="round_prefer_floor", scales=None,
           sizes=None, cubic_a=-0.75, exclude_outside=0):
    """Separable: resizes one axis after the other with index gathers."""
    y = x.astype(F64)
    if sizes is None:
        sizes = [int(np.floor(n * s)) for n, s in zip(x.shape, scales)]
    else:
        scales = [o / n for o, n in zip(sizes, x.shape)]
    for axis, (in_len, out_len, scale) in enumerate(zip(x.shape, sizes, scales)):
        if out_len == in_len and abs(scale - 1) <= 1e-9:
            continue
        c = resize_coords(coord, out_len, in_len, scale)
        lo = np.floor(c)
        frac = c - lo
        integral = frac == 0
        if mode == "nearest":
            up = {"round_prefer_floor": frac > 0.5, "round_prefer_ceil": frac >= 0.5,
                  "floor": np.zeros_like(integral), "ceil": ~integral}[nearest]
            idx = np.clip(np.where(up, lo + 1, lo), 0, in_len - 1).astype(np.int64)
            y = np.take(y, idx, axis=axis)
        elif mode == "cubic":
            # Taps floor(c) - 1 .. floor(c) + 2 at distances c - tap; an integral c reads
            # c alone (the kernel is 1 at 0 and 0 at the other integers).
            shape = (-1,) + (1,) * (y.ndim - axis - 1)
            taps = [lo + k for k in (-1, 0, 1, 2)]
            w = [np.where(integral, float(k == 0), keys_cubic(c - t, cubic_a))
                 for k, t in zip((-1, 0, 1, 2), taps)]
            if exclude_outside:
                w = [np.where((t < 0) | (t >= in_len), 0.0, wk) for wk, t in zip(w, taps)]
                total = sum(w)
                w = [wk / total for wk in w]
            acc = 0
            for wk, t in zip(w, taps):
                idx = np.clip(t, 0, in_len - 1).astype(np.int64)
                acc = acc + np.take(y, idx, axis=axis) * wk.reshape(shape)
            y = acc
        else:
            i0 = np.clip(lo, 0, in_len - 1).astype(np.int64)
            i1 = np.where(integral, i0, np.clip(lo + 1, 0, in_len - 1)).astype(np.int64)
            w = frac.reshape((-1,) + (1,) * (y.ndim - axis - 1))
            a, b = np.take(y, i0, axis=axis), np.take(y, i1, axis=axis)
            with np.errstate(invalid="ignore"):  # inf * 0 where w == 0, not selected
                y = np.where(w == 0, a, a * (1 - w) + b * w)
    return y


# (case name, input file, attrs); the C++ test has the same table.
RESIZE_CASES = []


def resize_cases():
    x = normal((1, 1, 3, 4), sigma=2.0)
    save("resize_x", x)
    for coord in ("half_pixel", "asymmetric", "align_corners"):
        for nearest in ("round_prefer_floor", "round_prefer_ceil", "floor", "ceil"):
            RESIZE_CASES.append(("nearest_%s_%s" % (coord, nearest), "resize_x",
                                 dict(mode="nearest", coord=coord, nearest=nearest,
                                      scales=[1, 1, 2.5, 0.6])))
        RESIZE_CASES.append(("nearest_%s_sizes" % coord, "resize_x",
                             dict(mode="nearest", coord=coord, sizes=[1, 1, 5, 7])))
        RESIZE_CASES.append(("linear_%s_scales" % coord, "resize_x",
                             dict(mode="linear", coord=coord, scales=[1, 1, 1.7, 0.8])))
        RESIZE_CASES.append(("linear_%s_sizes" % coord, "resize_x",
                             dict(mode="linear", coord=coord, sizes=[1, 1, 7, 2])))
    # align_corners with an output length of 1, and with a fractional scale * in (the
    # reference divides by scale * in - 1, not by the floored output length - 1).
    RESIZE_CASES.append(("linear_align_corners_to_one", "resize_x",
                         dict(mode="linear", coord="align_corners", sizes=[1, 1, 1, 3])))
    RESIZE_CASES.append(("linear_align_corners_fractional", "resize_x",
                         dict(mode="linear", coord="align_corners", scales=[1, 1, 0.5, 0.7])))
    x3 = normal((2, 3, 4))
    save("resize_rank3_x", x3)
    RESIZE_CASES.append(("linear_rank3_all_axes", "resize_rank3_x",
                         dict(mode="linear", coord="half_pixel", scales=[1.5, 0.7, 2.0])))
    RESIZE_CASES.append(("nearest_rank3_all_axes", "resize_rank3_x",
                         dict(mode="nearest", coord="asymmetric", nearest="ceil",
                              scales=[2.0, 1.4, 0.5])))
    x5 = normal((1, 2, 2, 3, 4), F64)
    save("resize_rank5_x", x5)
    RESIZE_CASES.append(("linear_rank5_trilinear", "resize_rank5_x",
                         dict(mode="linear", coord="align_corners", sizes=[1, 2, 3, 5, 3])))
    x1 = normal((5,))
    save("resize_rank1_x", x1)
    RESIZE_CASES.append(("linear_rank1", "resize_rank1_x",
                         dict(mode="linear", coord="half_pixel", sizes=[8])))
    x16 = normal((1, 2, 3, 3), np.float16)
    save("resize_f16_x", x16)
    RESIZE_CASES.append(("linear_f16", "resize_f16_x",
                         dict(mode="linear", coord="asymmetric", scales=[1, 1, 2.0, 1.5])))
    xn = np.array([[1, np.nan, 3, 4], [5, 6, np.inf, 8]], dtype=np.float32)
    save("resize_special_x", xn)
    RESIZE_CASES.append(("linear_special", "resize_special_x",
                         dict(mode="linear", coord="asymmetric", scales=[1, 2.0])))
    RESIZE_CASES.append(("nearest_special", "resize_special_x",
                         dict(mode="nearest", coord="half_pixel", scales=[1.5, 1.5])))
    inputs = {"resize_x": x, "resize_rank3_x": x3, "resize_rank5_x": x5, "resize_rank1_x": x1,
              "resize_f16_x": x16, "resize_special_x": xn}
    for name, x_name, attrs in RESIZE_CASES:
        save("resize_%s_y" % name, resize(inputs[x_name], **attrs))
    return inputs


# ----------------------------------------------------------------------------------------
# depth_to_space / space_to_depth (the ONNX docs' reshape-transpose-reshape)


def depth_to_space(x, bs, mode):
    b, c, h, w = x.shape
    if mode == "DCR":
        t = x.reshape(b, bs, bs, c // (bs * bs), h, w).transpose(0, 3, 4, 1, 5, 2)
    else:
        t = x.reshape(b, c // (bs * bs), bs, bs, h, w).transpose(0, 1, 4, 2, 5, 3)
    return t.reshape(b, c // (bs * bs), h * bs, w * bs)


def space_to_depth(x, bs):
    b, c, h, w = x.shape
    t = x.reshape(b, c, h // bs, bs, w // bs, bs).transpose(0, 3, 5, 1, 2, 4)
    return t.reshape(b, c * bs * bs, h // bs, w // bs)


def movement_cases():
    x = np.arange(2 * 8 * 2 * 3, dtype=np.int64).reshape(2, 8, 2, 3)
    save("d2s_x", x)
    save("d2s_dcr_y", depth_to_space(x, 2, "DCR"))
    save("d2s_crd_y", depth_to_space(x, 2, "CRD"))
    x9 = np.arange(18 * 2, dtype=np.int64).reshape(1, 18, 2, 1)
    save("d2s_b3_x", x9)
    save("d2s_b3_dcr_y", depth_to_space(x9, 3, "DCR"))
    save("d2s_b3_crd_y", depth_to_space(x9, 3, "CRD"))
    xs = np.arange(2 * 2 * 4 * 6, dtype=np.int64).reshape(2, 2, 4, 6)
    save("s2d_x", xs)
    save("s2d_b2_y", space_to_depth(xs, 2))
    xs3 = np.arange(1 * 2 * 3 * 6, dtype=np.int64).reshape(1, 2, 3, 6)
    save("s2d_b3_x", xs3)
    save("s2d_b3_y", space_to_depth(xs3, 3))


# ----------------------------------------------------------------------------------------
# attention (ONNX opset 23 with the fully-masked-row errata) and rotary_embedding


def attention(q, k, v, mask=None, scale=None, is_causal=False):
    q, k, v = q.astype(F64), k.astype(F64), v.astype(F64)
    _, hq, s, d = q.shape
    hkv, t = k.shape[1], k.shape[2]
    if scale is None:
        scale = 1 / np.sqrt(d)
    k = np.repeat(k, hq // hkv, axis=1)  # head h uses kv head h // (hq // hkv)
    v = np.repeat(v, hq // hkv, axis=1)
    bias = np.zeros((1, 1, s, t))
    if mask is not None:
        bias = bias + (np.where(mask, 0.0, -np.inf) if mask.dtype == np.bool_ else mask.astype(F64))
    if is_causal:
        bias = bias + np.where(np.tril(np.ones((s, t), dtype=bool)), 0.0, -np.inf)
    with np.errstate(invalid="ignore"):
        z = scale * np.einsum("bhsd,bhtd->bhst", q, k) + bias
        bias = np.broadcast_to(bias, z.shape)
        m = z.max(axis=-1, keepdims=True)
        dead = np.isneginf(bias.max(axis=-1, keepdims=True)) | np.isneginf(m)
        p = np.exp(z - np.where(dead, 0.0, m))
        p = p / np.where(dead, 1.0, p.sum(axis=-1, keepdims=True))
        p = np.where(dead, 0.0, p)
    return np.einsum("bhst,bhtd->bhsd", p, v)


ATTENTION_CASES = []


def attention_case(name, q, k, v, mask=None, **attrs):
    save("attn_%s_q" % name, q)
    save("attn_%s_k" % name, k)
    save("attn_%s_v" % name, v)
    if mask is not None:
        save("attn_%s_mask" % name, mask)
    save("attn_%s_y" % name, attention(q, k, v, mask, **attrs))
    ATTENTION_CASES.append((name, q, k, v, mask, attrs))


def attention_cases():
    # Multi-head, float mask [S, T] with one -inf, default scale.
    mask = normal((3, 5))
    mask[1, 2] = -np.inf
    attention_case("mha", normal((2, 2, 3, 4)), normal((2, 2, 5, 4)), normal((2, 2, 5, 3)), mask)
    # Negative scale.
    attention_case("negscale", normal((1, 2, 2, 3)), normal((1, 2, 4, 3)), normal((1, 2, 4, 2)),
                   scale=-0.5)
    # Grouped-query (4 q heads, 2 kv heads), bool mask [1, 4, 1, T], causal, scale: head 1
    # masks key 0, so its query 0 (which may only see key 0) is fully masked -> zeros.
    bmask = np.ones((1, 4, 1, 3), dtype=bool)
    bmask[0, 1, 0, 0] = False
    bmask[0, 2, 0, 2] = False
    attention_case("gqa_causal_bool", normal((1, 4, 3, 4)), normal((1, 2, 3, 4)),
                   normal((1, 2, 3, 2)), bmask, scale=0.3, is_causal=True)
    # Causal with S != T: top-left aligned (query i sees keys j <= i).
    attention_case("causal_rect", normal((1, 1, 3, 2)), normal((1, 1, 5, 2)), normal((1, 1, 5, 2)),
                   is_causal=True)
    attention_case("causal_tall", normal((1, 1, 4, 2)), normal((1, 1, 2, 2)), normal((1, 1, 2, 3)),
                   is_causal=True)
    # Float mask [B, 1, S, T] with a fully -inf row (zeros) and a NaN (NaN row).
    fmask = normal((2, 1, 3, 4))
    fmask[0, 0, 1, :] = -np.inf
    fmask[1, 0, 2, 3] = np.nan
    attention_case("masked_rows", normal((2, 3, 3, 2)), normal((2, 1, 4, 2)),
                   normal((2, 1, 4, 2)), fmask)
    # f16 with an f16 mask [T] (rank 1, broadcast).
    attention_case("f16", normal((1, 2, 3, 8), np.float16), normal((1, 2, 4, 8), np.float16),
                   normal((1, 2, 4, 4), np.float16), normal((4,), np.float16))
    # bf16 (values exact in bf16).
    attention_case("bf16", grid((1, 2, 2, 4)), grid((1, 1, 3, 4)), grid((1, 1, 3, 2)),
                   is_causal=True)


def rotary(x, cos, sin, interleaved=0, rotary_dim=None):
    x, cos, sin = x.astype(F64), cos.astype(F64), sin.astype(F64)
    r = rotary_dim or x.shape[-1]
    xr, rest = x[..., :r], x[..., r:]
    if interleaved:
        x1, x2 = xr[..., 0::2], xr[..., 1::2]
    else:
        x1, x2 = xr[..., :r // 2], xr[..., r // 2:]
    real, imag = x1 * cos - x2 * sin, x1 * sin + x2 * cos  # cos, sin [S, r/2] broadcast
    if interleaved:
        out = np.stack([real, imag], axis=-1).reshape(xr.shape)
    else:
        out = np.concatenate([real, imag], axis=-1)
    return np.concatenate([out, rest], axis=-1)


def caches(seq, half, dtype=np.float32):
    theta = 1.0 / (10000 ** (np.arange(half) / half))
    angles = np.arange(seq)[:, None] * theta[None, :] + 0.3
    return np.cos(angles).astype(dtype), np.sin(angles).astype(dtype)


ROTARY_CASES = []


def rotary_cases():
    x = normal((2, 2, 3, 8))
    save("rope_x", x)
    cos, sin = caches(3, 4)
    save("rope_cos", cos)
    save("rope_sin", sin)
    cos2, sin2 = caches(3, 2)
    save("rope_r4_cos", cos2)
    save("rope_r4_sin", sin2)
    for inter in (0, 1):
        save("rope_i%d_y" % inter, rotary(x, cos, sin, inter))
        save("rope_r4_i%d_y" % inter, rotary(x, cos2, sin2, inter, 4))
        ROTARY_CASES.append(("i%d" % inter, x, cos, sin, inter, None))
        ROTARY_CASES.append(("r4_i%d" % inter, x, cos2, sin2, inter, 4))
    x16 = normal((1, 2, 4, 6), np.float16)
    c16, s16 = caches(4, 3, np.float16)
    save("rope_f16_x", x16)
    save("rope_f16_cos", c16)
    save("rope_f16_sin", s16)
    save("rope_f16_i1_y", rotary(x16, c16, s16, 1))
    ROTARY_CASES.append(("f16_i1", x16, c16, s16, 1, None))


# ----------------------------------------------------------------------------------------
# resize mode cubic and the extra coordinate modes, grid_sample (a generator of their own,
# so that adding them left every file above unchanged)

rng2 = np.random.default_rng(20250214)


def normal2(shape, dtype=np.float32, sigma=1.0):
    return (rng2.standard_normal(shape) * sigma).astype(dtype)


# (case name, input file, attrs), like RESIZE_CASES; the C++ test has the same table.
RESIZE_CUBIC_CASES = []


def resize_cubic_cases():
    x = normal2((1, 2, 4, 5), sigma=2.0)
    save("resize_cubic_x", x)
    for coord in ("half_pixel", "asymmetric", "align_corners", "pytorch_half_pixel"):
        RESIZE_CUBIC_CASES.append(("cubic_%s_up" % coord, "resize_cubic_x",
                                   dict(mode="cubic", coord=coord, scales=[1, 1, 2.0, 1.6])))
        RESIZE_CUBIC_CASES.append(("cubic_%s_down" % coord, "resize_cubic_x",
                                   dict(mode="cubic", coord=coord, sizes=[1, 2, 3, 3])))
        RESIZE_CUBIC_CASES.append(("cubic_%s_exclude" % coord, "resize_cubic_x",
                                   dict(mode="cubic", coord=coord, scales=[1, 1, 1.5, 2.2],
                                        cubic_a=-0.5, exclude_outside=1)))
    RESIZE_CUBIC_CASES.append(("cubic_a_minus1_sizes", "resize_cubic_x",
                               dict(mode="cubic", coord="half_pixel", sizes=[1, 2, 7, 9],
                                    cubic_a=-1.0)))
    RESIZE_CUBIC_CASES.append(("cubic_pytorch_half_pixel_to_one", "resize_cubic_x",
                               dict(mode="cubic", coord="pytorch_half_pixel",
                                    sizes=[1, 2, 1, 3])))
    RESIZE_CUBIC_CASES.append(("linear_pytorch_half_pixel_to_one", "resize_cubic_x",
                               dict(mode="linear", coord="pytorch_half_pixel",
                                    sizes=[1, 2, 3, 1])))
    for nearest in ("round_prefer_floor", "round_prefer_ceil", "floor", "ceil"):
        RESIZE_CUBIC_CASES.append(("nearest_tf_half_pixel_for_nn_%s" % nearest, "resize_cubic_x",
                                   dict(mode="nearest", coord="tf_half_pixel_for_nn",
                                        nearest=nearest, scales=[1, 1, 0.75, 1.7])))
    RESIZE_CUBIC_CASES.append(("linear_tf_half_pixel_for_nn", "resize_cubic_x",
                               dict(mode="linear", coord="tf_half_pixel_for_nn",
                                    sizes=[1, 2, 6, 4])))
    x3 = normal2((3, 4, 2), F64)
    save("resize_cubic_rank3_x", x3)
    RESIZE_CUBIC_CASES.append(("cubic_rank3_all_axes", "resize_cubic_rank3_x",
                               dict(mode="cubic", coord="half_pixel", scales=[2.0, 0.75, 2.5])))
    x16 = normal2((1, 1, 3, 4), np.float16)
    save("resize_cubic_f16_x", x16)
    RESIZE_CUBIC_CASES.append(("cubic_f16", "resize_cubic_f16_x",
                               dict(mode="cubic", coord="asymmetric", scales=[1, 1, 2.0, 1.5])))
    inputs = {"resize_cubic_x": x, "resize_cubic_rank3_x": x3, "resize_cubic_f16_x": x16}
    for name, x_name, attrs in RESIZE_CUBIC_CASES:
        save("resize_%s_y" % name, resize(inputs[x_name], **attrs))
    return inputs


def gs_reflect(v, lo, hi):
    """v folded into [lo, hi] by reflecting at the bounds (for v outside them)."""
    span = hi - lo
    if span == 0:
        return np.full_like(v, lo)
    below = v < lo
    dx = np.where(below, lo - v, v - hi)
    k = np.floor(dx / span)
    r = dx - k * span
    even = np.mod(k, 2) == 0
    return np.where(below, np.where(even, lo + r, hi - r), np.where(even, hi - r, lo + r))


def grid_sample(x, grid, mode="bilinear", padding="zeros", align=0):
    """ONNX GridSample (opset 16) on x [N, C, H, W], grid [N, Ho, Wo, 2], vectorized."""
    x = x.astype(F64)
    g = grid.astype(F64)
    n_, c_, h, w = x.shape
    finite = np.isfinite(g).all(axis=-1)  # [N, Ho, Wo]
    g = np.where(np.isfinite(g), g, 0.0)
    per_axis = []
    for size, gv in ((w, g[..., 0]), (h, g[..., 1])):
        v = (gv + 1) / 2 * (size - 1) if align else ((gv + 1) * size - 1) / 2
        if mode == "nearest":
            v = np.rint(v)  # half to even
        lo, hi = (0.0, size - 1.0) if align else (-0.5, size - 0.5)
        outside = (v < lo) | (v > hi)
        if padding == "border":
            v = np.where(outside, np.clip(v, 0, size - 1), v)
        elif padding == "reflection":
            v = np.where(outside, gs_reflect(v, lo, hi), v)
        if mode == "nearest":
            taps = [(v, np.ones_like(v))]
        elif mode == "bilinear":
            f = np.floor(v)
            t = v - f
            taps = [(f, 1 - t), (f + 1, t)]
        else:
            f = np.floor(v)
            taps = [(f + k, keys_cubic(v - (f + k), -0.75)) for k in (-1, 0, 1, 2)]

        def element(i, size=size, lo=lo, hi=hi):
            """(index into the axis, valid) for tap indices i."""
            inside = (i >= 0) & (i <= size - 1)
            if padding == "zeros":
                return np.clip(i, 0, size - 1).astype(np.int64), inside
            if padding == "border":
                return np.clip(i, 0, size - 1).astype(np.int64), np.ones_like(inside)
            r = np.trunc(np.where(inside, i, gs_reflect(i, lo, hi)))
            return np.clip(r, 0, size - 1).astype(np.int64), np.ones_like(inside)

        per_axis.append([(element(i), wt) for i, wt in taps])
    nidx = np.arange(n_).reshape(n_, 1, 1)
    y = np.zeros((n_, g.shape[1], g.shape[2], c_))
    for (iy, vy), wy in per_axis[1]:
        for (ix, vx), wx in per_axis[0]:
            vals = x[nidx, :, iy, ix]  # [N, Ho, Wo, C]
            vals = np.where((vy & vx)[..., None], vals, 0.0)
            wt = (wy * wx)[..., None]
            y = y + np.where(wt == 0, 0.0, wt * vals)
    y = np.where(finite[..., None], y, np.nan)
    return y.transpose(0, 3, 1, 2)


GRID_SAMPLE_CASES = []  # (name, x file, grid file, attrs); the C++ test has the same table


def grid_sample_cases():
    x = normal2((2, 3, 4, 5))
    save("gs_x", x)
    near = rng2.uniform(-1.25, 1.25, (2, 3, 4, 2)).astype(np.float32)
    far = rng2.uniform(-3.6, 3.6, (2, 3, 4, 2)).astype(np.float32)
    save("gs_grid_near", near)
    save("gs_grid_far", far)
    for mode in ("bilinear", "nearest", "bicubic"):
        for padding in ("zeros", "border", "reflection"):
            for align in (0, 1):
                for grid_name in ("near", "far"):
                    GRID_SAMPLE_CASES.append(
                        ("%s_%s_align%d_%s" % (mode, padding, align, grid_name), "gs_x",
                         "gs_grid_" + grid_name, dict(mode=mode, padding=padding, align=align)))
    # One row (H = 1) and one element (1 x 1): degenerate spans, including reflection
    # with align_corners over a single element.
    x1 = normal2((1, 2, 1, 4), F64)
    g1 = rng2.uniform(-2.5, 2.5, (1, 2, 5, 2))
    save("gs_row_x", x1)
    save("gs_row_grid", g1)
    x11 = normal2((1, 1, 1, 1), F64)
    save("gs_one_x", x11)
    for mode in ("bilinear", "nearest", "bicubic"):
        for padding in ("zeros", "border", "reflection"):
            GRID_SAMPLE_CASES.append(("row_%s_%s" % (mode, padding), "gs_row_x", "gs_row_grid",
                                      dict(mode=mode, padding=padding, align=1)))
            GRID_SAMPLE_CASES.append(("one_%s_%s" % (mode, padding), "gs_one_x", "gs_row_grid",
                                      dict(mode=mode, padding=padding, align=1)))
    x16 = normal2((1, 2, 3, 3), np.float16)
    g16 = rng2.uniform(-1.2, 1.2, (1, 4, 2, 2)).astype(np.float16)
    save("gs_f16_x", x16)
    save("gs_f16_grid", g16)
    GRID_SAMPLE_CASES.append(("f16_bicubic_border", "gs_f16_x", "gs_f16_grid",
                              dict(mode="bicubic", padding="border", align=0)))
    GRID_SAMPLE_CASES.append(("f16_bilinear_zeros", "gs_f16_x", "gs_f16_grid",
                              dict(mode="bilinear", padding="zeros", align=1)))
    arrays = {"gs_x": x, "gs_grid_near": near, "gs_grid_far": far, "gs_row_x": x1,
              "gs_row_grid": g1, "gs_one_x": x11, "gs_f16_x": x16, "gs_f16_grid": g16}
    for name, x_name, g_name, attrs in GRID_SAMPLE_CASES:
        save("gs_%s_y" % name, grid_sample(arrays[x_name], arrays[g_name], **attrs))
    return arrays


# ----------------------------------------------------------------------------------------
# Optional cross-check with the ONNX reference evaluator


def check_onnx(resize_inputs, cubic_inputs, gs_arrays):
    from onnx import TensorProto, helper
    from onnx.reference import ReferenceEvaluator

    def run(op, inputs, domain_opset=23, **attrs):
        names = ["i%d" % i for i in range(len(inputs))]
        node = helper.make_node(op, names, ["y"], **attrs)
        graph = helper.make_graph(
            [node], "g",
            [helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(a.dtype), a.shape)
             for n, a in zip(names, inputs)],
            [helper.make_tensor_value_info("y", TensorProto.UNDEFINED, None)])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", domain_opset)])
        return ReferenceEvaluator(model).run(None, dict(zip(names, inputs)))[0]

    def report(what, ours, theirs, tol):
        ok = np.allclose(ours, theirs.astype(F64), rtol=tol, atol=tol, equal_nan=True)
        print("%-8s %-40s %s" % ("ok" if ok else "DIFFERS", what, ""
                                 if ok else np.max(np.abs(ours - theirs))))

    def load(name):
        return np.load(os.path.join(OUT, name + ".npy"))

    x = load("softmax_special_x")
    report("softmax special", load("softmax_special_y"), run("Softmax", [x], 21, axis=-1), 1e-12)
    report("log_softmax special", load("log_softmax_special_y"),
           run("LogSoftmax", [x], 21, axis=-1), 1e-12)
    x = load("norm_x")
    s4 = np.broadcast_to(load("ln_axis1_scale"), (3, 4)).copy()
    b31 = np.broadcast_to(load("ln_axis1_bias"), (3, 4)).copy()
    report("layer_norm axis1", load("ln_axis1_y"),
           run("LayerNormalization", [x, s4, b31], 21, axis=1), 1e-5)
    report("rms_norm axis-2", load("rms_axisneg2_y"),
           run("RMSNormalization", [x, load("rms_scale")], 23, axis=-2), 1e-5)
    report("batch_norm", load("bn_y"),
           run("BatchNormalization", [load("bn_" + n) for n in ("x", "scale", "bias", "mean", "var")],
               21, training_mode=0), 1e-5)
    for g in (1, 3, 6):
        report("group_norm g%d" % g, load("gn_g%d_y" % g),
               run("GroupNormalization", [load("gn_x"), load("gn_scale"), load("gn_bias")], 21,
                   num_groups=g), 1e-5)
    report("instance_norm", load("in_y"),
           run("InstanceNormalization", [x, load("in_scale"), load("in_bias")], 21), 1e-5)
    for mode in ("DCR", "CRD"):
        report("depth_to_space " + mode, load("d2s_%s_y" % mode.lower()),
               run("DepthToSpace", [load("d2s_x")], 21, blocksize=2, mode=mode), 0)
    report("space_to_depth", load("s2d_b3_y"),
           run("SpaceToDepth", [load("s2d_b3_x")], 21, blocksize=3), 0)

    for name, x_name, attrs in RESIZE_CASES:
        x = resize_inputs[x_name].astype(np.float32)
        a = dict(mode=attrs["mode"], coordinate_transformation_mode=attrs["coord"])
        if "nearest" in attrs:
            a["nearest_mode"] = attrs["nearest"]
        empty = np.array([], dtype=np.float32)
        if "scales" in attrs:
            ins = [x, empty, np.array(attrs["scales"], dtype=np.float32)]
        else:
            ins = [x, empty, empty, np.array(attrs["sizes"], dtype=np.int64)]
        y = run("Resize", ins, 21, **a)
        report("resize " + name, resize(x, **{**attrs, "scales": [float(np.float32(s)) for s in
                                                                attrs.get("scales", [])] or None}),
               y, 1e-5)
    for name, x_name, attrs in RESIZE_CUBIC_CASES:
        if attrs["coord"] == "tf_half_pixel_for_nn":
            continue  # not in the reference since opset 13
        x = cubic_inputs[x_name].astype(np.float32)
        a = dict(mode=attrs["mode"], coordinate_transformation_mode=attrs["coord"])
        if "nearest" in attrs:
            a["nearest_mode"] = attrs["nearest"]
        if attrs["mode"] == "cubic":
            a["cubic_coeff_a"] = attrs.get("cubic_a", -0.75)
            a["exclude_outside"] = attrs.get("exclude_outside", 0)
        empty = np.array([], dtype=np.float32)
        if "scales" in attrs:
            ins = [x, empty, np.array(attrs["scales"], dtype=np.float32)]
        else:
            ins = [x, empty, empty, np.array(attrs["sizes"], dtype=np.int64)]
        y = run("Resize", ins, 21, **a)
        ours = resize(x, **{**attrs, "scales": [float(np.float32(s)) for s in
                                                attrs.get("scales", [])] or None})
        report("resize " + name, ours, y, 1e-3 if x_name == "resize_cubic_f16_x" else 1e-5)
    for name, x_name, g_name, attrs in GRID_SAMPLE_CASES:
        x, g = gs_arrays[x_name], gs_arrays[g_name]
        mode = {"bilinear": "linear", "bicubic": "cubic"}.get(attrs["mode"], attrs["mode"])
        try:
            y = run("GridSample", [x, g.astype(x.dtype)], 22, mode=mode,
                    padding_mode=attrs["padding"], align_corners=attrs["align"])
        except (OverflowError, ZeroDivisionError) as e:  # reflection over a single element
            print("%-8s %-40s %s" % ("NO REF", "grid_sample " + name, e))
            continue
        tol = 1e-2 if x.dtype == np.float16 else 1e-4
        report("grid_sample " + name, grid_sample(x, g.astype(x.dtype), **attrs), y, tol)
    for name, q, k, v, mask, attrs in ATTENTION_CASES:
        # A full-shape mask: the ONNX reference takes the causal mask's S from the mask's
        # shape, so a mask broadcasting along S would get the wrong causal rows there.
        full = None if mask is None else np.broadcast_to(
            mask, (q.shape[0], q.shape[1], q.shape[2], k.shape[2])).copy()
        ins = [q, k, v] + ([full] if mask is not None else [])
        a = {}
        if "scale" in attrs:
            a["scale"] = attrs["scale"]
        if attrs.get("is_causal"):
            a["is_causal"] = 1
        tol = 1e-2 if q.dtype == np.float16 else 1e-5
        report("attention " + name, attention(q, k, v, mask, **attrs), run("Attention", ins, **a), tol)
    for name, x, cos, sin, inter, rdim in ROTARY_CASES:
        a = dict(interleaved=inter)
        if rdim:
            a["rotary_embedding_dim"] = rdim
        tol = 1e-2 if x.dtype == np.float16 else 1e-5
        # Without position_ids, ONNX's caches are [B, S, R / 2]; ours are [S, R / 2].
        b_cos, b_sin = (np.broadcast_to(c, (x.shape[0],) + c.shape).copy() for c in (cos, sin))
        report("rotary " + name, rotary(x, cos, sin, inter, rdim),
               run("RotaryEmbedding", [x, b_cos, b_sin], **a), tol)


def main():
    os.makedirs(OUT, exist_ok=True)
    softmax_cases()
    norm_cases()
    resize_inputs = resize_cases()
    movement_cases()
    attention_cases()
    rotary_cases()
    cubic_inputs = resize_cubic_cases()
    gs_arrays = grid_sample_cases()
    if "--check-onnx" in sys.argv[1:]:
        check_onnx(resize_inputs, cubic_inputs, gs_arrays)


if __name__ == "__main__":
    main()
