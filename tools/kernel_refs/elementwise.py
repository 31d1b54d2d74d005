#!/usr/bin/env python3
"""Reference cases for the elementwise CPU reference kernels (spec/ops.md, "Elementwise").

Writes small .npy files under tests/data/kernels/elementwise/, read by
tests/unit/plugins/cpu/ref/elementwise_ref_test.cpp. Deterministic: rerunning rewrites
identical files. Written from the ONNX operator definitions with NumPy (float64) and,
where exactness matters (integer arithmetic, cast rounding), Python's exact integers and
fractions, independently of the C++ kernels.

Conventions the tests rely on:
  unary_x.npy                 f64 inputs, exactly representable in f64 f32 f16 and bf16
  unary_<case>.npy            f64 expected for each input (before rounding to the dtype)
  int_x_<dt>.npy              integer inputs (dt = i8 u8 i32 i64)
  int_y_<dt>.npy              [7, n] expected in the same dtype (wrap-around like NumPy), rows:
                              neg abs sign, clip (-100.5, 100.5) (3, -) (-, -1e30) (1e30, -)
  bin_a.npy [2,1,6], bin_b.npy [7,1]   float inputs (f16-representable), broadcast [2,7,6]
  bin_<op>.npy                f64 (arithmetic) or bool (comparisons) expected
  ibin_a_<dt>.npy [2,1,5], ibin_b_<dt>.npy [4,1]   integer inputs, b has no zeros
  ibin_arith_<dt>.npy         [8, 2,4,5] in dt: add sub mul div mod(fmod 0) mod(fmod 1) max min
  ibin_cmp_<dt>.npy           [5, 2,4,5] bool: equal less less_equal greater greater_equal
  prelu_x.npy [2,3,4], prelu_slope.npy [3,1], prelu_y.npy
  where_cond.npy [2,1,3], where_a.npy [4,1], where_b.npy [3], where_y.npy
  cast_src_<dt>.npy           cast sources (bf16 stored as exact f64 values)
  cast_<from>_to_float.npy    [4, n] f64: the exact results of casting to f32 f16 bf16 f64
  cast_<from>_to_int.npy      [5, n] i64: the results of casting to i8 u8 i32 i64 bool

Usage: python3 tools/kernel_refs/elementwise.py
"""
import math
import os
from fractions import Fraction

import numpy as np

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "data",
                   "kernels", "elementwise")

INT_DTYPES = {"i8": np.int8, "u8": np.uint8, "i32": np.int32, "i64": np.int64}
INT_BITS = {"i8": (8, True), "u8": (8, False), "i32": (32, True), "i64": (64, True)}


def save(name, array):
    np.save(os.path.join(OUT, name + ".npy"), np.ascontiguousarray(array), allow_pickle=False)


def wrap(value, dt):
    """Python int -> the value dtype dt holds after two's complement wrap-around."""
    bits, signed = INT_BITS[dt]
    value %= 1 << bits
    if signed and value >= 1 << (bits - 1):
        value -= 1 << bits
    return value


def int_range(dt):
    bits, signed = INT_BITS[dt]
    return (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)


# ---- exact rounding to a binary float format ------------------------------------------

# (precision in bits including the implicit one, minimum normal exponent, largest finite)
FORMATS = {
    "f16": (11, -14, 65504.0),
    "bf16": (8, -126, float.fromhex("0x1.fep127")),
    "f32": (24, -126, float.fromhex("0x1.fffffep127")),
    "f64": (53, -1022, float.fromhex("0x1.fffffffffffffp1023")),
}


