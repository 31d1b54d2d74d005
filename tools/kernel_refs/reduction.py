#!/usr/bin/env python3
"""NumPy references for the "Reductions and scans" reference kernels.

Writes tests/data/kernels/reduction/<case>_in0.npy and <case>_out<i>.npy for each case
below; tests/unit/plugins/cpu/ref/reduction_ref_test.cpp runs the op named in the case
with the same attributes (its table repeats them) and compares. Floats are reduced in
float64 and cast once; integer results come from exact Python integers wrapped to the
dtype, so the references do not share the kernels' arithmetic. Deterministic: fixed
seeds. Run from anywhere:

    python3 tools/kernel_refs/reduction.py
"""
import os

import numpy as np

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "data",
                   "kernels", "reduction")

rng = np.random.default_rng(20240522)


def save(name, x, outputs):
    # np.array, not np.ascontiguousarray, which would make 0-d arrays 1-d.
    np.save(os.path.join(OUT, f"{name}_in0.npy"), np.array(x, order="C"))
    for i, a in enumerate(outputs):
        np.save(os.path.join(OUT, f"{name}_out{i}.npy"), np.array(a, order="C"))


def normal(shape, dtype):
    return (rng.standard_normal(shape) * 3).astype(dtype)


def ints(shape, dtype, lo, hi):
    return rng.integers(lo, hi, size=shape).astype(dtype)


def wrap(values, dtype):
    """Exact Python integers -> dtype with two's complement wrap-around."""
    bits = np.dtype(dtype).itemsize * 8
    signed = np.dtype(dtype).kind == "i"
    flat = [int(v) % 2**bits for v in np.asarray(values, dtype=object).ravel()]
    if signed:
        flat = [v - 2**bits if v >= 2**(bits - 1) else v for v in flat]
    return np.array(flat, dtype=dtype).reshape(np.shape(values))


def int_reduce(x, axes, keepdims, fn):
    """Reduces an integer array exactly with Python ints: fn(list of ints) -> int."""
    xo = x.astype(object)
    axes = tuple(a % x.ndim for a in axes)
    moved = np.moveaxis(xo, axes, tuple(range(x.ndim - len(axes), x.ndim)))
    kept = moved.shape[:x.ndim - len(axes)]
    flat = moved.reshape(kept + (-1,))
    out = np.empty(kept, dtype=object)
    for idx in np.ndindex(*kept):
        out[idx] = fn([int(v) for v in flat[idx]])
    if keepdims:
        out = np.expand_dims(out, axes)
    return wrap(out, x.dtype)


def trunc_div(s, n):
    q = abs(s) // n
    return q if s >= 0 else -q


def prod(values):
    p = 1
    for v in values:
        p *= v
    return p


def arg(x, axis, keepdims, largest, last):
    """np.argmax / np.argmin (NaN wins, first occurrence); the last one by flipping."""
    fn = np.argmax if largest else np.argmin
    if last:
        n = x.shape[axis]
        r = n - 1 - fn(np.flip(x, axis), axis=axis)
    else:
        r = fn(x, axis=axis)
    r = r.astype(np.int64)
    return np.expand_dims(r, axis) if keepdims else r


def cumsum(x, axis, exclusive, reverse):
    floating = x.dtype.kind == "f"
    y = np.flip(x, axis) if reverse else x
    y = y.astype(np.float64) if floating else y.astype(object)
    if exclusive:  # shift by one along the axis: element i sums the elements before it
        zero = np.zeros_like(np.take(y, [0], axis=axis)) if y.shape[axis] else y
        y = np.concatenate([zero, np.take(y, range(y.shape[axis] - 1), axis=axis)], axis=axis)
    c = np.cumsum(y, axis=axis)
    c = np.flip(c, axis) if reverse else c
    return c.astype(x.dtype) if floating else wrap(c, x.dtype)


