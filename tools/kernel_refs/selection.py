#!/usr/bin/env python3
"""NumPy references for the "Selection" reference kernels (non_zero, compress, unique,
non_max_suppression).

Writes tests/data/kernels/selection/<case>_in<i>.npy and <case>_out<i>.npy for each case
below; tests/unit/plugins/cpu/ref/selection_ref_test.cpp runs the op named in the case
with the same attributes (its table repeats them) and compares every output exactly.
Each op writes a fixed-capacity output and an i64 count last (docs/ops.md, "Selection"):
the references compute the ONNX result with NumPy (np.nonzero, np.compress, np.unique
and a plain loop written from the NonMaxSuppression text and onnxruntime's order), then
pad it with zeros to the capacity. Deterministic: fixed seeds. Run from anywhere, with a
Python that has NumPy 1.21 or later (np.unique returns NaN once from there on):

    python3 tools/kernel_refs/selection.py
"""
import os

import numpy as np

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "data",
                   "kernels", "selection")

rng = np.random.default_rng(20240601)


def save(name, inputs, outputs):
    # np.array, not np.ascontiguousarray, which would make 0-d arrays 1-d.
    for i, a in enumerate(inputs):
        np.save(os.path.join(OUT, f"{name}_in{i}.npy"), np.array(a, order="C"))
    for i, a in enumerate(outputs):
        np.save(os.path.join(OUT, f"{name}_out{i}.npy"), np.array(a, order="C"))


def small(shape, dtype, values=3):
    """Small non-negative integers of `dtype` (bool: 0/1): many zeros and repeats."""
    return rng.integers(0, values, size=shape).astype(dtype)


def pad(a, capacity, axis=0):
    """`a` followed by zeros along `axis` up to `capacity` entries."""
    widths = [(0, 0)] * a.ndim
    widths[axis] = (0, capacity - a.shape[axis])
    return np.pad(a, widths)


def count(n):
    return np.array(n, dtype=np.int64)


# ---- non_zero ----

def non_zero(x):
    """indices [rank, numel] (a scalar: [0, 1]), then count."""
    numel = x.size
    if x.ndim == 0:
        return [np.zeros((0, 1), np.int64), count(int(x != 0))]
    idx = np.array(np.nonzero(x), dtype=np.int64).reshape(x.ndim, -1)
    return [pad(idx, numel, axis=1), count(idx.shape[1])]


# ---- compress ----

def compress(x, condition, axis=None):
    """y with the axis (or the flattened x) at capacity min(len(condition), n), then count.
    Condition entries past n are ignored, as onnxruntime does."""
    n = x.size if axis is None else x.shape[axis]
    cond = condition[:n]
    y = np.compress(cond, x, axis=axis)
    return [pad(y, len(cond), axis=0 if axis is None else axis), count(int(cond.sum()))]


# ---- unique ----

def unique(x, axis=None, sorted_=1):
    """y, indices, inverse_indices, counts at capacity n (slices along the axis, or
    elements), then count. Sorted as np.unique sorts (NaN last and once); sorted_=0
    reorders by first occurrence, as ONNX's reference does."""
    flat = axis is None
    y, indices, inverse, counts = np.unique(x.reshape(-1) if flat else x, return_index=True,
                                            return_inverse=True, return_counts=True,
                                            axis=None if flat else axis)
    inverse = inverse.reshape(-1)
    if not sorted_:
        order = np.argsort(indices, kind="stable")
        rank = np.empty_like(order)
        rank[order] = np.arange(len(order))
        indices, counts, inverse = indices[order], counts[order], rank[inverse]
    # y: the values of the first occurrences (np.unique's for sorted ones, the same bits).
    y = np.take(x.reshape(-1) if flat else x, indices, axis=0 if flat else axis)
    n = x.size if flat else x.shape[axis]
    k = len(indices)
    return [pad(y, n, axis=0 if flat else axis), pad(indices.astype(np.int64), n),
            inverse.astype(np.int64), pad(counts.astype(np.int64), n), count(k)]


# ---- non_max_suppression ----