def round_to_format(value, fmt):
    """The exact value (an int or a finite/inf/NaN float) rounded once, to nearest even,
    to format fmt, as a Python float (exact: every format here is a subset of f64)."""
    if isinstance(value, float) and (math.isnan(value) or math.isinf(value)):
        return value
    precision, emin, largest = FORMATS[fmt]
    exact = Fraction(value)
    if exact == 0:
        return math.copysign(0.0, value) if isinstance(value, float) else 0.0
    magnitude = abs(exact)
    e = magnitude.numerator.bit_length() - magnitude.denominator.bit_length()
    while Fraction(2) ** e > magnitude:
        e -= 1
    while Fraction(2) ** (e + 1) <= magnitude:
        e += 1
    quantum = Fraction(2) ** (max(e, emin) - (precision - 1))
    rounded = round(magnitude / quantum) * quantum  # Fraction round: half to even
    result = math.inf if rounded > Fraction(largest) else float(rounded)
    return -result if exact < 0 else result


def to_format(values, fmt):
    return np.array([round_to_format(float(v), fmt) for v in np.asarray(values).ravel()],
                    dtype=np.float64).reshape(np.shape(values))


# ---- unary float ops ------------------------------------------------------------------

def unary_cases():
    x = np.array([np.nan, -np.inf, -1000, -100, -20, -10, -7.5, -3.25, -2.5, -1.5, -1, -0.75,
                  -0.5, -0.375, -0.125, -0.0, 0.0, 2.0**-10, 0.03125, 0.25, 0.5, 0.625, 1, 1.5,
                  2, 2.5, 3.125, 3.5, 4.5, 6, 10, 20, 100, 1000, np.inf], dtype=np.float64)
    for fmt in ("f16", "bf16", "f32"):
        assert np.array_equal(to_format(x, fmt), x, equal_nan=True), fmt
    save("unary_x", x)

    def vec(f):
        return np.array([f(v) for v in x], dtype=np.float64)

    def sigmoid(v):
        return np.exp(-np.logaddexp(0.0, -v))  # 1 / (1 + e^-v) without overflow

    def limit_at_inf(v, y):
        """x * g(x) ops: +inf -> +inf, -inf -> 0 (the limit; x * g(x) would be NaN)."""
        return np.where(np.isposinf(v), np.inf, np.where(np.isneginf(v), 0.0, y))

    alpha_selu = 1.67326319217681884765625
    gamma_selu = 1.05070102214813232421875
    with np.errstate(all="ignore"):
        k = math.sqrt(2.0 / math.pi)
        z = k * (x + 0.044715 * x**3)
        cases = {
            "neg": -x,
            "abs": np.abs(x),
            "sign": np.sign(x),
            "exp": np.exp(x),
            "log": np.log(x),
            "sqrt": np.sqrt(x),
            "reciprocal": 1.0 / x,
            "rsqrt": 1.0 / np.sqrt(x),
            "sin": np.sin(x),
            "cos": np.cos(x),
            "tan": np.tan(x),
            # NaN outside the domain (|x| > 1, acosh's x < 1); atanh(+-1) = +-inf.
            "asin": np.arcsin(x),
            "acos": np.arccos(x),
            "atan": np.arctan(x),
            "asinh": np.arcsinh(x),
            "acosh": np.arccosh(x),
            "atanh": np.arctanh(x),
            "erf": vec(math.erf),
            "tanh": np.tanh(x),
            "sigmoid": sigmoid(x),
            "relu": np.maximum(x, 0.0),
            "softplus": np.logaddexp(0.0, x),
            "silu": limit_at_inf(x, x * sigmoid(x)),
            # 0.5 x (1 + erf(x / sqrt 2)) = 0.5 x erfc(-x / sqrt 2)
            "gelu": limit_at_inf(x, 0.5 * x * vec(lambda v: math.erfc(-v / math.sqrt(2.0)))),
            # 0.5 (1 + tanh(z)) = sigmoid(2 z)
            "gelu_tanh": limit_at_inf(x, x * sigmoid(2.0 * z)),
            "leaky_relu": np.where(x < 0, 0.01 * x, x),
            "leaky_relu_a02": np.where(x < 0, 0.2 * x, x),
            "elu": np.where(x < 0, np.expm1(x), x),
            "elu_a05": np.where(x < 0, 0.5 * np.expm1(x), x),
            "hard_sigmoid": np.clip(0.2 * x + 0.5, 0.0, 1.0),
            "hard_sigmoid_a05_b025": np.clip(0.5 * x + 0.25, 0.0, 1.0),
            "hard_swish": limit_at_inf(x, x * np.clip(x / 6.0 + 0.5, 0.0, 1.0)),
            "softsign": np.where(np.isinf(x), np.sign(x), x / (1.0 + np.abs(x))),
            "mish": limit_at_inf(x, x * np.tanh(np.logaddexp(0.0, x))),
            "selu": np.where(x > 0, gamma_selu * x,
                             gamma_selu * (alpha_selu * np.exp(x) - alpha_selu)),
            "floor": np.floor(x),
            "ceil": np.ceil(x),
            "round": np.round(x),  # half to even
            "clip_m1_2p5": np.clip(x, -1.0, 2.5),
            "clip_min_0p25": np.where(x < 0.25, 0.25, x),  # NaN passes through
            "clip_max_m3": np.where(x > -3.0, -3.0, x),
        }
    for name, y in cases.items():
        save("unary_" + name, y.astype(np.float64))


