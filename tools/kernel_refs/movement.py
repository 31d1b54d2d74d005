#!/usr/bin/env python3
"""NumPy references for the "Shape and data movement" reference kernels.

Writes tests/data/kernels/movement/<case>_in<i>.npy and <case>_out<i>.npy for each case
below; tests/unit/plugins/cpu/ref/movement_ref_test.cpp (and indexing_ref_test.cpp for
gather and the scatters) runs the op named in the case
with the same attributes (its table repeats them) and compares. Every reference is
computed from NumPy's own indexing, np.pad, np.tile, np.triu/np.tril, np.arange and
plain loops written from the ONNX operator text, independently of the C++ kernels.
Deterministic: fixed seeds, no timestamps. Run from anywhere:

    python3 tools/kernel_refs/movement.py
"""
import os

import numpy as np

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "data",
                   "kernels", "movement")
INT64_MAX = 2**63 - 1
INT64_MIN = -2**63

rng = np.random.default_rng(20240521)


def data(shape, dtype):
    """Distinct-ish values of `dtype` (bool: random 0/1)."""
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.integers(0, 2, size=shape).astype(np.bool_)
    if dtype.kind in "iu":
        lo, hi = (0, 250) if dtype.kind == "u" else (-120, 120)
        return rng.integers(lo, hi, size=shape).astype(dtype)
    return (rng.standard_normal(shape) * 4).astype(dtype)


def save(name, inputs, outputs):
    # np.array, not np.ascontiguousarray, which would make 0-d arrays 1-d.
    for i, a in enumerate(inputs):
        np.save(os.path.join(OUT, f"{name}_in{i}.npy"), np.array(a, order="C"))
    for i, a in enumerate(outputs):
        np.save(os.path.join(OUT, f"{name}_out{i}.npy"), np.array(a, order="C"))


# ---- reference semantics, from the ONNX text ----

def onnx_slice(x, starts, ends, axes=None, steps=None):
    # Python slices clamp exactly as ONNX Slice does (negative counts from the end, then
    # [0, dim] for positive steps, [-1, dim - 1] for negative ones).
    axes = list(range(len(starts))) if axes is None else axes
    steps = [1] * len(starts) if steps is None else steps
    index = [slice(None)] * x.ndim
    for s, e, a, st in zip(starts, ends, axes, steps):
        index[a] = slice(s, e, st)
    return x[tuple(index)]


def gather_elements(x, idx, axis):
    n = x.shape[axis]
    sub = x[tuple(slice(None) if d == axis else slice(0, idx.shape[d]) for d in range(x.ndim))]
    return np.take_along_axis(sub, np.where(idx < 0, idx + n, idx).astype(np.int64), axis)


def scatter_elements(x, idx, upd, axis, reduction):
    """Plain loop over indices in row-major order; reductions in float64 / Python int."""
    n = x.shape[axis]
    floating = x.dtype.kind == "f"
    acc = x.astype(np.float64) if floating else x.astype(object)
    for pos in np.ndindex(*idx.shape):
        i = int(idx[pos])
        i = i + n if i < 0 else i
        target = list(pos)
        target[axis] = i
        target = tuple(target)
        u = float(upd[pos]) if floating else int(upd[pos])
        a = acc[target]
        if reduction == "none":
            acc[target] = u
        elif reduction == "add":
            acc[target] = a + u
        elif reduction == "mul":
            acc[target] = a * u
        elif reduction == "max":
            acc[target] = np.nan if floating and (np.isnan(a) or np.isnan(u)) else max(a, u)
        else:
            acc[target] = np.nan if floating and (np.isnan(a) or np.isnan(u)) else min(a, u)
    if floating:
        return acc.astype(x.dtype)
    if x.dtype == np.bool_:
        return (acc != 0).astype(np.bool_)
    bits = np.dtype(x.dtype).itemsize * 8
    wrapped = np.vectorize(lambda v: ((v + 2**(bits - 1)) % 2**bits) - 2**(bits - 1)
                           if x.dtype.kind == "i" else v % 2**bits, otypes=[object])(acc)
    return wrapped.astype(x.dtype)


