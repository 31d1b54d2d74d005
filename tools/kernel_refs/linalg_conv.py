#!/usr/bin/env python3
"""NumPy references for the cpu-ref linear-algebra, convolution and pooling kernels.

Writes deterministic cases to tests/data/kernels/linalg_conv/ as .npy files:
<case>_<input>.npy for each input (a b c, or x w b) and <case>_y.npy for the expected
output. Attributes are not stored: each case's attributes are written out both here
(CASES) and in tests/unit/plugins/cpu/ref/linalg_ref_test.cpp and conv_pool_ref_test.cpp,
under the same name.

The references are written from the ONNX operator definitions, independently of the C++
kernels: matmul and gemm with NumPy's own matmul (integers through Python ints, wrapped
to the dtype), conv as a sum over kernel taps of strided slices of a zero-padded input
contracted with einsum, conv_transpose as a scatter of every input element into a full
(uncropped) output that is then cropped by the pads, and the pools over explicit windows
cut from an input padded with validity masks. Float references are computed in float64
from the (rounded) stored inputs and stored as float64; integer references are exact.

Run from the repository root:  python3 tools/kernel_refs/linalg_conv.py
"""
import itertools
import os

import numpy as np

OUT_DIR = os.path.join(os.path.dirname(__file__), "..", "..", "tests", "data", "kernels",
                       "linalg_conv")

RNG = np.random.default_rng(20240611)


def rand(shape, dtype=np.float32, scale=1.0):
    return (RNG.standard_normal(shape) * scale).astype(dtype)


def f64(a):
    return np.asarray(a, dtype=np.float64)


# ---------------------------------------------------------------------------------------
# matmul and gemm


def wrap(values, dtype):
    """Python ints wrapped to `dtype` (two's complement), as NumPy's integer casts do."""
    bits = np.dtype(dtype).itemsize * 8
    out = np.empty(np.shape(values), dtype=dtype)
    flat_in = np.asarray(values, dtype=object).reshape(-1)
    flat_out = out.reshape(-1)
    for i, v in enumerate(flat_in):
        v = int(v) % (1 << bits)
        if np.issubdtype(dtype, np.signedinteger) and v >= 1 << (bits - 1):
            v -= 1 << bits
        flat_out[i] = v
    return out


def matmul_ref(a, b):
    if np.issubdtype(a.dtype, np.integer):
        exact = np.matmul(a.astype(object), b.astype(object))  # Python ints: no overflow
        return wrap(exact, a.dtype)
    return np.matmul(f64(a), f64(b))


def gemm_ref(a, b, c=None, alpha=1.0, beta=1.0, trans_a=0, trans_b=0):
    a = f64(a).T if trans_a else f64(a)
    b = f64(b).T if trans_b else f64(b)
    y = alpha * (a @ b)
    if c is not None:
        y = y + beta * np.broadcast_to(f64(c), y.shape)
    return y


# ---------------------------------------------------------------------------------------
# conv and conv_transpose


def window_attrs(spatial, strides=None, pads=None, dilations=None):
    return (list(strides or [1] * spatial), list(pads or [0] * (2 * spatial)),
            list(dilations or [1] * spatial))


def conv_ref(x, w, b=None, strides=None, pads=None, dilations=None, group=1):
    x, w = f64(x), f64(w)
    n, c = x.shape[:2]
    m = w.shape[0]
    spatial = x.ndim - 2
    strides, pads, dilations = window_attrs(spatial, strides, pads, dilations)
    kernel = w.shape[2:]
    xp = np.pad(x, [(0, 0), (0, 0)] + [(pads[d], pads[spatial + d]) for d in range(spatial)])
    out = [(xp.shape[2 + d] - ((kernel[d] - 1) * dilations[d] + 1)) // strides[d] + 1
           for d in range(spatial)]
    y = np.zeros((n, m, *out))
    cg, mg = c // group, m // group
    for g in range(group):
        xg = xp[:, g * cg:(g + 1) * cg]
        wg = w[g * mg:(g + 1) * mg]
        for tap in itertools.product(*[range(k) for k in kernel]):
            sl = tuple(slice(tap[d] * dilations[d],
                             tap[d] * dilations[d] + strides[d] * (out[d] - 1) + 1, strides[d])
                       for d in range(spatial))
            window = xg[(slice(None), slice(None)) + sl]  # [N, Cg, out...]
            y[:, g * mg:(g + 1) * mg] += np.einsum("nc...,mc->nm...", window,
                                                   wg[(slice(None), slice(None)) + tap])
    if b is not None:
        y += f64(b).reshape((1, m) + (1,) * spatial)
    return y