# ---- unary integer ops and clip -------------------------------------------------------

INT_X = {
    "i8": [-128, -127, -100, -5, -1, 0, 1, 7, 99, 100, 101, 127],
    "u8": [0, 1, 2, 3, 99, 100, 101, 127, 128, 200, 254, 255],
    "i32": [-2**31, -2**31 + 1, -101, -100, -1, 0, 1, 3, 100, 101, 2**31 - 2, 2**31 - 1],
    "i64": [-2**63, -2**63 + 1, -2**40, -101, -1, 0, 1, 3, 101, 2**53 + 1, 2**63 - 2, 2**63 - 1],
}


def clip_int(values, dt, lo, hi):
    """Clip on integers: bounds become ceil(min) / floor(max), saturated to dt's range."""
    dmin, dmax = int_range(dt)
    lo = dmin if lo is None else min(max(math.ceil(lo), dmin), dmax)
    hi = dmax if hi is None else min(max(math.floor(hi), dmin), dmax)
    return [min(max(v, lo), hi) for v in values]


def int_unary_cases():
    for dt, values in INT_X.items():
        npdt = INT_DTYPES[dt]
        save("int_x_" + dt, np.array(values, dtype=npdt))
        rows = [
            [wrap(-v, dt) for v in values],  # neg
            [wrap(abs(v), dt) for v in values],  # abs
            [(v > 0) - (v < 0) for v in values],  # sign
            clip_int(values, dt, -100.5, 100.5),
            clip_int(values, dt, 3.0, None),
            clip_int(values, dt, None, -1e30),
            clip_int(values, dt, 1e30, None),
        ]
        save("int_y_" + dt, np.array(rows, dtype=npdt))


# ---- binary float ops -----------------------------------------------------------------

