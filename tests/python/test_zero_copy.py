"""Inputs read where the caller keeps them, outputs handed over without a copy
(docs/python.md, "Zero copy")."""

import numpy as np
import pytest

import switchyard


@pytest.fixture()
def mlp(root):
    return switchyard.Session(root / "examples/mlp", device="cpu")


def test_contiguous_numpy_input_is_read_in_place(root, mlp):
    x = np.load(root / "examples/mlp/inputs/x.npy")
    before = mlp.stats
    for _ in range(3):
        mlp.run({"x": x})
    after = mlp.stats
    # The cpu device wrapped the caller's array each run (Session::Stats::inputs_in_place)
    # and this module copied nothing.
    assert after["inputs_in_place"] - before["inputs_in_place"] == 3
    assert after["inputs_copied_by_python"] == 0
    assert after["buffer_allocations"] == before["buffer_allocations"]


def test_read_only_and_dlpack_inputs_are_not_copied(root, mlp):
    x = np.load(root / "examples/mlp/inputs/x.npy")
    x.flags.writeable = False
    expected = mlp.run({"x": x.copy()})["y"]
    np.testing.assert_array_equal(mlp.run({"x": x})["y"], expected)

    class DLPackOnly:  # an object with nothing but DLPack (as other frameworks' tensors)
        def __init__(self, array):
            self.array = array

        def __dlpack__(self, **kwargs):
            return self.array.__dlpack__(**kwargs)

        def __dlpack_device__(self):
            return self.array.__dlpack_device__()

    # (a writable array: NumPy 1.x exports no read-only array through DLPack)
    np.testing.assert_array_equal(mlp.run({"x": DLPackOnly(x.copy())})["y"], expected)
    assert mlp.stats["inputs_copied_by_python"] == 0


def test_torch_tensor_input_in_place(root, mlp):
    torch = pytest.importorskip("torch")
    x = np.load(root / "examples/mlp/inputs/x.npy")
    before = mlp.stats["inputs_in_place"]
    y = mlp.run({"x": torch.from_numpy(x)})["y"]
    np.testing.assert_array_equal(y, mlp.run({"x": x})["y"])
    assert mlp.stats["inputs_in_place"] - before == 2
    assert mlp.stats["inputs_copied_by_python"] == 0


def test_strided_and_list_inputs_are_copied_once_and_still_right(root, mlp):
    x = np.load(root / "examples/mlp/inputs/x.npy")
    expected = mlp.run({"x": x})["y"]
    wide = np.zeros((2, 24), np.float32)
    wide[:, ::2] = x
    strided = wide[:, ::2]
    assert not strided.flags.c_contiguous
    np.testing.assert_array_equal(mlp.run({"x": strided})["y"], expected)
    np.testing.assert_array_equal(mlp.run({"x": np.asfortranarray(x)})["y"], expected)
    np.testing.assert_array_equal(mlp.run({"x": x.tolist()})["y"], expected)
    assert mlp.stats["inputs_copied_by_python"] == 3


def test_outputs_own_the_session_memory(root, mlp):
    x = np.load(root / "examples/mlp/inputs/x.npy")
    a = mlp.run({"x": x})["y"]
    b = mlp.run({"x": x})["y"]
    # Each run's result is its own memory, handed to NumPy without a copy: the array does
    # not own its data (a capsule holding the runtime's tensor does), it is writable, and
    # a second run leaves the first result alone.
    assert not a.flags.owndata and a.base is not None
    assert a.flags.writeable and a.flags.c_contiguous
    assert a.__array_interface__["data"][0] != b.__array_interface__["data"][0]
    a[...] = 0
    np.testing.assert_array_equal(b, mlp.run({"x": x})["y"])
    # NumPy arrays speak DLPack: a framework takes the result without a copy either.
    assert np.from_dlpack(b).__array_interface__["data"][0] == b.__array_interface__["data"][0]
