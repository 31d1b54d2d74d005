"""Values that stay on a device (docs/python.md): DeviceTensors bound as inputs and outputs
of runs, on the remote test plugin (two devices whose memory the host cannot address), on
the CPU, and on OpenCL where a device exists. Expected values come from NumPy."""

import os

import numpy as np
import pytest

import switchyard


@pytest.fixture(scope="module")
def remote_plugin(root):
    path = os.environ.get("SY_TEST_REMOTE_PLUGIN") or str(
        root / "build/release/test_plugins/remote/libswitchyard_test_remote.so")
    if not os.path.exists(path):
        pytest.skip("the remote test plugin is not built (set SY_TEST_REMOTE_PLUGIN)")
    return path


def mlp_reference(root, x):
    """examples/mlp's outputs for its bundled input, from tools/make_examples.py's NumPy."""
    assert np.array_equal(x, np.load(root / "examples/mlp/inputs/x.npy"))
    return {p.stem: np.load(p) for p in (root / "examples/mlp/expected").glob("*.npy")}


def test_remote_run_keeps_values_on_the_device(root, remote_plugin):
    s = switchyard.Session(root / "examples/mlp", device="remote:0", plugins=[remote_plugin])
    x = np.load(root / "examples/mlp/inputs/x.npy")
    want = mlp_reference(root, x)
    x_dev = s.to_device(x)
    assert x_dev.device == "remote:0"
    assert x_dev.shape == x.shape and x_dev.dtype == "f32" and x_dev.nbytes == x.nbytes
    (name,) = s.output_names
    y_dev = s.empty(*s.output_types[name])
    before = s.stats
    for _ in range(3):
        out = s.run({"x": x_dev}, outputs={name: y_dev})
        assert out[name] is y_dev
        np.testing.assert_allclose(y_dev.numpy(), want[name], rtol=1e-5, atol=1e-6)
    after = s.stats
    assert after["host_bytes_in"] == before["host_bytes_in"]
    assert after["host_bytes_out"] == before["host_bytes_out"]
    assert after["outputs_in_place"] - before["outputs_in_place"] == 3
    # A device spec leaves the output on that device in a new DeviceTensor.
    out = s.run({"x": x_dev}, outputs={name: "remote:1"})
    assert isinstance(out[name], switchyard.DeviceTensor) and out[name].device == "remote:1"
    np.testing.assert_allclose(out[name].numpy(), want[name], rtol=1e-5, atol=1e-6)
    # Unbound outputs come back as arrays, as from a plain run.
    np.testing.assert_allclose(s.run({"x": x_dev})[name], want[name], rtol=1e-5, atol=1e-6)


def test_bad_bindings_raise_clear_errors(root, remote_plugin):
    s = switchyard.Session(root / "examples/mlp", device="remote:0", plugins=[remote_plugin])
    x = np.load(root / "examples/mlp/inputs/x.npy")
    (name,) = s.output_names
    with pytest.raises(switchyard.InvalidArgumentError, match="has no such output"):
        s.run({"x": x}, outputs={"nope": "remote:0"})
    with pytest.raises(switchyard.InvalidArgumentError, match="but the device tensor bound"):
        s.run({"x": x}, outputs={name: s.empty("f32", (1,))})
    with pytest.raises(switchyard.InvalidArgumentError, match="expected a DeviceTensor"):
        s.run({"x": x}, outputs={name: 3})
    with pytest.raises(switchyard.InvalidArgumentError, match="on remote:0 but the model expects"):
        s.run({"x": s.to_device(x[:1])})
    with pytest.raises(switchyard.NotFoundError):
        s.to_device(x, device="remote:7")
    with pytest.raises(switchyard.InvalidArgumentError, match="dtype \"f99\""):
        s.empty("f99", (2,))
    t = s.to_device(x)
    with pytest.raises(switchyard.InvalidArgumentError, match="but the device tensor"):
        t.copy_from(x[:1])
    t.copy_from(x + 1)
    np.testing.assert_array_equal(t.numpy(), x + 1)
    assert "DeviceTensor(f32" in repr(t) and "remote:0" in repr(t)


def test_cpu_device_tensors_are_read_in_place(root):
    s = switchyard.Session(root / "examples/mlp", device="cpu")
    x = np.load(root / "examples/mlp/inputs/x.npy")
    (name,) = s.output_names
    want = mlp_reference(root, x)[name]
    before = s.stats
    out = s.run({"x": s.to_device(x)}, outputs={name: "cpu"})
    np.testing.assert_allclose(out[name].numpy(), want, rtol=1e-5, atol=1e-6)
    assert s.stats["inputs_in_place"] - before["inputs_in_place"] == 1
    assert s.stats["host_bytes_in"] == before["host_bytes_in"]


def test_opencl_device_tensors(root):
    if not any(d["spec"].startswith("opencl:") for d in switchyard.devices()):
        pytest.skip("no OpenCL device here")
    s = switchyard.Session(root / "examples/mlp", device="opencl:0")
    x = np.load(root / "examples/mlp/inputs/x.npy")
    (name,) = s.output_names
    want = mlp_reference(root, x)[name]
    before = s.stats
    y = s.run({"x": s.to_device(x)}, outputs={name: "opencl:0"})[name]
    np.testing.assert_allclose(y.numpy(), want, rtol=1e-4, atol=1e-5)
    assert s.stats["host_bytes_in"] == before["host_bytes_in"]
    assert s.stats["host_bytes_out"] == before["host_bytes_out"]


def test_isolated_plugin_device_tensors(root):
    """The cpu plugin in a worker process (docs/plugin-isolation.md): its buffers live
    there, and bound runs still read and write them in place."""
    s = switchyard.Session(root / "examples/mlp", device="cpu", isolate="all")
    x = np.load(root / "examples/mlp/inputs/x.npy")
    (name,) = s.output_names
    want = mlp_reference(root, x)[name]
    y = s.empty(*s.output_types[name])
    s.run({"x": s.to_device(x)}, outputs={name: y})
    np.testing.assert_allclose(y.numpy(), want, rtol=1e-5, atol=1e-6)
    assert s.stats["host_bytes_in"] == 0 and s.stats["outputs_in_place"] == 1