def binary_float_cases():
    a = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.5, -2.5, 3, 7.25, -0.75, 4, 0.5],
                 dtype=np.float64).reshape(2, 1, 6)
    b = np.array([0.0, -2.0, 2.5, np.inf, -np.inf, np.nan, 0.75], dtype=np.float64).reshape(7, 1)
    assert np.array_equal(to_format(a, "f16"), a, equal_nan=True)
    save("bin_a", a)
    save("bin_b", b)
    with np.errstate(all="ignore"):
        cases = {
            "add": a + b,
            "sub": a - b,
            "mul": a * b,
            "div": a / b,
            "pow": np.power(a, b),
            "max": np.maximum(a, b),
            "min": np.minimum(a, b),
            "mod": np.mod(a, b),  # sign of the divisor
            "fmod": np.fmod(a, b),  # sign of the dividend
            "equal": np.equal(a, b),
            "less": np.less(a, b),
            "less_equal": np.less_equal(a, b),
            "greater": np.greater(a, b),
            "greater_equal": np.greater_equal(a, b),
        }
    for name, y in cases.items():
        save("bin_" + name, y if y.dtype == np.bool_ else y.astype(np.float64))

    x = np.array([-3, -2.5, -1, -0.5, -0.0, 0, 0.5, 1, 2, 3.5, np.nan, -np.inf] * 2,
                 dtype=np.float64).reshape(2, 3, 4)
    slope = np.array([0.25, -1.5, 2.0], dtype=np.float64).reshape(3, 1)
    save("prelu_x", x)
    save("prelu_slope", slope)
    save("prelu_y", np.where(x < 0, slope * x, x))

    cond = np.array([True, False, True, False, False, True]).reshape(2, 1, 3)
    wa = np.array([1.5, -2.0, np.nan, np.inf], dtype=np.float64).reshape(4, 1)
    wb = np.array([10.0, -20.0, 30.25], dtype=np.float64)
    save("where_cond", cond)
    save("where_a", wa)
    save("where_b", wb)
    save("where_y", np.where(cond, wa, wb))


# ---- binary integer ops ---------------------------------------------------------------

IBIN = {
    "i8": ([-128, -127, -7, 0, 5, 127, -100, 64, 3, -1], [-1, 3, -128, 127]),
    "u8": ([0, 1, 7, 128, 200, 255, 13, 64, 250, 2], [1, 3, 255, 128]),
    "i32": ([-2**31, -2**31 + 1, -7, 0, 5, 2**31 - 1, 65536, -65536, 3, -1],
            [-1, 3, -2**31, 65537]),
    "i64": ([-2**63, -2**63 + 1, -7, 0, 5, 2**63 - 1, 2**32, -2**40, 3, -1],
            [-1, 3, -2**63, 2**32 + 1]),
}


def trunc_div(x, y):
    q = abs(x) // abs(y)
    return q if (x < 0) == (y < 0) else -q


def c_fmod(x, y):
    r = abs(x) % abs(y)
    return -r if x < 0 else r


def binary_int_cases():
    for dt, (av, bv) in IBIN.items():
        npdt = INT_DTYPES[dt]
        a = np.array(av, dtype=npdt).reshape(2, 1, 5)
        b = np.array(bv, dtype=npdt).reshape(4, 1)
        save("ibin_a_" + dt, a)
        save("ibin_b_" + dt, b)
        aa, bb = np.broadcast_arrays(a, b)
        pairs = [(int(p), int(q)) for p, q in zip(aa.ravel(), bb.ravel())]
        arith = [
            lambda p, q: p + q,  # add
            lambda p, q: p - q,  # sub
            lambda p, q: p * q,  # mul
            trunc_div,  # div
            lambda p, q: p % q,  # mod (fmod 0): Python's %, the sign of the divisor
            c_fmod,  # mod (fmod 1)
            max,
            min,
        ]
        y = [[wrap(f(p, q), dt) for p, q in pairs] for f in arith]
        save("ibin_arith_" + dt, np.array(y, dtype=npdt).reshape((len(arith),) + aa.shape))
        cmp = [
            lambda p, q: p == q,
            lambda p, q: p < q,
            lambda p, q: p <= q,
            lambda p, q: p > q,
            lambda p, q: p >= q,
        ]
        y = [[f(p, q) for p, q in pairs] for f in cmp]
        save("ibin_cmp_" + dt, np.array(y, dtype=np.bool_).reshape((len(cmp),) + aa.shape))


# ---- cast -----------------------------------------------------------------------------