def clustered_boxes(shape):
    """[y1, x1, y2, x2] boxes around three cluster centres: neighbours overlap a lot."""
    centres = rng.uniform(0, 10, (3, 2))
    c = centres[rng.integers(0, 3, shape)] + rng.uniform(-0.4, 0.4, shape + (2,))
    half = rng.uniform(0.3, 1.2, shape + (2,))
    return np.concatenate([c - half, c + half], axis=-1)


def corners(box, center_point_box):
    """(y_min, x_min, y_max, x_max, area) in float64."""
    b = box.astype(np.float64)
    if center_point_box:
        xc, yc, w, h = b
        return yc - h / 2, xc - w / 2, yc + h / 2, xc + w / 2, w * h
    y_min, y_max = min(b[0], b[2]), max(b[0], b[2])
    x_min, x_max = min(b[1], b[3]), max(b[1], b[3])
    return y_min, x_min, y_max, x_max, (y_max - y_min) * (x_max - x_min)


def iou(a, b):
    """Intersection over union; 0 where the boxes do not overlap with a positive area."""
    y_min, x_min = max(a[0], b[0]), max(a[1], b[1])
    y_max, x_max = min(a[2], b[2]), min(a[3], b[3])
    if x_max <= x_min or y_max <= y_min:
        return 0.0
    inter = (x_max - x_min) * (y_max - y_min)
    return inter / (a[4] + b[4] - inter)


def non_max_suppression(boxes, scores, max_per_class, iou_threshold, score_threshold=None,
                        center_point_box=0):
    """Per batch, per class: candidates by descending score, ties by ascending index; a
    candidate whose IoU with an already selected box exceeds iou_threshold is dropped."""
    batches, classes, n = scores.shape
    per_class = max(0, min(n, max_per_class))
    rows = []
    for b in range(batches):
        box = [corners(boxes[b, i], center_point_box) for i in range(n)]
        for c in range(classes):
            s = scores[b, c].astype(np.float64)
            cand = [i for i in range(n) if score_threshold is None or s[i] > score_threshold]
            cand.sort(key=lambda i: (-s[i], i))
            chosen = []
            for i in cand:
                if len(chosen) >= per_class:
                    break
                if all(iou(box[j], box[i]) <= iou_threshold for j in chosen):
                    chosen.append(i)
                    rows.append([b, c, i])
    out = np.array(rows, dtype=np.int64).reshape(-1, 3)
    return [pad(out, batches * classes * per_class), count(len(rows))]


