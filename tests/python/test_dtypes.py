"""Every dtype NumPy has crosses the boundary both ways without a conversion; bf16 (which
NumPy lacks) comes back widened to float32; empty tensors work."""

import json

import numpy as np
import pytest

import switchyard

NUMPY = {"f32": np.float32, "f16": np.float16, "f64": np.float64, "i8": np.int8,
         "u8": np.uint8, "i16": np.int16, "u16": np.uint16, "i32": np.int32, "u32": np.uint32,
         "i64": np.int64}


def model(tmp_path, nodes, values, inputs, outputs):
    path = tmp_path / "m.json"
    path.write_text(json.dumps({"format": "rml-graph", "version": 1, "values": values,
                                "inputs": inputs, "outputs": outputs, "nodes": nodes}))
    return path


@pytest.mark.parametrize("dtype", sorted(NUMPY))
def test_neg_in_every_numpy_dtype(tmp_path, dtype):
    values = [{"name": "x", "dtype": dtype, "shape": [2, 3]},
              {"name": "y", "dtype": dtype, "shape": [2, 3]}]
    session = switchyard.Session(model(tmp_path, [{"op": "neg", "inputs": [0], "outputs": [1]}],
                                       values, [0], [1]), "cpu")
    x = np.arange(6, dtype=NUMPY[dtype]).reshape(2, 3)
    y = session.run({"x": x})["y"]
    assert y.dtype == x.dtype
    unsigned = np.dtype(NUMPY[dtype]).kind == "u"
    bits = 8 * np.dtype(NUMPY[dtype]).itemsize
    np.testing.assert_array_equal(y, (-x.astype(np.int64)) % 2**bits if unsigned else -x)
    assert session.stats["inputs_copied_by_python"] == 0


def test_bool_and_bf16(tmp_path):
    values = [{"name": "b", "dtype": "bool", "shape": [4]},
              {"name": "nb", "dtype": "bool", "shape": [4]},
              {"name": "x", "dtype": "f32", "shape": [3]},
              {"name": "h", "dtype": "bf16", "shape": [3]}]
    nodes = [{"op": "not", "inputs": [0], "outputs": [1]},
             {"op": "cast", "inputs": [2], "outputs": [3], "attrs": {"to": "bf16"}}]
    session = switchyard.Session(model(tmp_path, nodes, values, [0, 2], [1, 3]), "cpu")
    out = session.run({"b": np.array([True, False, True, False]),
                       "x": np.array([1.0, -2.5, 3.0], np.float32)})
    np.testing.assert_array_equal(out["nb"], [False, True, False, True])
    assert out["nb"].dtype == np.bool_
    assert out["h"].dtype == np.float32  # bf16 widened
    np.testing.assert_array_equal(out["h"], [1.0, -2.5, 3.0])


def test_empty_tensors(tmp_path):
    values = [{"name": "x", "dtype": "f32", "shape": [0, 4]},
              {"name": "y", "dtype": "f32", "shape": [0, 4]}]
    session = switchyard.Session(model(tmp_path, [{"op": "neg", "inputs": [0], "outputs": [1]}],
                                       values, [0], [1]), "cpu")
    y = session.run({"x": np.zeros((0, 4), np.float32)})["y"]
    assert y.shape == (0, 4) and y.dtype == np.float32