CAST_FLOAT_SOURCE = [
    0.0, -0.0, 0.4, -0.6, 1.5, -1.5, 2.5, 100.7, -100.7, 127.9, 128.5, -128.9, -129.0, 255.9,
    256.0, 300.0, -300.0, 65504.0, 65519.0, 65520.0, 70000.0, 2147483647.5, 3e9, -3e9,
    9.3e18, 1e19, -1e19, 1e300, -1e300, math.inf, -math.inf, math.nan, 1e-30, 0.1, 1.0 / 3.0,
    1e-8,
    1.0 + 2.0**-11,  # an f16 tie: to even (1.0)
    1.0 + 2.0**-11 + 2.0**-40,  # just above the tie; f64 -> f32 -> f16 would give 1.0
    1.0 + 2.0**-8 + 2.0**-40,  # the same for bf16
    -(1.0 + 2.0**-8),  # a bf16 tie
]
CAST_INT_SOURCE = {
    "i8": [-128, -1, 0, 1, 127, 5, -77, 100],
    "u8": [0, 1, 127, 128, 255, 200, 2, 77],
    "i32": [-2**31, -1, 0, 1, 2**31 - 1, 300, -129, 65539, 2**24 + 1, 2**24 + 3, 2049, 2051,
            2**24 + 2**16 + 1, 65519, 65520],
    "i64": [-2**63, 2**63 - 1, -1, 0, 1, 2**53 + 1, 2**62 + 2**38 + 1, 2**32 + 1, -300, 70000,
            2**24 + 2**16 + 1, -(2**40 + 2**16 + 1), 2049, 255, 256],
    "bool": [0, 1, 1, 0],
}
FLOAT_TARGETS = ["f32", "f16", "bf16", "f64"]
INT_TARGETS = ["i8", "u8", "i32", "i64", "bool"]
NP_TARGET = {"i8": np.int8, "u8": np.uint8, "i32": np.int32, "i64": np.int64, "bool": np.bool_}


def cast_one(value, to):
    """value: a Python float (float source, already exact in its dtype) or int."""
    if to in FORMATS:
        return round_to_format(value, to)
    if to == "bool":
        return value != 0  # NaN != 0 is True
    if isinstance(value, float):
        lo, hi = int_range(to)
        if math.isnan(value):
            return 0
        if math.isinf(value):
            return hi if value > 0 else lo
        return min(max(math.trunc(value), lo), hi)  # truncate, then saturate
    return wrap(value, to)


def cast_cases():
    sources = {}
    f64 = np.array(CAST_FLOAT_SOURCE, dtype=np.float64)
    sources["f64"] = [float(v) for v in f64]
    with np.errstate(all="ignore"):
        sources["f32"] = [float(v) for v in f64.astype(np.float32)]
        sources["f16"] = [float(v) for v in f64.astype(np.float16)]
    sources["bf16"] = [round_to_format(float(v), "bf16") for v in f64]
    # NumPy rounds f64 -> f32 and f64 -> f16 once, like round_to_format.
    for fmt in ("f32", "f16"):
        assert np.array_equal(np.array(sources[fmt]), to_format(f64, fmt), equal_nan=True)
    for dt, values in CAST_INT_SOURCE.items():
        sources[dt] = [int(v) for v in values]

    for src, values in sources.items():
        if src in ("f32", "f16"):
            npdt = np.float32 if src == "f32" else np.float16
            save("cast_src_" + src, np.array(values, dtype=npdt))
        elif src in ("f64", "bf16"):
            save("cast_src_" + src, np.array(values, dtype=np.float64))
        else:
            save("cast_src_" + src, np.array(values, dtype=NP_TARGET[src]))
        floats = [[cast_one(v, to) for v in values] for to in FLOAT_TARGETS]
        ints = [[int(cast_one(v, to)) for v in values] for to in INT_TARGETS]
        save("cast_%s_to_float" % src, np.array(floats, dtype=np.float64))
        save("cast_%s_to_int" % src, np.array(ints, dtype=np.int64))


def main():
    os.makedirs(OUT, exist_ok=True)
    for name in os.listdir(OUT):
        if name.endswith(".npy"):
            os.remove(os.path.join(OUT, name))
    unary_cases()
    int_unary_cases()
    binary_float_cases()
    binary_int_cases()
    cast_cases()


if __name__ == "__main__":
    main()