def topk(x, k, axis, largest):
    """Stable order: NaN largest, then by value, ties to the lower index."""
    xm = np.moveaxis(x, axis, -1)
    vals = np.empty(xm.shape[:-1] + (k,), x.dtype)
    idxs = np.empty(xm.shape[:-1] + (k,), np.int64)
    for pos in np.ndindex(*xm.shape[:-1]):
        line = xm[pos].astype(np.float64)
        nan = np.isnan(line)
        key = np.where(nan, 0.0, line)
        index = np.arange(line.size)
        if largest:
            order = np.lexsort((index, -key, ~nan))
        else:
            order = np.lexsort((index, key, nan))
        vals[pos] = xm[pos][order[:k]]
        idxs[pos] = order[:k]
    return np.moveaxis(vals, -1, axis), np.moveaxis(idxs, -1, axis)


def main():
    os.makedirs(OUT, exist_ok=True)
    for f in os.listdir(OUT):
        if f.endswith(".npy"):
            os.remove(os.path.join(OUT, f))

    # ---- reduce_* ----
    x = normal((2, 3, 4), np.float32)
    x64 = x.astype(np.float64)
    save("reduce_sum_f32_axes", x, [np.sum(x64, axis=(0, 2), keepdims=True).astype(np.float32)])
    save("reduce_sum_f32_all", x, [np.array(np.sum(x64), dtype=np.float32)])
    save("reduce_mean_f32_axes", x, [np.mean(x64, axis=(-1,), keepdims=False).astype(np.float32)])
    save("reduce_prod_f32_axes", x, [np.prod(x64, axis=(1,), keepdims=True).astype(np.float32)])
    save("reduce_max_f32_all_keep", x, [np.max(x64, keepdims=True).astype(np.float32)])
    save("reduce_min_f32_axes", x, [np.min(x64, axis=(0, 1), keepdims=False).astype(np.float32)])

    x = normal((3, 5), np.float16)
    x64 = x.astype(np.float64)
    save("reduce_sum_f16", x, [np.sum(x64, axis=1).astype(np.float16)])
    save("reduce_mean_f16", x, [np.mean(x64, axis=0, keepdims=True).astype(np.float16)])

    x = normal((4, 3), np.float64)
    x[1, 2] = np.nan
    x[3, 0] = np.inf
    save("reduce_max_f64_nan", x, [np.max(x, axis=1)])
    save("reduce_min_f64_nan", x, [np.min(x, axis=0, keepdims=True)])
    save("reduce_sum_f64_nan", x, [np.sum(x, axis=-1)])
    save("reduce_prod_f64", x[:, :2], [np.prod(x[:, :2], axis=0)])

    x = ints((3, 6), np.int8, -128, 128)
    save("reduce_sum_i8_wrap", x, [int_reduce(x, (1,), False, sum)])
    save("reduce_prod_i8_wrap", x, [int_reduce(x, (0,), True, prod)])
    save("reduce_mean_i8", x, [int_reduce(x, (1,), True, lambda v: trunc_div(sum(v), len(v)))])
    save("reduce_max_i8", x, [int_reduce(x, (0, 1), False, max)])
    x = ints((2, 3, 2), np.uint8, 0, 256)
    save("reduce_sum_u8_wrap", x, [int_reduce(x, (0, 2), True, sum)])
    save("reduce_min_u8", x, [int_reduce(x, (-1,), False, min)])
    x = ints((4, 5), np.int32, -2**31, 2**31)
    save("reduce_sum_i32_wrap", x, [int_reduce(x, (0,), False, sum)])
    save("reduce_mean_i32", x, [int_reduce(x, (1,), False, lambda v: trunc_div(sum(v), len(v)))])
    save("reduce_max_i32", x, [int_reduce(x, (1,), True, max)])
    x = np.array([[2**62 + 1, 2**62 + 3, 2**62 + 5], [-2**63, -2**63, -2**63 + 7],
                  [2**63 - 1, -2**63, 5]], dtype=np.int64)
    save("reduce_mean_i64_big", x, [int_reduce(x, (1,), False, lambda v: trunc_div(sum(v), len(v)))])
    save("reduce_sum_i64_wrap", x, [int_reduce(x, (1,), False, sum)])
    x = ints((3, 4), np.int64, -2**40, 2**40)
    save("reduce_prod_i64_wrap", x, [int_reduce(x, (1,), False, prod)])
    save("reduce_min_i64", x, [int_reduce(x, (0,), False, min)])

    # ---- argmax / argmin: small integers as floats make ties ----
    x = ints((3, 4, 5), np.float32, -3, 3)
    for largest, name in [(True, "argmax"), (False, "argmin")]:
        save(f"{name}_f32_axis1", x, [arg(x, 1, True, largest, False)])
        save(f"{name}_f32_axis1_last", x, [arg(x, 1, True, largest, True)])
        save(f"{name}_f32_axis_neg1_nokeep", x, [arg(x, -1, False, largest, False)])
    x = normal((4, 6), np.float16)
    x[0, 2] = x[0, 4] = np.nan
    x[2, 5] = np.nan
    x[3, 1] = np.inf
    x[3, 3] = -np.inf
    for largest, name in [(True, "argmax"), (False, "argmin")]:
        save(f"{name}_f16_nan", x, [arg(x, 1, True, largest, False)])
        save(f"{name}_f16_nan_last", x, [arg(x, 1, True, largest, True)])
    x = ints((5, 3), np.int32, -2, 2)
    for largest, name in [(True, "argmax"), (False, "argmin")]:
        save(f"{name}_i32_axis0", x, [arg(x, 0, False, largest, False)])
        save(f"{name}_i32_axis0_last", x, [arg(x, 0, False, largest, True)])
    x = ints((2, 7), np.uint8, 250, 256)
    save("argmax_u8", x, [arg(x, 1, True, True, False)])
    x = ints((4,), np.int64, -2**62, 2**62)
    save("argmin_i64", x, [arg(x, 0, False, False, False)])

    # ---- cumsum ----
    x = normal((3, 4), np.float32)
    for excl in (0, 1):
        for rev in (0, 1):
            save(f"cumsum_f32_e{excl}_r{rev}", x, [cumsum(x, 1, excl, rev)])
    x = normal((4, 2, 3), np.float16)
    save("cumsum_f16_axis0_reverse", x, [cumsum(x, 0, 0, 1)])
    x = ints((2, 6), np.int8, -128, 128)
    save("cumsum_i8_wrap", x, [cumsum(x, -1, 0, 0)])
    save("cumsum_i8_exclusive_reverse", x, [cumsum(x, -1, 1, 1)])
    x = ints((5,), np.int64, -2**62, 2**62)
    save("cumsum_i64_wrap", x, [cumsum(x, 0, 0, 0)])
    x = np.array([1.0, np.inf, 2.0, -np.inf, 3.0], np.float64)
    save("cumsum_f64_inf", x, [cumsum(x, 0, 0, 0)])

    # ---- topk ----
    x = ints((3, 7), np.float32, -3, 4)
    x[0, 3] = x[0, 5] = np.nan
    x[1, 0] = np.inf
    x[2, 6] = -np.inf
    for k in (0, 3, 7):
        save(f"topk_f32_largest_k{k}", x, list(topk(x, k, 1, True)))
        save(f"topk_f32_smallest_k{k}", x, list(topk(x, k, 1, False)))
    x = ints((6, 2, 3), np.int32, -2, 3)
    save("topk_i32_axis0_largest", x, list(topk(x, 4, 0, True)))
    save("topk_i32_axis0_smallest", x, list(topk(x, 4, 0, False)))
    x = normal((2, 5), np.float16)
    x[1, 1] = x[1, 3]
    save("topk_f16_largest", x, list(topk(x, 2, -1, True)))
    x = ints((8,), np.uint8, 0, 256)
    save("topk_u8_smallest", x, list(topk(x, 5, 0, False)))
    x = ints((3, 4), np.int64, -2**50, 2**50)
    save("topk_i64_axis0", x, list(topk(x, 2, 0, True)))


if __name__ == "__main__":
    with np.errstate(invalid="ignore"):  # inf - inf in cumsum_f64_inf is intended
        main()
