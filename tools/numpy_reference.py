"""Plain NumPy reference implementations of the ops the bundled examples use.

Written from the ONNX operator definitions (see spec/ops.md), independently of
Switchyard's C++ kernels, to compute the examples' expected outputs. Every function
computes in float64; callers cast the final result to the stored dtype.
"""
import math

import numpy as np


def f64(array):
    return np.asarray(array, dtype=np.float64)


def relu(x):
    return np.maximum(f64(x), 0.0)


def conv2d(x, w, bias=None, strides=(1, 1), pads=(0, 0, 0, 0), group=1):
    """ONNX Conv for NCHW input, weights [M, C/group, kH, kW], pads [top, left, bottom, right]."""
    x, w = f64(x), f64(w)
    n, c, _, _ = x.shape
    m, c_per_group, kh, kw = w.shape
    assert c == c_per_group * group and m % group == 0
    xp = np.pad(x, ((0, 0), (0, 0), (pads[0], pads[2]), (pads[1], pads[3])))
    sh, sw = strides
    out_h = (xp.shape[2] - kh) // sh + 1
    out_w = (xp.shape[3] - kw) // sw + 1
    out = np.zeros((n, m, out_h, out_w))
    m_per_group = m // group
    for g in range(group):
        xg = xp[:, g * c_per_group:(g + 1) * c_per_group]
        wg = w[g * m_per_group:(g + 1) * m_per_group]
        for i in range(kh):
            for j in range(kw):
                window = xg[:, :, i:i + sh * out_h:sh, j:j + sw * out_w:sw]  # [N, Cg, oH, oW]
                out[:, g * m_per_group:(g + 1) * m_per_group] += np.einsum(
                    "nchw,mc->nmhw", window, wg[:, :, i, j])
    if bias is not None:
        out += f64(bias).reshape(1, m, 1, 1)
    return out


def batch_norm(x, scale, bias, mean, var, epsilon=1e-5):
    """Inference BatchNormalization over axis 1 of an [N, C, ...] input."""
    shape = (1, -1) + (1,) * (np.ndim(x) - 2)
    scale, bias, mean, var = (f64(t).reshape(shape) for t in (scale, bias, mean, var))
    return (f64(x) - mean) / np.sqrt(var + epsilon) * scale + bias


def max_pool2d(x, kernel_shape, strides):
    """MaxPool without padding, dilation or ceil_mode."""
    x = f64(x)
    kh, kw = kernel_shape
    sh, sw = strides
    out_h = (x.shape[2] - kh) // sh + 1
    out_w = (x.shape[3] - kw) // sw + 1
    out = np.full(x.shape[:2] + (out_h, out_w), -np.inf)
    for i in range(kh):
        for j in range(kw):
            out = np.maximum(out, x[:, :, i:i + sh * out_h:sh, j:j + sw * out_w:sw])
    return out


def global_avg_pool(x):
    x = f64(x)
    return x.mean(axis=tuple(range(2, x.ndim)), keepdims=True)


def gemm(a, b, c=None, alpha=1.0, beta=1.0, trans_a=0, trans_b=0):
    a, b = f64(a), f64(b)
    if trans_a:
        a = a.T
    if trans_b:
        b = b.T
    out = alpha * (a @ b)
    if c is not None:
        out = out + beta * f64(c)
    return out


def layer_norm(x, scale, bias=None, axis=-1, epsilon=1e-5):
    """LayerNormalization: normalise over dims axis..rank-1, then scale and shift."""
    x = f64(x)
    axis = axis % x.ndim
    dims = tuple(range(axis, x.ndim))
    mean = x.mean(axis=dims, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=dims, keepdims=True)
    out = (x - mean) / np.sqrt(var + epsilon) * f64(scale)
    if bias is not None:
        out = out + f64(bias)
    return out


def softmax(x, axis=-1):
    x = f64(x)
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def attention(q, k, v, scale=None):
    """Attention (opset 23) with equal head counts, no mask, not causal."""
    q, k, v = f64(q), f64(k), f64(v)
    if scale is None:
        scale = 1.0 / math.sqrt(q.shape[-1])
    scores = (q @ np.swapaxes(k, -1, -2)) * scale
    return softmax(scores, axis=-1) @ v


_erf = np.vectorize(math.erf, otypes=[np.float64])


def gelu(x):
    """Gelu with approximate = "none": x * (1 + erf(x / sqrt(2))) / 2."""
    x = f64(x)
    return 0.5 * x * (1.0 + _erf(x / math.sqrt(2.0)))