def conv_transpose_ref(x, w, b=None, strides=None, pads=None, dilations=None, group=1,
                       output_padding=None):
    x, w = f64(x), f64(w)
    n, c = x.shape[:2]
    spatial = x.ndim - 2
    strides, pads, dilations = window_attrs(spatial, strides, pads, dilations)
    output_padding = list(output_padding or [0] * spatial)
    kernel = w.shape[2:]
    mg = w.shape[1]
    m = mg * group
    cg = c // group
    ins = x.shape[2:]
    full = [strides[d] * (ins[d] - 1) + (kernel[d] - 1) * dilations[d] + 1 + output_padding[d]
            for d in range(spatial)]
    y = np.zeros((n, m, *full))
    for g in range(group):
        xg = x[:, g * cg:(g + 1) * cg]  # [N, Cg, in...]
        wg = w[g * cg:(g + 1) * cg]  # [Cg, Mg, k...]
        for tap in itertools.product(*[range(k) for k in kernel]):
            contrib = np.einsum("nc...,cm->nm...", xg, wg[(slice(None), slice(None)) + tap])
            sl = tuple(slice(tap[d] * dilations[d],
                             tap[d] * dilations[d] + strides[d] * (ins[d] - 1) + 1, strides[d])
                       for d in range(spatial))
            y[(slice(None), slice(g * mg, (g + 1) * mg)) + sl] += contrib
    crop = tuple(slice(pads[d], full[d] - pads[spatial + d]) for d in range(spatial))
    y = y[(slice(None), slice(None)) + crop]
    if b is not None:
        y = y + f64(b).reshape((1, m) + (1,) * spatial)
    return y


# ---------------------------------------------------------------------------------------
# pools