def main():
    os.makedirs(OUT, exist_ok=True)
    for f in os.listdir(OUT):
        if f.endswith(".npy"):
            os.remove(os.path.join(OUT, f))

    # non_zero: NaN is non-zero, -0 is zero.
    x = small((3, 5), np.float32)
    x[0, 1], x[2, 4], x[1, 0] = np.nan, -0.0, np.inf
    save("non_zero_f32", [x], non_zero(x))
    x = small((2, 3, 4), np.int32)
    save("non_zero_i32_3d", [x], non_zero(x))
    x = small((7,), np.bool_, 2)
    save("non_zero_bool", [x], non_zero(x))
    x = small((2, 1, 3, 2), np.float16)
    save("non_zero_f16_4d", [x], non_zero(x))
    x = np.array(5, np.uint8)
    save("non_zero_u8_scalar", [x], non_zero(x))
    x = np.zeros((4, 6), np.int64)
    save("non_zero_i64_all_zero", [x], non_zero(x))
    x = np.zeros((3, 0), np.float64)
    save("non_zero_f64_empty", [x], non_zero(x))

    # compress
    x = rng.standard_normal((3, 4)).astype(np.float32)
    c = np.array([False, True, True])
    save("compress_f32_axis0", [x, c], compress(x, c, 0))
    x = small((2, 5, 3), np.int64, 100)
    c = np.array([True, False, True, True])  # shorter than the axis
    save("compress_i64_axis1_short", [x, c], compress(x, c, 1))
    x = small((2, 3), np.int8, 50)
    c = np.array([True, False, True, True, False, True, True, True])  # longer than the axis
    save("compress_i8_axis_neg1_long", [x, c], compress(x, c, 1))
    x = small((3, 3), np.bool_, 2)
    c = np.array([False, True, True, False, True, False, False])
    save("compress_bool_flat", [x, c], compress(x, c))
    x = rng.standard_normal((4, 2)).astype(np.float16)
    c = np.zeros(4, np.bool_)
    save("compress_f16_none_selected", [x, c], compress(x, c, 0))
    x = np.array(7.5, np.float64)
    c = np.array([True])
    save("compress_f64_scalar", [x, c], compress(x, c))

    # unique, flattened: ONNX's examples' kind of input, repeats, NaN and signed zeros.
    x = np.array([2, 1, 1, 3, 4, 3], np.int64)
    save("unique_i64_sorted", [x], unique(x))
    save("unique_i64_unsorted", [x], unique(x, sorted_=0))
    x = small((4, 5), np.int8, 6) - 3
    save("unique_i8_2d", [x], unique(x))
    save("unique_i8_2d_unsorted", [x], unique(x, sorted_=0))
    x = np.array([1.5, np.nan, -0.0, 3.0, np.nan, 0.0, -np.inf, 1.5, np.inf, -0.0], np.float32)
    save("unique_f32_special", [x], unique(x))
    save("unique_f32_special_unsorted", [x], unique(x, sorted_=0))
    x = small((3, 4), np.uint8, 4)
    save("unique_u8", [x], unique(x))
    x = small((6,), np.bool_, 2)
    save("unique_bool", [x], unique(x))
    x = np.array(-2, np.int32)
    save("unique_i32_scalar", [x], unique(x))
    x = np.zeros((0, 3), np.float32)
    save("unique_f32_empty", [x], unique(x))
    # unique along an axis: slices compare lexicographically.
    x = small((6, 3), np.int32, 2)
    save("unique_i32_axis0", [x], unique(x, axis=0))
    save("unique_i32_axis0_unsorted", [x], unique(x, axis=0, sorted_=0))
    x = small((2, 5, 2), np.float64, 2)
    save("unique_f64_axis1", [x], unique(x, axis=1))
    save("unique_f64_axis1_unsorted", [x], unique(x, axis=1, sorted_=0))
    x = small((3, 4), np.float16, 2)
    save("unique_f16_axis_neg1", [x], unique(x, axis=1))

    # non_max_suppression: boxes in clusters (so that many overlap a lot), corners in
    # either order, scores with ties.
    boxes = clustered_boxes((2, 12)).astype(np.float32)
    flip = rng.integers(0, 2, (2, 12)).astype(bool)
    boxes[flip] = boxes[flip][:, [2, 3, 0, 1]]
    scores = np.round(rng.uniform(0, 1, (2, 3, 12)), 1).astype(np.float32)
    save("nms_f32", [boxes, scores], non_max_suppression(boxes, scores, 5, 0.3, 0.25))
    save("nms_f32_no_score_threshold", [boxes, scores],
         non_max_suppression(boxes, scores, 100, 0.5))
    save("nms_f32_iou0", [boxes, scores], non_max_suppression(boxes, scores, 4, 0.0))
    corner = clustered_boxes((1, 16))
    centers = np.concatenate([(corner[..., [1, 0]] + corner[..., [3, 2]]) / 2,
                              corner[..., [3, 2]] - corner[..., [1, 0]]], axis=2)
    centers[0, 3, 2] = -1.0  # a negative width: a box that overlaps nothing
    scores = rng.uniform(0, 1, (1, 2, 16)).astype(np.float64)
    save("nms_f64_center_point_box", [centers, scores],
         non_max_suppression(centers, scores, 10, 0.2, 0.1, center_point_box=1))
    boxes = clustered_boxes((3, 9)).astype(np.float16)
    scores = rng.uniform(0, 1, (3, 1, 9)).astype(np.float16)
    save("nms_f16_iou1", [boxes, scores], non_max_suppression(boxes, scores, 9, 1.0))


if __name__ == "__main__":
    main()
