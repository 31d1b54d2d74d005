#!/usr/bin/env python3
"""Writes tests/data/npy/: .npy files saved by NumPy itself, the independent reference for
Switchyard's .npy reader (tests/unit/format/npy_test.cpp)."""
import os

import numpy as np

out = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests", "data", "npy")
os.makedirs(out, exist_ok=True)
np.save(os.path.join(out, "f32_2x3.npy"), np.arange(6, dtype=np.float32).reshape(2, 3) / 4)
np.save(os.path.join(out, "f16_4.npy"), np.array([1.0, -2.5, 65504, 0.0001], dtype=np.float16))
np.save(os.path.join(out, "f64_scalar.npy"), np.array(3.141592653589793))
np.save(os.path.join(out, "i8_3.npy"), np.array([-128, 0, 127], dtype=np.int8))
np.save(os.path.join(out, "u8_1.npy"), np.array([255], dtype=np.uint8))
np.save(os.path.join(out, "i32_2x0.npy"), np.zeros((2, 0), dtype=np.int32))
np.save(os.path.join(out, "i64_5.npy"), np.array([-(2**63), -1, 0, 1, 2**63 - 1], dtype=np.int64))
np.save(os.path.join(out, "bool_2x2.npy"), np.array([[True, False], [False, True]]))
np.save(os.path.join(out, "fortran_2x2.npy"), np.asfortranarray(np.ones((2, 2), dtype=np.float32)))
np.save(os.path.join(out, "bigendian_2.npy"), np.array([1, 2], dtype=">i4"))
np.save(os.path.join(out, "complex_1.npy"), np.array([1 + 2j], dtype=np.complex64))
