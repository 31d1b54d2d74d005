"""switchyard.quantize (docs/quantize.md): the same rewrite and report as
`switchyard quantize --json`, a model whose weights lie on each block's grid coming back
exactly (the quantized graph equals the f32 one), a PyTorch nn.Linear (an imported gemm)
within the 4-bit error it reports, and bad options as InvalidArgumentError."""

import json

import numpy as np
import pytest

import switchyard


def grid_model(folder, dtype="f32"):
    """y = x @ w, w [32, 2] on 4-bit blocks of 16: integers and halves (docs/quantize.md)."""
    w = np.stack([np.r_[np.arange(16), (31 - np.arange(16, 32)) * 0.5],
                  np.r_[np.arange(16) - 15, np.arange(16, 32) - 31]], axis=1).astype(np.float32)
    graph = {"format": "rml-graph", "version": 1,
             "values": [{"name": "x", "dtype": dtype, "shape": [2, 32]},
                        {"name": "w", "dtype": dtype, "shape": [32, 2]},
                        {"name": "y", "dtype": dtype, "shape": [2, 2]}],
             "inputs": [0], "outputs": [2],
             "constants": [{"value": 1, "data": w.ravel().tolist()}],
             "nodes": [{"op": "matmul", "inputs": [0, 1], "outputs": [2], "name": "fc"}]}
    path = folder / f"grid_{dtype}.json"
    path.write_text(json.dumps(graph))
    return path, w


def test_grid_weights_come_back_exactly(tmp_path):
    path, w = grid_model(tmp_path)
    report = switchyard.quantize(path, tmp_path / "q" / "grid", block=16)
    assert report["model"] == str(tmp_path / "q" / "grid.json")
    assert (report["bits"], report["block_size"], report["symmetric"]) == (4, 16, False)
    [layer] = report["quantized"]
    assert layer["node"] == 'node 0 (quant_matmul) "fc"'
    assert (layer["k"], layer["n"]) == (32, 2)
    assert layer["relative_rms_error"] == 0 and layer["max_abs_error"] == 0
    assert report["skipped"] == []
    x = np.stack([np.ones(32), np.arange(32) % 3]).astype(np.float32)
    for device in ("cpu", "cpu-ref"):
        y = switchyard.Session(report["model"], device=device).run({"x": x})["y"]
        np.testing.assert_array_equal(y, x @ w)


def test_f16_weights_keep_f16_scales_and_come_back_exactly(tmp_path):
    path, w = grid_model(tmp_path, "f16")
    report = switchyard.quantize(path, tmp_path / "q16", block=16)
    [layer] = report["quantized"]
    assert layer["max_abs_error"] == 0
    # 4-bit codes (8 bytes a block of 16), f16 scales (2 bytes a block), zero points (1)
    assert (report["bytes_before"], report["bytes_after"]) == (128, 32 + 8 + 4)
    x = np.stack([np.ones(32), np.arange(32) % 3]).astype(np.float16)
    for device in ("cpu", "cpu-ref"):
        session = switchyard.Session(report["model"], device=device)
        assert session.input_types["x"][0] == "f16"
        y = session.run({"x": x})["y"]
        assert y.dtype == np.float16
        np.testing.assert_array_equal(y, (x.astype(np.float64) @ w).astype(np.float16))


def test_report_is_the_clis(tmp_path, root, cli):
    model = root / "examples" / "mlp"
    report = switchyard.quantize(model, tmp_path / "py", weights="int8", symmetric=True)
    code, out, err = cli("quantize", model, "-o", tmp_path / "cli", "--weights", "int8",
                         "--symmetric", "--json")
    assert code == 0, err
    want = json.loads(out)
    for key in ("bits", "block_size", "symmetric", "quantized", "skipped", "bytes_before",
                "bytes_after"):
        assert report[key] == want[key], key


def test_an_imported_linear_layer(tmp_path):
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    layer = torch.nn.Linear(64, 8).eval()
    path = tmp_path / "linear.onnx"
    torch.onnx.export(layer, torch.zeros(3, 64), str(path), input_names=["x"],
                      output_names=["y"], opset_version=13)
    switchyard.import_onnx(path, tmp_path / "f32")
    report = switchyard.quantize(tmp_path / "f32.json", tmp_path / "q4")
    [q] = report["quantized"]
    assert (q["k"], q["n"]) == (64, 8) and 0 < q["relative_rms_error"] < 0.1
    x = np.random.default_rng(1).standard_normal((3, 64)).astype(np.float32)
    with torch.no_grad():
        want = layer(torch.from_numpy(x)).numpy()
    got = switchyard.Session(report["model"], device="cpu").run({"x": x})["y"]
    # The weights' error bounds the output's: |dy| <= sum |x| * max |dw|.
    bound = np.abs(x).sum(axis=1, keepdims=True) * q["max_abs_error"]
    assert np.all(np.abs(got - want) <= bound + 1e-5)


def test_bad_options(tmp_path, root):
    model = root / "examples" / "mlp"
    with pytest.raises(switchyard.InvalidArgumentError, match="expected 'int4' or 'int8'"):
        switchyard.quantize(model, tmp_path / "x", weights="int3")
    with pytest.raises(switchyard.InvalidArgumentError, match="power of two from 16 to 256"):
        switchyard.quantize(model, tmp_path / "x", block=24)
    with pytest.raises(switchyard.Error, match="nope"):
        switchyard.quantize(tmp_path / "nope", tmp_path / "x")


def test_quant_accuracy_level_4_quantizes_activations_within_the_bound(tmp_path):
    """Session(quant_accuracy_level=4) (docs/ops.md): the cpu device quantizes x to int8
    per block (scale max|x| / 127): exactly that arithmetic, recomputed here in float64,
    within f32 rounding; the f32 product within the bound the docs state."""
    path, w = grid_model(tmp_path)
    report = switchyard.quantize(path, tmp_path / "q" / "grid", block=16)
    x = np.random.default_rng(3).standard_normal((2, 32)).astype(np.float32)
    exact = x.astype(np.float64) @ w.astype(np.float64)
    default = switchyard.Session(report["model"], device="cpu").run({"x": x})["y"]
    np.testing.assert_allclose(default, exact, rtol=1e-5, atol=1e-5)  # the model's level: 0
    int8 = switchyard.Session(report["model"], device="cpu", quant_accuracy_level=4).run(
        {"x": x})["y"]
    blocks = x.reshape(2, 2, 16)
    m = np.abs(blocks).max(axis=2, keepdims=True)
    q = np.rint(blocks * (np.float32(127) / m)).astype(np.float64)
    s = (m / np.float32(127)).astype(np.float64)
    want = np.einsum("rbk,bkn->rn", q * s, w.reshape(2, 16, 2).astype(np.float64))
    np.testing.assert_allclose(int8, want, rtol=1e-5, atol=1e-4)
    bound = np.einsum("rb,bn->rn", s[:, :, 0] / 2, np.abs(w).reshape(2, 16, 2).sum(axis=1))
    assert np.all(np.abs(int8 - exact) <= bound + 1e-4)
    assert not np.array_equal(int8, default)
    with pytest.raises(switchyard.InvalidArgumentError, match="quant_accuracy_level 9"):
        switchyard.Session(report["model"], device="cpu", quant_accuracy_level=9)
