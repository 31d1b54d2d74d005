"""Bad input raises a Python exception with the message the CLI prints, never a crash."""

import json

import numpy as np
import pytest

import switchyard


def cli_message(stderr, command):
    prefix = f"switchyard {command}: "
    line = stderr.strip().splitlines()[-1]
    assert line.startswith(prefix), stderr
    return line[len(prefix):]


def test_hierarchy():
    assert issubclass(switchyard.Error, RuntimeError)
    assert issubclass(switchyard.InvalidArgumentError, switchyard.Error)
    assert issubclass(switchyard.InvalidArgumentError, ValueError)
    assert issubclass(switchyard.NotFoundError, LookupError)


def test_wrong_dtype_same_message_as_cli(root, cli, tmp_path):
    x = np.load(root / "examples/mlp/inputs/x.npy").astype(np.float64)
    np.save(tmp_path / "x.npy", x)
    code, _, err = cli("run", root / "examples/mlp", "--device", "cpu", "--input",
                       f"x={tmp_path / 'x.npy'}")
    assert code == 1
    session = switchyard.Session(root / "examples/mlp", device="cpu")
    with pytest.raises(switchyard.InvalidArgumentError) as raised:
        session.run({"x": x})
    assert str(raised.value) == cli_message(err, "run")
    assert raised.value.code == "invalid argument"
    assert 'input "x" is f64 [2, 12] but the model expects f32 [2, 12]' in str(raised.value)


def test_wrong_shape_and_session_stays_usable(root):
    session = switchyard.Session(root / "examples/mlp", device="cpu")
    with pytest.raises(ValueError, match=r'input "x" is f32 \[3, 12\]'):
        session.run({"x": np.zeros((3, 12), np.float32)})
    x = np.load(root / "examples/mlp/inputs/x.npy")
    np.testing.assert_allclose(session.run({"x": x})["y"],
                               np.load(root / "examples/mlp/expected/y.npy"), rtol=1e-4,
                               atol=1e-4)


def test_missing_and_unknown_inputs(root):
    session = switchyard.Session(root / "examples/mlp", device="cpu")
    with pytest.raises(switchyard.InvalidArgumentError, match=r'missing input "x" \(f32 \[2, 12\]\)'):
        session.run({})
    with pytest.raises(switchyard.InvalidArgumentError, match='unknown input "z"'):
        session.run({"x": np.zeros((2, 12), np.float32), "z": np.zeros(1, np.float32)})
    with pytest.raises(switchyard.InvalidArgumentError, match="input names must be strings"):
        session.run({1: np.zeros((2, 12), np.float32)})
    with pytest.raises(switchyard.InvalidArgumentError, match="mapping"):
        session.run([np.zeros((2, 12), np.float32)])


def test_unsupported_dtypes_and_non_arrays(root):
    session = switchyard.Session(root / "examples/mlp", device="cpu")
    with pytest.raises(switchyard.InvalidArgumentError, match="has dtype complex64"):
        session.run({"x": np.zeros((2, 12), np.complex64)})
    with pytest.raises(switchyard.InvalidArgumentError, match='input "x" is not an array'):
        session.run({"x": object()})
    with pytest.raises(switchyard.InvalidArgumentError, match=r'input "x" is f32 \[2\]'):
        session.run({"x": [1.0, 2.0]})  # a list becomes an f32 array, of the wrong shape
    # Objects and strings are refused, not converted into garbage ([None, 1.0, "2"] ran as
    # [nan, -1, -2]).
    for bad in ([[None, 1.0, "2"] * 4] * 2, [["a"] * 12] * 2):
        with pytest.raises(switchyard.InvalidArgumentError,
                           match='input "x" is not an array of numbers: NumPy reads it as'):
            session.run({"x": bad})