def pad(x, pads, mode, value=0.0):
    """Positive pads with np.pad, then negative pads crop (pad first, crop after)."""
    r = x.ndim
    begin, end = pads[:r], pads[r:]
    width = [(max(b, 0), max(e, 0)) for b, e in zip(begin, end)]
    if mode == "constant":
        if x.dtype == np.bool_:
            fill = value != 0
        elif x.dtype.kind in "iu":
            fill = np.array(int(value)).astype(x.dtype)
        else:
            fill = value
        y = np.pad(x, width, mode="constant", constant_values=fill)
    else:
        y = np.pad(x, width, mode=mode)
    crop = tuple(slice(-min(b, 0), y.shape[d] + min(e, 0)) for d, (b, e) in enumerate(zip(begin, end)))
    return y[crop]


def main():
    os.makedirs(OUT, exist_ok=True)
    for f in os.listdir(OUT):
        if f.endswith(".npy"):
            os.remove(os.path.join(OUT, f))

    # reshape: row-major order is kept.
    x = data((2, 3, 4), np.float32)
    save("reshape_f32", [x], [x.reshape(4, 6)])
    x = data((2, 3, 4), np.int8)
    save("reshape_i8", [x], [x.reshape(2, -1, 2)])

    # transpose
    x = data((2, 3, 4), np.float32)
    save("transpose_f32", [x], [np.transpose(x, (1, 2, 0))])
    x = data((2, 3, 4), np.int8)
    save("transpose_i8_default", [x], [np.transpose(x)])
    x = data((3, 2), np.bool_)
    save("transpose_bool", [x], [x.T])
    x = data((2, 1, 3, 2), np.float16)
    save("transpose_f16", [x], [np.transpose(x, (3, 1, 0, 2))])

    # expand: bidirectional broadcast
    x = data((3, 1), np.float32)
    save("expand_f32", [x], [x * np.ones((2, 1, 4), np.float32)])
    x = data((1, 3), np.int64)
    save("expand_i64_smaller", [x], [np.broadcast_to(x, (4, 3))])  # shape [4, 1]
    x = data((), np.uint8)
    save("expand_u8_scalar", [x], [np.broadcast_to(x, (2, 2))])

    # concat
    a, b, c = data((2, 1), np.int32), data((2, 3), np.int32), data((2, 0), np.int32)
    save("concat_i32", [a, b, c], [np.concatenate([a, b, c], axis=-1)])
    a, b = data((1, 2, 2), np.float16), data((3, 2, 2), np.float16)
    save("concat_f16", [a, b], [np.concatenate([a, b], axis=0)])
    a, b = data((2, 2), np.bool_), data((2, 1), np.bool_)
    save("concat_bool", [a, b], [np.concatenate([a, b], axis=1)])

    # split
    x = data((5, 4), np.float64)
    save("split_f64_sizes", [x], [x[0:2], x[2:2], x[2:5]])
    x = data((2, 7), np.uint8)
    save("split_u8_even", [x], [x[:, 0:3], x[:, 3:6], x[:, 6:7]])

    # slice
    x = data((5, 6, 7), np.float32)
    save("slice_f32_basic", [x], [onnx_slice(x, [1, 0], [4, 5], [0, 2], [1, 2])])
    save("slice_f32_negative_steps", [x],
         [onnx_slice(x, [-1, 100, 5], [-100, 1, 0], [0, 1, -1], [-2, -1, -3])])
    save("slice_f32_clamped", [x],
         [onnx_slice(x, [INT64_MIN, -3], [INT64_MAX, INT64_MAX], [1, 0], [1, 1])])
    save("slice_f32_reverse_all", [x],
         [onnx_slice(x, [INT64_MAX], [INT64_MIN], [2], [-1])])
    x = data((4, 5), np.int64)
    save("slice_i64_default_axes", [x], [onnx_slice(x, [1, -4], [3, 1000])])
    x = data((6,), np.bool_)
    save("slice_bool_empty", [x], [onnx_slice(x, [4], [2], [0], [1])])

    # gather
    x = data((5, 3), np.float32)
    idx = np.array([[0, -1], [4, 2]], np.int64)
    save("gather_f32_axis0", [x, idx], [np.take(x, np.where(idx < 0, idx + 5, idx), axis=0)])
    x = data((2, 4, 3), np.bool_)
    idx = np.array([3, -4, 1], np.int32)
    save("gather_bool_axis1", [x, idx], [np.take(x, np.where(idx < 0, idx + 4, idx), axis=1)])
    x = data((3, 4), np.float16)
    idx = np.array(-1, np.int64)
    save("gather_f16_scalar_index", [x, idx], [x[:, 3]])
    x = data((4, 2), np.int32)
    idx = np.zeros((0, 3), np.int64)
    save("gather_i32_empty_indices", [x, idx], [np.take(x, idx, axis=0)])

    # gather_elements
    x = data((3, 3), np.int32)
    idx = np.array([[0, -1], [2, 1], [-3, 0]], np.int64)
    save("gather_elements_i32_axis1", [x, idx], [gather_elements(x, idx, 1)])
    x = data((3, 3), np.float32)
    idx = np.array([[1, 2], [0, -1], [2, 2], [-2, 0]], np.int32)  # longer than data on axis 0
    save("gather_elements_f32_axis0", [x, idx], [gather_elements(x, idx, 0)])
    x = data((2, 3, 4), np.bool_)
    idx = rng.integers(-4, 4, size=(2, 2, 5)).astype(np.int64)
    save("gather_elements_bool_axis_neg1", [x, idx], [gather_elements(x, idx, 2)])

    # scatter_elements
    x = data((3, 4), np.float32)
    idx = np.array([[1, 0, 2], [3, -1, 0]], np.int64)  # distinct per row
    upd = data((2, 3), np.float32)
    save("scatter_elements_f32_none", [x, idx, upd], [scatter_elements(x, idx, upd, 1, "none")])
    idx = np.array([[1, 1, -3], [2, 0, 2]], np.int64)  # duplicates: last write wins
    save("scatter_elements_f32_none_duplicates", [x, idx, upd],
         [scatter_elements(x, idx, upd, 1, "none")])
    x = data((4, 3), np.float64)
    idx = np.array([[0, 1, 3], [0, 1, -1], [3, 3, 0]], np.int32)
    upd = data((3, 3), np.float64)
    for red in ["add", "mul", "max", "min"]:
        save(f"scatter_elements_f64_{red}", [x, idx, upd],
             [scatter_elements(x, idx, upd, 0, red)])
    x = data((2, 5), np.int8)
    idx = np.array([[4, 4, 0, -1], [1, 1, 1, 2]], np.int64)
    upd = np.array([[100, 100, -7, 3], [120, 120, -50, 9]], np.int8)  # i8 wraps
    for red in ["add", "mul", "max", "min"]:
        save(f"scatter_elements_i8_{red}", [x, idx, upd], [scatter_elements(x, idx, upd, -1, red)])
    x = data((2, 4), np.bool_)
    idx = np.array([[0, 0], [3, 3]], np.int64)
    upd = np.array([[True, False], [False, True]])
    for red in ["add", "mul"]:
        save(f"scatter_elements_bool_{red}", [x, idx, upd], [scatter_elements(x, idx, upd, 1, red)])
    x = data((3, 2), np.float16)
    idx = np.array([[2, 0], [-1, 1]], np.int64)
    upd = data((2, 2), np.float16)
    save("scatter_elements_f16_add", [x, idx, upd], [scatter_elements(x, idx, upd, 0, "add")])

    # pad
    x = data((2, 3), np.float32)
    save("pad_f32_constant", [x], [pad(x, [1, 0, 2, 3], "constant", 1.5)])
    save("pad_f32_reflect", [x], [pad(x, [1, 2, 1, 2], "reflect")])
    save("pad_f32_edge", [x], [pad(x, [2, 1, 0, 4], "edge")])
    x = data((4, 5), np.int32)
    save("pad_i32_constant_crop", [x], [pad(x, [-1, 2, 1, -3], "constant", -7.0)])
    save("pad_i32_reflect_crop", [x], [pad(x, [-2, 3, 2, -4], "reflect")])
    save("pad_i32_edge_crop", [x], [pad(x, [2, -5, -3, 2], "edge")])
    x = data((2, 2, 2), np.bool_)
    save("pad_bool_constant", [x], [pad(x, [0, 1, 0, 1, 0, 1], "constant", 1.0)])
    x = data((3, 2), np.float16)
    save("pad_f16_reflect", [x], [pad(x, [2, 1, 2, 1], "reflect")])

    # tile
    x = data((2, 3), np.float32)
    save("tile_f32", [x], [np.tile(x, (2, 3))])
    x = data((3,), np.bool_)
    save("tile_bool", [x], [np.tile(x, 2)])
    x = data((2, 1, 2), np.int64)
    save("tile_i64_zero_repeat", [x], [np.tile(x, (1, 0, 2))])

    # range: start + i * delta in float64, then cast; length ceil((limit - start) / delta)
    save("range_f32", [], [np.arange(1.0, 3.2, 0.3, dtype=np.float64).astype(np.float32)])
    save("range_f64_negative", [], [np.arange(5.0, -2.5, -1.25, dtype=np.float64)])
    save("range_f16", [], [np.arange(-1.0, 1.0, 0.125, dtype=np.float64).astype(np.float16)])
    save("range_i32", [], [np.arange(-3, 10, 4, dtype=np.int64).astype(np.int32)])
    save("range_i8_wraps", [], [np.arange(120, 140, 5, dtype=np.int64).astype(np.int8)])
    save("range_u8_empty", [], [np.arange(5, 5, 1, dtype=np.int64).astype(np.uint8)])

    # trilu (np.triu / np.tril work on the last two dims)
    x = data((2, 3, 4), np.float32)
    for k in [0, 1, -1, 5, -5]:
        save(f"trilu_f32_upper_k{k}".replace("-", "m"), [x], [np.triu(x, k)])
        save(f"trilu_f32_lower_k{k}".replace("-", "m"), [x], [np.tril(x, k)])
    x = data((4, 2), np.int8)
    save("trilu_i8_lower", [x], [np.tril(x, 0)])
    x = data((3, 3), np.bool_)
    save("trilu_bool_upper_k1", [x], [np.triu(x, 1)])

    # cache_write: update written into a copy of cache at [offset, offset + n) along axis,
    # by NumPy slice assignment
    for name, shape, n, axis, offset, dtype in [
            ("cache_write_f32_axis2", (2, 3, 8, 4), 1, 2, 5, np.float32),
            ("cache_write_f32_prefill", (1, 2, 6, 3), 4, 2, 0, np.float32),
            ("cache_write_f16_at_end", (2, 5, 2), 2, 1, 3, np.float16),
            ("cache_write_i64_axis0", (4, 3), 1, 0, 3, np.int64),
            ("cache_write_bool_axis_neg1", (2, 6), 3, -1, 2, np.bool_),
            ("cache_write_f32_empty_update", (2, 4, 3), 0, 1, 4, np.float32)]:
        cache = data(shape, dtype)
        upd_shape = list(shape)
        upd_shape[axis] = n
        update = data(tuple(upd_shape), dtype)
        expected = cache.copy()
        index = [slice(None)] * len(shape)
        index[axis] = slice(offset, offset + n)
        expected[tuple(index)] = update
        save(name, [cache, update, np.array(offset, dtype=np.int64)], [expected])


if __name__ == "__main__":
    main()
