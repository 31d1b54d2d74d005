"""switchyard.convert and the single-file model (docs/format.md, "Single-file models"):
a Session on a .symodel gives the JSON model's outputs exactly, converting back gives the
same bytes, import_onnx writes one file when asked, and a broken file is an
InvalidModelError naming the byte."""

import numpy as np
import pytest

import switchyard


def test_single_file_runs_like_the_json(root, tmp_path):
    one = switchyard.convert(root / "examples" / "mlp", tmp_path / "mlp.symodel")
    assert one == str(tmp_path / "mlp.symodel")
    x = np.load(root / "examples" / "mlp" / "inputs" / "x.npy")
    want = switchyard.Session(root / "examples" / "mlp", device="cpu").run({"x": x})["y"]
    got = switchyard.Session(one, device="cpu").run({"x": x})["y"]
    np.testing.assert_array_equal(got, want)
    np.testing.assert_allclose(got, np.load(root / "examples" / "mlp" / "expected" / "y.npy"),
                               rtol=1e-5, atol=1e-6)


def test_round_trip_is_bit_exact(root, tmp_path):
    first = switchyard.convert(root / "examples" / "transformer", tmp_path / "t.symodel")
    back = switchyard.convert(first, tmp_path / "back" / "t")
    assert back == str(tmp_path / "back" / "t.json")
    again = switchyard.convert(back, tmp_path / "again.symodel")
    assert (tmp_path / "t.symodel").read_bytes() == (tmp_path / "again.symodel").read_bytes()
    # The stem finds the single file when no JSON sits beside it.
    feeds = {"tokens": np.load(root / "examples" / "transformer" / "inputs" / "tokens.npy")}
    by_stem = switchyard.Session(tmp_path / "again", device="cpu").run(feeds)
    by_file = switchyard.Session(again, device="cpu").run(feeds)
    for name in by_file:
        np.testing.assert_array_equal(by_stem[name], by_file[name])


def test_import_onnx_writes_one_file(tmp_path):
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper
    graph = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["y"])], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])])
    path = tmp_path / "relu.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)
    summary = switchyard.import_onnx(path, tmp_path / "out" / "relu.symodel")
    assert summary["model"] == str(tmp_path / "out" / "relu.symodel")
    assert not (tmp_path / "out" / "relu.json").exists()
    x = np.array([[-1, 0, 2], [3, -4, 5]], dtype=np.float32)
    y = switchyard.Session(tmp_path / "out" / "relu.symodel", device="cpu").run({"x": x})["y"]
    np.testing.assert_array_equal(y, np.maximum(x, 0))


def test_broken_file_is_an_invalid_model(root, tmp_path):
    good = switchyard.convert(root / "examples" / "mlp", tmp_path / "m.symodel")
    data = bytearray(open(good, "rb").read())
    data[64:68] = (7).to_bytes(4, "little")  # the graph section's version
    (tmp_path / "bad.symodel").write_bytes(bytes(data))
    with pytest.raises(switchyard.InvalidModelError, match="byte 64: graph section version is 7"):
        switchyard.Session(tmp_path / "bad.symodel", device="cpu")
    with pytest.raises(switchyard.NotFoundError):
        switchyard.convert(tmp_path / "missing.symodel", tmp_path / "x")