def pool_out_dim(size, k, stride, pad_b, pad_e, dilation, ceil_mode):
    extent = (k - 1) * dilation + 1
    span = size + pad_b + pad_e - extent
    if ceil_mode:
        out = -(-span // stride) + 1
        if (out - 1) * stride >= size + pad_b:  # the last window may not start in the end pad
            out -= 1
    else:
        out = span // stride + 1
    return out


def pool_ref(x, kind, kernel_shape, strides=None, pads=None, dilations=None, ceil_mode=0,
             count_include_pad=0):
    x = f64(x)
    spatial = x.ndim - 2
    strides, pads, dilations = window_attrs(spatial, strides, pads, dilations)
    ins = x.shape[2:]
    extents = [(kernel_shape[d] - 1) * dilations[d] + 1 for d in range(spatial)]
    out = [pool_out_dim(ins[d], kernel_shape[d], strides[d], pads[d], pads[spatial + d],
                        dilations[d], ceil_mode) for d in range(spatial)]
    # Pad on both sides with the explicit pads, then further at the end so that every
    # (ceil_mode) window fits. Masks: `real` marks elements of x, `padded` marks elements
    # of x or of its explicit padding (not the ceil_mode overhang).
    extra = [max(0, (out[d] - 1) * strides[d] + extents[d] - (ins[d] + pads[d] + pads[spatial + d]))
             for d in range(spatial)]
    widths = [(0, 0), (0, 0)] + [(pads[d], pads[spatial + d] + extra[d]) for d in range(spatial)]
    values = np.pad(x, widths)
    real = np.pad(np.ones(x.shape), widths)
    padded = np.pad(np.ones(x.shape[:2] + tuple(ins[d] + pads[d] + pads[spatial + d]
                                                 for d in range(spatial))),
                    [(0, 0), (0, 0)] + [(0, extra[d]) for d in range(spatial)])
    y = np.zeros(x.shape[:2] + tuple(out))
    for pos in itertools.product(*[range(o) for o in out]):
        sl = (slice(None), slice(None)) + tuple(
            slice(pos[d] * strides[d], pos[d] * strides[d] + extents[d], dilations[d])
            for d in range(spatial))
        axes = tuple(range(2, 2 + spatial))
        v, r, p = values[sl], real[sl], padded[sl]
        if kind == "max":
            with np.errstate(invalid="ignore"):
                y[(slice(None), slice(None)) + pos] = np.max(np.where(r > 0, v, -np.inf), axis=axes)
        else:
            total = np.sum(v * r, axis=axes)
            count = np.sum(p if count_include_pad else r, axis=axes)
            with np.errstate(invalid="ignore", divide="ignore"):
                y[(slice(None), slice(None)) + pos] = total / count
    return y


def global_avg_pool_ref(x):
    x = f64(x)
    return np.mean(x, axis=tuple(range(2, x.ndim)), keepdims=True)


# ---------------------------------------------------------------------------------------
# cases: name -> (inputs, expected). Attributes mirror the C++ test of the same name.


def cases():
    out = {}

    def add(name, inputs, y):
        out[name] = (inputs, y)

    # matmul
    a, b = rand((3, 4)), rand((4, 5))
    add("mm_f32_2d", {"a": a, "b": b}, matmul_ref(a, b))
    a, b = rand((2, 1, 3, 4)), rand((3, 4, 2))
    add("mm_f32_batch", {"a": a, "b": b}, matmul_ref(a, b))
    a, b = rand((4,)), rand((2, 4, 3))
    add("mm_f32_vec_left", {"a": a, "b": b}, matmul_ref(a, b))
    a, b = rand((2, 3, 4)), rand((4,))
    add("mm_f32_vec_right", {"a": a, "b": b}, matmul_ref(a, b))
    a, b = rand((5,), np.float64), rand((5,), np.float64)
    add("mm_f64_dot", {"a": a, "b": b}, matmul_ref(a, b))
    a, b = rand((2, 3, 8), np.float16), rand((1, 8, 4), np.float16)
    add("mm_f16", {"a": a, "b": b}, matmul_ref(a, b))
    a = RNG.integers(-(1 << 30), 1 << 30, (2, 3, 4)).astype(np.int32)
    b = RNG.integers(-(1 << 30), 1 << 30, (4, 5)).astype(np.int32)
    add("mm_i32", {"a": a, "b": b}, matmul_ref(a, b))
    a = RNG.integers(-128, 128, (3, 6)).astype(np.int8)
    b = RNG.integers(-128, 128, (2, 6, 2)).astype(np.int8)
    add("mm_i8", {"a": a, "b": b}, matmul_ref(a, b))
    a = RNG.integers(0, 256, (6,)).astype(np.uint8)
    b = RNG.integers(0, 256, (6, 3)).astype(np.uint8)
    add("mm_u8", {"a": a, "b": b}, matmul_ref(a, b))
    a = RNG.integers(-(1 << 62), 1 << 62, (2, 3), dtype=np.int64)
    b = RNG.integers(-(1 << 62), 1 << 62, (3, 2), dtype=np.int64)
    add("mm_i64", {"a": a, "b": b}, matmul_ref(a, b))

    # gemm
    a, b, c = rand((3, 4)), rand((4, 5)), rand((5,))
    add("gemm_nn", {"a": a, "b": b, "c": c}, gemm_ref(a, b, c, alpha=0.5, beta=2.0))
    a, b, c = rand((4, 3)), rand((5, 4)), rand((3, 1))
    add("gemm_tt", {"a": a, "b": b, "c": c}, gemm_ref(a, b, c, alpha=-1.5, trans_a=1, trans_b=1))
    a, b, c = rand((4, 3)), rand((4, 2)), rand(())
    add("gemm_tn", {"a": a, "b": b, "c": c}, gemm_ref(a, b, c, beta=-0.25, trans_a=1))
    a, b, c = rand((3, 4), np.float64), rand((5, 4), np.float64), rand((3, 5), np.float64)
    add("gemm_nt_f64", {"a": a, "b": b, "c": c}, gemm_ref(a, b, c, trans_b=1))
    a, b = rand((3, 6), np.float16), rand((6, 2), np.float16)
    add("gemm_noc_f16", {"a": a, "b": b}, gemm_ref(a, b, alpha=2.0))

    # conv
    x, w, b = rand((2, 3, 7)), rand((4, 3, 3)), rand((4,))
    add("conv1d", {"x": x, "w": w, "b": b}, conv_ref(x, w, b, strides=[2], pads=[1, 2]))
    x, w = rand((1, 2, 5, 6)), rand((3, 2, 3, 3))
    add("conv2d_basic", {"x": x, "w": w}, conv_ref(x, w))
    x, w, b = rand((2, 4, 7, 6)), rand((6, 2, 3, 2)), rand((6,))
    add("conv2d_group", {"x": x, "w": w, "b": b},
        conv_ref(x, w, b, strides=[2, 1], pads=[1, 0, 2, 1], dilations=[1, 2], group=2))
    x, w, b = rand((1, 3, 5, 5)), rand((3, 1, 3, 3)), rand((3,))
    add("conv2d_depthwise", {"x": x, "w": w, "b": b},
        conv_ref(x, w, b, pads=[1, 1, 1, 1], group=3))
    x, w, b = rand((1, 2, 4, 5, 3)), rand((2, 2, 2, 3, 2)), rand((2,))
    add("conv3d", {"x": x, "w": w, "b": b},
        conv_ref(x, w, b, strides=[1, 2, 1], pads=[0, 1, 1, 1, 0, 0], dilations=[2, 1, 1]))
    x, w = rand((1, 1, 4, 4), np.float64), rand((2, 1, 2, 2), np.float64)
    add("conv2d_f64", {"x": x, "w": w}, conv_ref(x, w, strides=[2, 2]))
    x, w, b = rand((1, 2, 5, 5), np.float16), rand((2, 2, 3, 3), np.float16), rand((2,), np.float16)
    add("conv2d_f16", {"x": x, "w": w, "b": b}, conv_ref(x, w, b, pads=[1, 1, 1, 1]))

    # conv_transpose
    x, w, b = rand((1, 2, 4)), rand((2, 3, 3)), rand((3,))
    add("convt1d", {"x": x, "w": w, "b": b},
        conv_transpose_ref(x, w, b, strides=[2], pads=[1, 0], output_padding=[1]))
    x, w = rand((1, 1, 3, 3)), rand((1, 2, 3, 3))
    add("convt2d_basic", {"x": x, "w": w}, conv_transpose_ref(x, w))
    x, w, b = rand((2, 4, 3, 3)), rand((4, 2, 3, 2)), rand((4,))
    add("convt2d_group", {"x": x, "w": w, "b": b},
        conv_transpose_ref(x, w, b, strides=[2, 3], pads=[0, 1, 1, 0], dilations=[1, 2],
                           group=2, output_padding=[1, 0]))
    x, w = rand((1, 2, 2, 3, 2)), rand((2, 1, 2, 2, 2))
    add("convt3d", {"x": x, "w": w},
        conv_transpose_ref(x, w, strides=[2, 1, 2], pads=[1, 0, 0, 0, 1, 1],
                           dilations=[1, 2, 1]))
    x, w = rand((1, 2, 3, 3), np.float16), rand((2, 2, 2, 2), np.float16)
    add("convt2d_f16", {"x": x, "w": w}, conv_transpose_ref(x, w, strides=[2, 2]))

    # max_pool
    x = rand((2, 3, 9))
    add("maxpool1d", {"x": x}, pool_ref(x, "max", [3], strides=[2], pads=[1, 1]))
    x = rand((1, 2, 6, 7))
    add("maxpool2d_ceil", {"x": x},
        pool_ref(x, "max", [3, 2], strides=[2, 2], pads=[1, 0, 1, 1], dilations=[1, 2],
                 ceil_mode=1))
    x = rand((1, 1, 5, 4, 6))
    add("maxpool3d", {"x": x}, pool_ref(x, "max", [2, 2, 3], strides=[2, 1, 2]))
    x = rand((1, 1, 3, 4, 3, 4))
    add("maxpool4d", {"x": x}, pool_ref(x, "max", [2, 2, 2, 2], strides=[1, 2, 1, 2]))
    x = rand((1, 2, 5, 5), np.float16)
    add("maxpool2d_f16", {"x": x}, pool_ref(x, "max", [2, 2], strides=[2, 2], ceil_mode=1))

    # avg_pool
    x = rand((1, 2, 6, 6))
    add("avgpool2d_cip0", {"x": x},
        pool_ref(x, "avg", [3, 3], strides=[2, 2], pads=[1, 1, 1, 1], ceil_mode=1))
    add("avgpool2d_cip1", {"x": x},
        pool_ref(x, "avg", [3, 3], strides=[2, 2], pads=[1, 1, 1, 1], ceil_mode=1,
                 count_include_pad=1))
    x = rand((1, 2, 9))
    add("avgpool1d_ceil_cip1", {"x": x},
        pool_ref(x, "avg", [7], strides=[3], pads=[3, 3], ceil_mode=1, count_include_pad=1))
    x = rand((1, 1, 7, 6, 5))
    for cip in (0, 1):
        add(f"avgpool3d_cip{cip}", {"x": x},
            pool_ref(x, "avg", [2, 3, 2], strides=[3, 2, 2], pads=[1, 0, 1, 0, 1, 0],
                     dilations=[2, 1, 2], ceil_mode=1, count_include_pad=cip))
    x = rand((2, 1, 4, 5))
    add("avgpool2d_floor_cip1", {"x": x},
        pool_ref(x, "avg", [2, 3], strides=[2, 2], pads=[1, 2, 0, 1], count_include_pad=1))
    x = rand((1, 2, 5, 5), np.float16)
    add("avgpool2d_f16", {"x": x}, pool_ref(x, "avg", [3, 3], pads=[1, 1, 1, 1]))

    # global_avg_pool
    x = rand((2, 3, 4, 5))
    add("gap2d", {"x": x}, global_avg_pool_ref(x))
    x = rand((2, 3, 7), np.float64)
    add("gap1d_f64", {"x": x}, global_avg_pool_ref(x))
    x = rand((1, 2, 2, 3, 2), np.float16)
    add("gap3d_f16", {"x": x}, global_avg_pool_ref(x))
    return out


def self_check():
    """Cross-checks of the references against each other and hand-derived values."""
    rng = np.random.default_rng(7)  # its own generator: the cases' data do not depend on it
    # conv_transpose is the adjoint of conv: <conv(x, w), y> == <x, conv_transpose(y, w)>.
    x, w = rng.standard_normal((2, 4, 6, 5)), rng.standard_normal((6, 2, 3, 2))
    kw = dict(strides=[2, 1], pads=[1, 0, 0, 1], dilations=[1, 2], group=2)
    cx = conv_ref(x, w, **kw)
    y = rng.standard_normal(cx.shape)
    ty = conv_transpose_ref(y, w, **kw)
    ty = ty[:, :, :x.shape[2], :x.shape[3]]
    pad_t = np.zeros_like(x)
    pad_t[:, :, :ty.shape[2], :ty.shape[3]] = ty
    assert np.isclose(np.sum(cx * y), np.sum(x * pad_t)), "conv/conv_transpose adjoint"
    # ONNX AveragePool examples (hand-derived in the ONNX operator tests).
    x = np.arange(1, 26, dtype=np.float64).reshape(1, 1, 5, 5)
    got = pool_ref(x, "avg", [5, 5], pads=[2, 2, 2, 2], count_include_pad=1)
    assert np.allclose(got[0, 0, 0], [2.52, 3.6, 4.8, 4.08, 3.24])
    got = pool_ref(x, "avg", [5, 5], pads=[2, 2, 2, 2])
    assert np.allclose(got[0, 0, 0], [7, 7.5, 8, 8.5, 9])
    x = np.arange(1, 6, dtype=np.float64).reshape(1, 1, 5)
    got = pool_ref(x, "avg", [2], strides=[2], ceil_mode=1, count_include_pad=1)
    assert np.allclose(got[0, 0], [1.5, 3.5, 5.0])


def main():
    self_check()
    os.makedirs(OUT_DIR, exist_ok=True)
    for name in os.listdir(OUT_DIR):
        if name.endswith(".npy"):
            os.remove(os.path.join(OUT_DIR, name))
    total = 0
    all_cases = cases()
    for name, (inputs, y) in all_cases.items():
        for role, value in list(inputs.items()) + [("y", y)]:
            path = os.path.join(OUT_DIR, f"{name}_{role}.npy")
            np.save(path, np.array(value, order="C"))  # keeps 0-d arrays 0-d
            total += os.path.getsize(path)
    print(f"wrote {len(all_cases)} cases, {total} bytes, to {os.path.normpath(OUT_DIR)}")


if __name__ == "__main__":
    main()