def test_python_numbers_keep_their_shape_and_are_not_truncated(tmp_path):
    def model(dtype, shape, op):
        path = tmp_path / f"{op}_{dtype}.json"
        path.write_text(json.dumps({
            "format": "rml-graph", "version": 1,
            "values": [{"name": "x", "dtype": dtype, "shape": shape},
                       {"name": "y", "dtype": dtype, "shape": shape}],
            "inputs": [0], "outputs": [1], "constants": [],
            "nodes": [{"op": op, "inputs": [0], "outputs": [1]}]}))
        return switchyard.Session(path, device="cpu")
    # A Python float for a 0-d input is a 0-d array (it was made [1]).
    assert model("f32", [], "neg").run({"x": 2.5})["y"] == np.float32(-2.5)
    ints = model("i64", [2], "neg")
    np.testing.assert_array_equal(ints.run({"x": [1.0, -2.0]})["y"], [-1, 2])
    with pytest.raises(switchyard.InvalidArgumentError, match="holds fractional numbers"):
        ints.run({"x": [1.5, 2.0]})


def test_bad_paths(root, cli, tmp_path):
    missing = tmp_path / "nothing"
    code, _, err = cli("run", missing, "--device", "cpu")
    assert code == 1
    with pytest.raises(switchyard.Error) as raised:
        switchyard.Session(missing, device="cpu")
    assert str(raised.value) == cli_message(err, "run")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(switchyard.InvalidModelError):
        switchyard.Session(bad, device="cpu")


def test_unknown_device_same_message_as_cli(root, cli):
    code, _, err = cli("run", root / "examples/mlp", "--device", "nodevice")
    assert code == 2 or code == 1
    with pytest.raises(switchyard.InvalidArgumentError) as raised:
        switchyard.Session(root / "examples/mlp", device="nodevice")
    message = str(raised.value)
    assert message.startswith('device: no device "nodevice" (available: ')
    # The CLI names its option --device SPEC; the rest is the same text.
    assert cli_message(err, "run") == "--device nodevice: " + message[len("device: "):]


def test_bad_options(root):
    mlp = root / "examples/mlp"
    with pytest.raises(ValueError, match="cpu:0 is cpu:0, which is already in the list"):
        switchyard.Session(mlp, device=["cpu", "cpu:0"])
    with pytest.raises(ValueError, match="optimize 7: expected 0"):
        switchyard.Session(mlp, "cpu", optimize=7)
    with pytest.raises(ValueError, match="threads -1"):
        switchyard.Session(mlp, "cpu", threads=-1)
    with pytest.raises(ValueError, match="memory_limit cpu: .*lots"):
        switchyard.Session(mlp, "cpu", memory_limit={"cpu": "lots"})
    with pytest.raises(ValueError, match="memory_limit nodevice: no device"):
        switchyard.Session(mlp, "cpu", memory_limit={"nodevice": "1MiB"})
    with pytest.raises(ValueError, match="max_specializations 0"):
        switchyard.Session(mlp, "cpu", max_specializations=0)
    with pytest.raises(ValueError, match="timeout needs isolate"):
        switchyard.Session(mlp, "cpu", timeout=5)
    with pytest.raises(ValueError, match="isolate cpux: no plugin of that name"):
        switchyard.Session(mlp, "cpu", isolate="cpux")


def test_memory_limit_too_small_fails_at_creation(root, cli):
    code, _, err = cli("run", root / "examples/mlp", "--device", "cpu", "--memory-limit",
                       "cpu=16")
    assert code == 1
    with pytest.raises(switchyard.Error) as raised:
        switchyard.Session(root / "examples/mlp", "cpu", memory_limit={"cpu": 16})
    assert str(raised.value) == cli_message(err, "run")


def test_device_memory_inputs_are_refused(root):
    class GpuArray:  # what a CUDA tensor says through DLPack
        def __dlpack_device__(self):
            return (2, 0)

        def __dlpack__(self, stream=None):
            raise BufferError("not here")

    session = switchyard.Session(root / "examples/mlp", device="cpu")
    with pytest.raises(switchyard.InvalidArgumentError, match="in device memory"):
        session.run({"x": GpuArray()})
