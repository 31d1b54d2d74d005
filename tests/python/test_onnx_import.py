"""switchyard.import_onnx on a model exported from PyTorch (Debian's python3-torch), run
and compared with PyTorch; and the same summary as `switchyard import --json`."""

import json

import numpy as np
import pytest

import switchyard

torch = pytest.importorskip("torch")


class Small(torch.nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.conv = torch.nn.Conv2d(3, 4, 3, padding=1)
        self.fc = torch.nn.Linear(4 * 8 * 8, 5)

    def forward(self, x):
        return torch.softmax(self.fc(torch.relu(self.conv(x)).flatten(1)), dim=1)


@pytest.fixture(scope="module")
def onnx_model(tmp_path_factory):
    path = tmp_path_factory.mktemp("onnx") / "small.onnx"
    model = Small().eval()
    torch.onnx.export(model, torch.zeros(2, 3, 8, 8), str(path), input_names=["x"],
                      output_names=["y"], dynamic_axes={"x": {0: "batch"}, "y": {0: "batch"}},
                      opset_version=13)
    return path, model


def test_import_and_run_matches_pytorch(onnx_model, tmp_path):
    path, model = onnx_model
    summary = switchyard.import_onnx(path, tmp_path / "out" / "small")
    assert summary["model"] == str(tmp_path / "out" / "small.json")
    assert summary["inputs"][0]["name"] == "x"
    session = switchyard.Session(tmp_path / "out" / "small.json", device="cpu")
    assert session.dynamic and session.input_types["x"] == ("f32", (None, 3, 8, 8))
    for batch in (1, 4):
        x = np.random.default_rng(batch).standard_normal((batch, 3, 8, 8), dtype=np.float32)
        with torch.no_grad():
            expected = model(torch.from_numpy(x)).numpy()
        np.testing.assert_allclose(session.run({"x": x})["y"], expected, rtol=1e-4, atol=1e-5)


def test_input_shapes_fix_sizes_as_the_cli_does(onnx_model, tmp_path, cli):
    path, _ = onnx_model
    ours = switchyard.import_onnx(path, tmp_path / "py", input_shapes={"x": [3, 3, 8, 8]})
    code, out, _ = cli("import", path, "-o", tmp_path / "cli", "--input-shape", "x=3,3,8,8",
                       "--json")
    assert code == 0
    theirs = json.loads(out)
    for key in ("opset", "onnx_nodes", "folded_nodes", "nodes", "constants", "weight_bytes",
                "inputs", "outputs"):
        assert ours[key] == theirs[key], key
    assert (tmp_path / "py.json").read_text() == (tmp_path / "cli.json").read_text()
    session = switchyard.Session(tmp_path / "py", device="cpu")
    assert not session.dynamic and session.input_types["x"] == ("f32", (3, 3, 8, 8))


def test_import_errors(tmp_path, cli):
    missing = tmp_path / "missing.onnx"
    code, _, err = cli("import", missing, "-o", tmp_path / "m")
    assert code == 1
    with pytest.raises(switchyard.Error) as raised:
        switchyard.import_onnx(missing, tmp_path / "m")
    assert "switchyard import: " + str(raised.value) == err.strip().splitlines()[-1]
    garbage = tmp_path / "garbage.onnx"
    garbage.write_bytes(b"\x00\x01not a model")
    with pytest.raises(switchyard.Error):
        switchyard.import_onnx(garbage, tmp_path / "g")
    with pytest.raises(ValueError, match="max_fold_bytes"):
        switchyard.import_onnx(garbage, tmp_path / "g", max_fold_bytes="lots")
    with pytest.raises(ValueError, match="decoder_state"):
        switchyard.import_onnx(garbage, tmp_path / "g", decoder_state=0)
