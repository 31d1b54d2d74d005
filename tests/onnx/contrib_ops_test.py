#!/usr/bin/env python3
"""ONNX Runtime's com.microsoft ops that the importer maps (docs/onnx-import.md), each in a
one-node model with random inputs: `switchyard import` and `switchyard run` on cpu against
ONNX Runtime's own outputs (every output the node has, optional ones included).

usage: contrib_ops_test.py SWITCHYARD   (skips, exit 77, without onnx and onnxruntime)
"""
from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
import tempfile

try:
    import numpy as np
    import onnx
    import onnxruntime as ort
    from onnx import TensorProto, helper, numpy_helper
except ImportError as e:
    print(f"contrib_ops_test: skipped: {e}")
    sys.exit(77)

F = TensorProto.FLOAT
RNG = np.random.default_rng(7)


def case(name, op, inputs, outputs, domain="com.microsoft", reference=None, dims=None,
         consts=(), **attrs):
    """inputs: (name, array), (name, None) for an omitted optional input; outputs: (name[, type]) or None for an omitted optional output;
    reference: a NumPy function of the inputs, for an op ONNX Runtime has no CPU kernel of;
    dims: input name -> its declared dims (symbolic names kept run-time sizes on import);
    consts: names of inputs stored as initializers (weights) rather than graph inputs."""
    dims = dims or {}
    node = helper.make_node(op, [n if a is not None else "" for n, a in inputs],
                            [o[0] if o else "" for o in outputs], domain=domain, **attrs)
    graph = helper.make_graph(
        [node], name,
        [helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(a.dtype),
                                       dims.get(n, a.shape)) for n, a in inputs
         if a is not None and n not in consts],
        [helper.make_tensor_value_info(o[0], o[1] if len(o) > 1 else F, None)
         for o in outputs if o],
        [numpy_helper.from_array(a, n) for n, a in inputs if n in consts and a is not None])
    opsets = [helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)]
    model = helper.make_model(graph, opset_imports=opsets, ir_version=8)
    return name, model, {n: a for n, a in inputs if a is not None and n not in consts}, reference


def cases():
    x = RNG.standard_normal((2, 3, 8)).astype(np.float32)
    skip = RNG.standard_normal((2, 3, 8)).astype(np.float32)
    gamma = RNG.standard_normal(8).astype(np.float32)
    beta = RNG.standard_normal(8).astype(np.float32)
    bias = RNG.standard_normal(8).astype(np.float32)
    a = RNG.standard_normal((2, 4, 5)).astype(np.float32)
    b = RNG.standard_normal((2, 6, 5)).astype(np.float32)
    yield case("gelu", "Gelu", [("x", x)], [("y",)])
    yield case("fast_gelu", "FastGelu", [("x", x), ("bias", bias)], [("y",)])
    yield case("bias_gelu", "BiasGelu", [("x", x), ("bias", bias)], [("y",)])
    yield case("quick_gelu", "QuickGelu", [("x", x)], [("y",)], alpha=1.5)
    # BiasAdd has only a CUDA kernel in ONNX Runtime: NumPy's sum instead.
    yield case("bias_add", "BiasAdd", [("x", x), ("bias", bias), ("skip", skip)], [("y",)],
               reference=lambda f: [f["x"] + f["bias"] + f["skip"]])
    yield case("fused_matmul", "FusedMatMul", [("a", a), ("b", b)], [("y",)], transB=1,
               alpha=0.5)
    yield case("skip_layer_norm", "SkipLayerNormalization",
               [("x", x), ("skip", skip), ("gamma", gamma), ("beta", beta), ("bias", bias)],
               [("y",), ("mean",), ("inv_std",), ("sum",)], epsilon=1e-5)
    yield case("skip_simplified_layer_norm", "SkipSimplifiedLayerNormalization",
               [("x", x), ("skip", skip), ("gamma", gamma), ("bias", bias)],
               [("y",), None, ("inv_std",), ("sum",)], epsilon=1e-5)
    yield from attention_cases()
    yield from matmul_nbits_cases()
    yield from qoperator_cases()
    yield case("simplified_layer_norm", "SimplifiedLayerNormalization",
               [("x", x), ("gamma", gamma)], [("y",), ("inv_std",)], domain="",
               axis=-1, epsilon=1e-5)


def attention_cases():
    """The attention family: MultiHeadAttention, Attention, RotaryEmbedding and
    EmbedLayerNormalization, in the forms ONNX Runtime's optimizer and builders write."""
    r = RNG.standard_normal
    b, s, p, n, h = 2, 3, 4, 2, 4  # batch, sequence, past, heads, head size
    d = n * h
    q, k, v = (r((b, s, d)).astype(np.float32) for _ in range(3))
    bias = r(3 * d).astype(np.float32)
    past_k, past_v = (r((b, n, p, h)).astype(np.float32) for _ in range(2))
    pad_mask = np.array([[1] * (p + s), [1] * (p + 1) + [0] * (s - 1)], dtype=np.int32)
    attn_bias = r((1, n, s, p + s)).astype(np.float32)
    yield case("mha_self_bias_padding", "MultiHeadAttention",
               [("q", q), ("k", k), ("v", v), ("bias", bias),
                ("mask", pad_mask[:, :s].copy())], [("y",)], num_heads=n)
    yield case("mha_past_causal_bias", "MultiHeadAttention",
               [("q", q), ("k", k), ("v", v), ("bias", bias), ("mask", pad_mask),
                ("attn_bias", attn_bias), ("past_k", past_k), ("past_v", past_v)],
               [("y",), ("present_k",), ("present_v",)], num_heads=n, unidirectional=1)
    yield case("mha_symbolic_sizes_lengths", "MultiHeadAttention",
               [("q", q), ("k", k), ("v", v), ("bias", bias),
                ("mask", np.array([2, 3], dtype=np.int32)), ("attn_bias", None),
                ("past_k", past_k), ("past_v", past_v)],
               [("y",), ("present_k",), ("present_v",)], num_heads=n, unidirectional=1,
               dims={"q": ["b", "s", d], "k": ["b", "s", d], "v": ["b", "s", d],
                     "mask": ["b"], "past_k": ["b", n, "p", h], "past_v": ["b", n, "p", h]})
    yield case("mha_cross_bnsh", "MultiHeadAttention",
               [("q", q), ("k", past_k), ("v", past_v)], [("y",)], num_heads=n, scale=0.3)
    x = r((b, s, 6)).astype(np.float32)
    w = r((6, 3 * d)).astype(np.float32)
    past = r((2, b, n, p, h)).astype(np.float32)
    lengths = np.array([3, 2], dtype=np.int32)
    yield case("attention_bert_lengths", "Attention",
               [("x", x), ("w", w), ("bias", bias), ("mask", lengths)], [("y",)], num_heads=n)
    yield case("attention_gpt2_past", "Attention",
               [("x", x), ("w", w), ("bias", bias), ("mask", pad_mask), ("past", past)],
               [("y",), ("present",)], num_heads=n, unidirectional=1)
    cos = r((16, h // 2)).astype(np.float32)
    sin = r((16, h // 2)).astype(np.float32)
    ids = np.array([[0, 1, 2], [5, 6, 7]], dtype=np.int64)
    yield case("rotary_3d_ids", "RotaryEmbedding",
               [("x", q), ("pos", ids), ("cos", cos), ("sin", sin)], [("y",)], num_heads=n)
    yield case("rotary_4d_offset_interleaved", "RotaryEmbedding",
               [("x", past_k), ("pos", np.array([3], dtype=np.int64)), ("cos", cos),
                ("sin", sin)], [("y",)], interleaved=1)
    # GroupQueryAttention: 4 query heads over 2 kv heads of size 16 (ONNX Runtime wants a
    # multiple of 16 for rotary), separate past and present.
    hq, hkv, gh = 4, 2, 16
    gq = r((b, s, hq * gh)).astype(np.float32)
    gk, gv = (r((b, s, hkv * gh)).astype(np.float32) for _ in range(2))
    empty = np.zeros((b, hkv, 0, gh), dtype=np.float32)
    gpast_k, gpast_v = (r((b, hkv, p, gh)).astype(np.float32) for _ in range(2))
    gcos, gsin = (r((16, gh // 2)).astype(np.float32) for _ in range(2))
    yield case("gqa_prompt", "GroupQueryAttention",
               [("q", gq), ("k", gk), ("v", gv), ("past_k", empty), ("past_v", empty),
                ("seqlens_k", np.full(b, s - 1, dtype=np.int32)),
                ("total", np.array(s, dtype=np.int32))],
               [("y",), ("present_k",), ("present_v",)], num_heads=hq, kv_num_heads=hkv)
    one = [arr[:, :1].copy() for arr in (gq, gk, gv)]
    yield case("gqa_decode_rotary", "GroupQueryAttention",
               [("q", one[0]), ("k", one[1]), ("v", one[2]), ("past_k", gpast_k),
                ("past_v", gpast_v), ("seqlens_k", np.full(b, p, dtype=np.int32)),
                ("total", np.array(p + 1, dtype=np.int32)), ("cos", gcos), ("sin", gsin)],
               [("y",), ("present_k",), ("present_v",)], num_heads=hq, kv_num_heads=hkv,
               do_rotary=1)
    # (ONNX Runtime takes several new tokens after a past for batch 1 only.)
    packed = np.concatenate([gq, gk, gv], axis=-1)[:1].copy()
    yield case("gqa_packed_softcap_window", "GroupQueryAttention",
               [("qkv", packed), ("k", None), ("v", None), ("past_k", gpast_k[:1].copy()),
                ("past_v", gpast_v[:1].copy()), ("seqlens_k", np.full(1, p + s - 1, dtype=np.int32)),
                ("total", np.array(p + s, dtype=np.int32))],
               [("y",), ("present_k",), ("present_v",)], num_heads=hq, kv_num_heads=hkv,
               softcap=3.0, local_window_size=3)
    words = RNG.integers(0, 10, (b, s)).astype(np.int32)
    segments = RNG.integers(0, 2, (b, s)).astype(np.int32)
    yield case("embed_layer_norm", "EmbedLayerNormalization",
               [("ids", words), ("seg", segments), ("word", r((10, d)).astype(np.float32)),
                ("pos", r((8, d)).astype(np.float32)), ("seg_emb", r((2, d)).astype(np.float32)),
                ("gamma", r(d).astype(np.float32)), ("beta", r(d).astype(np.float32)),
                ("mask", pad_mask[:, :s].copy())],
               [("y",), ("mask_index", TensorProto.INT32), ("sum",)], epsilon=1e-12)


def nbits_weights(n, k, bits, block):
    """MatMulNBits' packed B [N, k_blocks, blob] (random codes), scales [N * k_blocks] and
    the codes' zero points, one per block (random, in range)."""
    k_blocks = -(-k // block)
    codes = RNG.integers(0, 256, (n, k_blocks, block * bits // 8), dtype=np.uint8)
    scales = (RNG.standard_normal(n * k_blocks) * 0.05).astype(np.float32)
    zeros = RNG.integers(0, 1 << bits, (n, k_blocks), dtype=np.uint8)
    return codes, scales, zeros


def pack_nibbles(zeros):
    """ONNX Runtime's packed 4-bit zero points: per row, two blocks a byte, low first."""
    n, k_blocks = zeros.shape
    padded = np.zeros((n, k_blocks + k_blocks % 2), dtype=np.uint8)
    padded[:, :k_blocks] = zeros
    return (padded[:, 0::2] | (padded[:, 1::2] << 4)).reshape(-1)


def matmul_nbits_cases():
    """MatMulNBits onto quant_matmul: 4 and 8 bits, a partial last block, ONNX Runtime's
    packed zero points, integer-valued float ones, and a bias; weights as initializers."""
    r = RNG.standard_normal
    weights = ("b", "scales", "zp", "g_idx", "bias")
    b, scales, _ = nbits_weights(24, 64, 4, 32)
    yield case("matmul_nbits_4bit", "MatMulNBits",
               [("a", r((2, 3, 64)).astype(np.float32)), ("b", b), ("scales", scales)],
               [("y",)], consts=weights, K=64, N=24, bits=4, block_size=32)
    b, scales, zeros = nbits_weights(5, 40, 4, 16)
    bias = r(5).astype(np.float32)
    yield case("matmul_nbits_4bit_partial_block_zero_points_bias", "MatMulNBits",
               [("a", r((3, 40)).astype(np.float32)), ("b", b), ("scales", scales),
                ("zp", pack_nibbles(zeros)), ("g_idx", None), ("bias", bias)],
               [("y",)], consts=weights, K=40, N=5, bits=4, block_size=16)
    b, scales, zeros = nbits_weights(8, 64, 8, 32)
    yield case("matmul_nbits_8bit_zero_points", "MatMulNBits",
               [("a", r((1, 64)).astype(np.float32)), ("b", b), ("scales", scales),
                ("zp", zeros.reshape(-1))],
               [("y",)], consts=weights, K=64, N=8, bits=8, block_size=32)
    b, scales, zeros = nbits_weights(16, 96, 4, 32)
    yield case("matmul_nbits_4bit_f16", "MatMulNBits",
               [("a", r((2, 96)).astype(np.float16)), ("b", b),
                ("scales", scales.astype(np.float16)), ("zp", pack_nibbles(zeros))],
               [("y", TensorProto.FLOAT16)], consts=weights, K=96, N=16, bits=4, block_size=32)
    b, scales, zeros = nbits_weights(6, 128, 4, 64)
    yield case("matmul_nbits_4bit_float_zero_points", "MatMulNBits",
               [("a", r((4, 128)).astype(np.float32)), ("b", b), ("scales", scales),
                ("zp", zeros.reshape(-1).astype(np.float32))],
               [("y",)], consts=weights, K=128, N=6, bits=4, block_size=64)


def qoperator_cases():
    """The QOperator ops of ONNX Runtime's quantize_static(QuantFormat.QOperator), u8
    activations with per-tensor scales and zero points as initializers."""
    u8 = lambda *shape: RNG.integers(0, 256, shape, dtype=np.uint8)
    sc = lambda v: np.array(v, dtype=np.float32)
    zp = lambda v: np.array(v, dtype=np.uint8)
    params = ("as", "az", "bs", "bz", "cs", "cz", "ys", "yz")
    a, b = u8(2, 3, 4), u8(2, 3, 4)
    for op in ("QLinearAdd", "QLinearMul"):
        yield case("qlinear_" + op[7:].lower(), op,
                   [("a", a), ("as", sc(0.02)), ("az", zp(128)), ("b", b), ("bs", sc(0.03)),
                    ("bz", zp(100)), ("cs", sc(0.05 if op == "QLinearAdd" else 0.4)),
                    ("cz", zp(120))], [("y", TensorProto.UINT8)], consts=params)
    x = u8(1, 3, 6, 6)
    unary = [("x", x), ("as", sc(0.05)), ("az", zp(128)), ("ys", sc(0.004)), ("yz", zp(0))]
    yield case("qlinear_sigmoid", "QLinearSigmoid", unary, [("y", TensorProto.UINT8)],
               consts=params)
    yield case("qlinear_leaky_relu", "QLinearLeakyRelu", unary[:3] + [("ys", sc(0.03)),
               ("yz", zp(100))], [("y", TensorProto.UINT8)], consts=params, alpha=0.2)
    soft = [("x", u8(2, 3, 10)), ("as", sc(0.05)), ("az", zp(128)), ("ys", sc(1 / 256)),
            ("yz", zp(0))]
    yield case("qlinear_softmax_13", "QLinearSoftmax", soft, [("y", TensorProto.UINT8)],
               consts=params, axis=-1, opset=13)
    yield case("qlinear_softmax_11_flattened", "QLinearSoftmax", soft, [("y", TensorProto.UINT8)],
               consts=params, axis=1, opset=11)
    # ONNX Runtime has no CPU kernel of QLinearReduceMean: its definition in NumPy.
    reduce_mean = lambda f: [np.clip(np.round(
        ((f["x"].astype(np.float64) - 128) * np.float32(0.05)).mean(axis=(2, 3), keepdims=True)
        / np.float32(0.02)) + 120, 0, 255).astype(np.uint8)]
    yield case("qlinear_reduce_mean", "QLinearReduceMean",
               [("x", x), ("as", sc(0.05)), ("az", zp(128)), ("ys", sc(0.02)), ("yz", zp(120))],
               [("y", TensorProto.UINT8)], reference=reduce_mean, consts=params, axes=[2, 3],
               keepdims=1)
    yield case("qlinear_where", "QLinearWhere",
               [("c", RNG.random((2, 3, 4)) < 0.5), ("a", a), ("as", sc(0.02)), ("az", zp(128)),
                ("b", b), ("bs", sc(0.03)), ("bz", zp(100)), ("cs", sc(0.04)), ("cz", zp(110))],
               [("y", TensorProto.UINT8)], consts=params)
    pool = [("x", x), ("as", sc(0.05)), ("az", zp(128)), ("ys", sc(0.01)), ("yz", zp(128))]
    yield case("qlinear_global_average_pool", "QLinearGlobalAveragePool", pool,
               [("y", TensorProto.UINT8)], consts=params)
    yield case("qlinear_average_pool", "QLinearAveragePool", pool, [("y", TensorProto.UINT8)],
               consts=params, kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
    yield case("qlinear_concat", "QLinearConcat",
               [("ys", sc(0.04)), ("yz", zp(128)), ("a", a), ("as", sc(0.02)), ("az", zp(128)),
                ("b", b), ("bs", sc(0.03)), ("bz", zp(100))], [("y", TensorProto.UINT8)],
               consts=params, axis=1)
    w = u8(10, 16)  # [N, K] with transB
    gemm = [("a", u8(3, 16)), ("as", sc(0.02)), ("az", zp(128)), ("w", w),
            ("bs", (RNG.random(10) * 0.01 + 0.001).astype(np.float32)), ("bz", zp([128] * 10)),
            ("c", RNG.integers(-500, 500, 10, dtype=np.int32))]
    weights = params + ("w", "c")
    yield case("qgemm_transb_per_column_bias_quantized", "QGemm",
               gemm + [("ys", sc(0.05)), ("yz", zp(128))], [("y", TensorProto.UINT8)],
               consts=weights, transB=1, alpha=1.0)
    yield case("qgemm_float_output", "QGemm", gemm, [("y",)], consts=weights, transB=1,
               alpha=0.5)
    # u8 weights: ONNX Runtime's u8u8 kernel is exact (its u8s8 one saturates on AVX2).
    yield case("dynamic_quantize_matmul_per_column_bias", "DynamicQuantizeMatMul",
               [("x", RNG.standard_normal((2, 3, 16)).astype(np.float32)), ("w", u8(16, 8)),
                ("bs", (RNG.random(8) * 0.02 + 0.001).astype(np.float32)),
                ("bz", RNG.integers(100, 156, 8, dtype=np.uint8)),
                ("bias", RNG.standard_normal(8).astype(np.float32))],
               [("y",)], consts=("w", "bs", "bz", "bias"))
    # ONNX's MatMulInteger onto matmul_integer: values small enough that no pair of
    # products passes 2^15 (ONNX Runtime's u8s8 kernel saturates there on AVX2), weights
    # as initializers (the cpu device's prepared kernel) and as inputs, per-column zero
    # points, u8 and i8 weights. ONNX Runtime takes a scalar zero point for a only, so a's
    # per-row zero points, and ONNX's per-batch ones [2, 3, 1] (the shifted-operand
    # mapping), are checked against NumPy's exact product.
    small_u8 = lambda *shape: RNG.integers(0, 60, shape, dtype=np.uint8)
    small_i8 = lambda *shape: RNG.integers(-60, 60, shape, dtype=np.int8)

    def exact(a, b, az=None, bz=None):
        a = a.astype(np.int64) - (0 if az is None else az.astype(np.int64))
        return [(a @ (b.astype(np.int64) - (0 if bz is None else bz.astype(np.int64))))
                .astype(np.int32)]

    for weights, w in (("u8", small_u8(16, 8)), ("i8", small_i8(16, 8))):
        bz = (small_u8 if weights == "u8" else small_i8)(8)
        for consts in (("b", "bz"), ()):
            yield case(f"matmul_integer_{weights}_{'const' if consts else 'input'}",
                       "MatMulInteger",
                       [("a", small_u8(2, 3, 16)), ("b", w), ("az", small_u8()), ("bz", bz)],
                       [("y", TensorProto.INT32)], domain="", consts=consts)
    w, bz = small_i8(16, 8), small_i8(8)
    yield case("matmul_integer_row_zero_points", "MatMulInteger",
               [("a", small_u8(2, 3, 16)), ("b", w), ("az", small_u8(3)), ("bz", bz)],
               [("y", TensorProto.INT32)], domain="", consts=("b", "bz"),
               reference=lambda f: exact(f["a"], w, f["az"][:, None], bz))
    yield case("matmul_integer_batch_zero_points", "MatMulInteger",
               [("a", small_u8(2, 3, 16)), ("b", small_i8(16, 8)), ("az", small_u8(2, 3, 1))],
               [("y", TensorProto.INT32)], domain="",
               reference=lambda f: exact(f["a"], f["b"], f["az"]))


def qlinear_conv_cases():
    """ONNX QLinearConv onto the catalogue's qlinear_conv, and a QDQ model whose
    DequantizeLinear -> Conv -> QuantizeLinear units the importer folds into it (two
    chained, so the cpu device keeps the codes between them channels-last). Values small
    enough that no pair of products passes 2^15: ONNX Runtime's u8s8 kernels saturate
    there on CPUs without VNNI."""
    u8 = lambda lo, hi, *shape: RNG.integers(lo, hi, shape, dtype=np.uint8)
    i8 = lambda lo, hi, *shape: RNG.integers(lo, hi, shape, dtype=np.int8)
    sc = lambda v: np.array(v, dtype=np.float32)
    params = ("xs", "xz", "w", "ws", "wz", "ys", "yz", "b")
    for name, x, w, attrs in (
            ("qlinear_conv_per_channel_bias", u8(0, 60, 1, 4, 7, 7), i8(-60, 60, 6, 4, 3, 3),
             dict(pads=[1, 1, 1, 1], strides=[2, 1])),
            ("qlinear_conv_groups", u8(0, 60, 2, 4, 6, 6), i8(-60, 60, 6, 2, 3, 3),
             dict(group=2, dilations=[2, 2]))):
        m = w.shape[0]
        yield case(name, "QLinearConv",
                   [("x", x), ("xs", sc(0.05)), ("xz", np.array(7, np.uint8)), ("w", w),
                    ("ws", (RNG.random(m) * 0.01 + 0.002).astype(np.float32)),
                    ("wz", np.zeros(m, np.int8)), ("ys", sc(0.04)),
                    ("yz", np.array(121, np.uint8)),
                    ("b", RNG.integers(-2000, 2000, m, dtype=np.int32))],
                   [("y", TensorProto.UINT8)], domain="", consts=params, **attrs)
    # QDQ: x_q -> DQ -> Conv(DQ(w1), DQ(b1)) -> Q -> DQ -> Conv(DQ(w2), DQ(b2)) -> Q -> y.
    init, nodes = [], []

    def const(name, array):
        init.append(numpy_helper.from_array(array, name))
        return name

    def dq(name, q, scale, zero, axis=1):
        nodes.append(helper.make_node("DequantizeLinear", [q, scale, zero], [name], axis=axis))
        return name

    x_scale, x_zero = 0.05, 7
    prev, prev_scale = dq("x_f", "x", const("xs", sc(x_scale)),
                          const("xz", np.array(x_zero, np.uint8))), x_scale
    for k, (m, c) in enumerate(((8, 4), (6, 8))):
        ws = (RNG.random(m) * 0.01 + 0.002).astype(np.float32)
        w = dq(f"w{k}_f", const(f"w{k}", i8(-60, 60, m, c, 3, 3)), const(f"w{k}s", ws),
               const(f"w{k}z", np.zeros(m, np.int8)), axis=0)
        bs = (np.float32(prev_scale) * ws).astype(np.float32)
        b = dq(f"b{k}_f", const(f"b{k}", RNG.integers(-2000, 2000, m, dtype=np.int32)),
               const(f"b{k}s", bs), const(f"b{k}z", np.zeros(m, np.int32)), axis=0)
        nodes.append(helper.make_node("Conv", [prev, w, b], [f"c{k}"], pads=[1, 1, 1, 1]))
        y_scale = 0.04 if k == 0 else 0.03
        out = "y" if k == 1 else f"q{k}"
        nodes.append(helper.make_node("QuantizeLinear", [f"c{k}", const(f"y{k}s", sc(y_scale)),
                                                         const(f"y{k}z", np.array(121, np.uint8))],
                                      [out]))
        if k == 0:
            prev = dq("q0_f", "q0", "y0s", "y0z")
            prev_scale = y_scale
    graph = helper.make_graph(
        nodes, "qdq_convs", [helper.make_tensor_value_info("x", TensorProto.UINT8, [1, 4, 9, 9])],
        [helper.make_tensor_value_info("y", TensorProto.UINT8, None)], init)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    yield "qdq_conv_chain_folded", model, {"x": u8(0, 60, 1, 4, 9, 9)}, None


def refusals():
    """Forms the importer refuses with a reason rather than computing something else."""
    n = helper.make_node("GroupQueryAttention", ["q", "k", "v", "pk", "pv", "sl", "tot"],
                         ["y", "ok", "ov"], domain="com.microsoft", num_heads=4, kv_num_heads=2)
    cache = [1, 2, "max", 16]
    inputs = [helper.make_tensor_value_info("q", F, [1, 1, 64]),
              helper.make_tensor_value_info("k", F, [1, 1, 32]),
              helper.make_tensor_value_info("v", F, [1, 1, 32]),
              helper.make_tensor_value_info("pk", F, cache),
              helper.make_tensor_value_info("pv", F, cache),
              helper.make_tensor_value_info("sl", TensorProto.INT32, [1]),
              helper.make_tensor_value_info("tot", TensorProto.INT32, [])]
    outputs = [helper.make_tensor_value_info("y", F, None),
               helper.make_tensor_value_info("ok", F, cache),
               helper.make_tensor_value_info("ov", F, cache)]
    opsets = [helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)]
    model = helper.make_model(helper.make_graph([n], "g", inputs, outputs),
                              opset_imports=opsets, ir_version=8)
    yield "gqa_shared_buffer", model, "present_key is declared as long as past_key"
    b, scales, zeros = nbits_weights(4, 32, 4, 32)
    _, model, _, _ = case("nbits", "MatMulNBits",
                          [("a", np.zeros((1, 32), np.float32)), ("b", b), ("scales", scales),
                           ("zp", np.full(4, 1.5, np.float32))],
                          [("y",)], consts=("b", "scales", "zp"), K=32, N=4, bits=4,
                          block_size=32)
    yield "matmul_nbits_fractional_zero_point", model, "a zero point of 1.5"


def main() -> int:
    sy = os.path.abspath(sys.argv[1])
    passed = failed = 0
    with tempfile.TemporaryDirectory() as work:
        for name, model, feeds, reference in itertools.chain(cases(), qlinear_conv_cases()):
            folder = os.path.join(work, name)
            os.makedirs(os.path.join(folder, "inputs"))
            os.makedirs(os.path.join(folder, "ort"))
            path = os.path.join(folder, "model.onnx")
            onnx.save(model, path)
            names = [o.name for o in model.graph.output]
            if reference is None:
                session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
                want = session.run(None, feeds)
            else:
                want = reference(feeds)
            for k, v in zip(names, want):
                np.save(os.path.join(folder, "ort", k + ".npy"), v)
            run_inputs = []
            for k, v in feeds.items():
                np.save(os.path.join(folder, "inputs", k + ".npy"), v)
                run_inputs += ["--input", f"{k}={os.path.join(folder, 'inputs', k + '.npy')}"]
            stem = os.path.join(folder, "sy", "model")
            # quant_matmul's reference kernel too: the cpu kernel is a tuned one.
            devices = ["cpu", "cpu-ref"] if name.startswith("matmul_nbits") else ["cpu"]
            # Quantized outputs: ONNX Runtime rounds its own float arithmetic, so a value
            # on a rounding boundary may land one code away.
            quantized = model.graph.output[0].type.tensor_type.elem_type == TensorProto.UINT8
            tolerance = ["--atol", "1"] if quantized else []
            steps = [[sy, "import", path, "-o", stem]] + [
                [sy, "run", stem, "--device", d, *run_inputs, "--compare",
                 os.path.join(folder, "ort"), *tolerance] for d in devices]
            ok = True
            for step in steps:
                r = subprocess.run(step, capture_output=True, text=True,
                                   cwd=folder, env={**os.environ})
                if r.returncode != 0:
                    print(f"FAIL {name}: {' '.join(step[:2])}: {(r.stdout + r.stderr).strip()}")
                    ok = False
                    break
            if ok and name.startswith("qdq_"):
                # Folded: every Conv became one qlinear_conv, none is left in float.
                with open(stem + ".json") as f:
                    ops = [n["op"] for n in json.load(f)["nodes"]]
                if ops.count("qlinear_conv") != 2 or "conv" in ops:
                    print(f"FAIL {name}: not folded: {sorted(set(ops))}")
                    ok = False
            passed += ok
            failed += not ok
            if ok:
                print(f"ok {name}: {', '.join(names)} match " + ("NumPy" if reference else "ONNX Runtime"))
        for name, model, reason in refusals():
            path = os.path.join(work, name + ".onnx")
            onnx.save(model, path)
            r = subprocess.run([sy, "import", path, "-o", os.path.join(work, name)],
                               capture_output=True, text=True)
            ok = r.returncode != 0 and reason in r.stderr
            passed += ok
            failed += not ok
            print(("ok" if ok else "FAIL") + f" {name}: refused" +
                  ("" if ok else f"; expected '{reason}', got: {r.stderr.strip()}"))
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
