"""The bundled examples through the Python API against their expected outputs, and the
API's descriptions of a session (plan, types, devices, plugins)."""

import numpy as np
import pytest

import switchyard

EXAMPLES = {"mlp": "y", "cnn": "logits", "transformer": "hidden"}
TOLERANCE = {"cpu": 1e-4, "cpu-ref": 1e-5}


def load_inputs(root, name, session):
    return {n: np.load(root / "examples" / name / "inputs" / f"{n}.npy")
            for n in session.input_names}


@pytest.mark.parametrize("device", ["cpu", "cpu-ref"])
@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_examples_match_expected(root, name, device):
    session = switchyard.Session(root / "examples" / name, device=device)
    outputs = session.run(load_inputs(root, name, session))
    output = EXAMPLES[name]
    expected = np.load(root / "examples" / name / "expected" / f"{output}.npy")
    assert set(outputs) == set(session.output_names) == {output}
    assert outputs[output].dtype == expected.dtype
    np.testing.assert_allclose(outputs[output], expected, rtol=TOLERANCE[device],
                               atol=TOLERANCE[device])


def test_opencl_when_present(root):
    if not any(d["plugin"] == "opencl" for d in switchyard.devices()):
        pytest.skip("no OpenCL device")
    session = switchyard.Session(root / "examples" / "mlp", device="opencl")
    y = session.run(load_inputs(root, "mlp", session))["y"]
    np.testing.assert_allclose(y, np.load(root / "examples/mlp/expected/y.npy"), rtol=1e-4,
                               atol=1e-4)
    assert session.devices == ["opencl:0"]


def test_model_by_folder_stem_and_json(root):
    x = np.load(root / "examples/mlp/inputs/x.npy")
    results = [switchyard.Session(m, device="cpu").run({"x": x})["y"]
               for m in (root / "examples/mlp", str(root / "examples/mlp/mlp"),
                         root / "examples/mlp/mlp.json")]
    np.testing.assert_array_equal(results[0], results[1])
    np.testing.assert_array_equal(results[0], results[2])


def test_types_names_and_call(root):
    session = switchyard.Session(root / "examples" / "mlp", device="cpu")
    assert session.input_names == ["x"]
    assert session.input_types == {"x": ("f32", (2, 12))}
    assert session.output_types == {"y": ("f32", (2, 4))}
    assert not session.dynamic and not session.has_state
    assert session.state_length == 0 and session.state_capacity == 0
    x = np.load(root / "examples/mlp/inputs/x.npy")
    np.testing.assert_array_equal(session(x=x)["y"], session.run({"x": x})["y"])


def test_plan_says_where_and_why(root):
    session = switchyard.Session(root / "examples" / "mlp", device=["cpu-ref"])
    plan = session.plan
    assert plan and all(n["device"] == "cpu:1" for n in plan)
    assert {n["reason"] for n in plan} == {"order"}
    assert {"index", "op", "name", "hint", "device", "reason", "detail"} <= set(plan[0])
    assert session.devices == ["cpu:1"]
    assert "cpu:1" in session.plan_text


def test_plan_matches_the_cli(root, cli):
    import json
    code, out, _ = cli("plan", root / "examples/transformer", "--device", "cpu", "--json")
    assert code == 0
    nodes = json.loads(out)["nodes"]
    session = switchyard.Session(root / "examples/transformer", device="cpu")
    assert [(n["op"], n["name"], n["device"], n["reason"]) for n in session.plan] == \
        [(n["op"], n["name"], n["device"], n["reason"]) for n in nodes]


def test_plugins_and_devices():
    candidates = switchyard.plugins()
    cpu = [c for c in candidates if c["name"] == "cpu"]
    assert cpu and cpu[0]["loaded"] and cpu[0]["probe"] in ("probed", "probed earlier (cached)")
    assert "/lib/switchyard/plugins/" in cpu[0]["path"]
    specs = [d["spec"] for d in switchyard.devices()]
    assert "cpu:0" in specs and "cpu:1" in specs
    cpu0 = next(d for d in switchyard.devices() if d["spec"] == "cpu:0")
    assert cpu0["host_memory"] and cpu0["reads_host_memory_in_place"]
    assert switchyard.search_path()[-1].endswith("lib/switchyard/plugins")


def test_options_reach_the_plan(root):
    # strict, memory limits, optimize levels, threads: as the CLI's flags.
    x = np.load(root / "examples/mlp/inputs/x.npy")
    expected = np.load(root / "examples/mlp/expected/y.npy")
    for kwargs in ({"strict": True}, {"memory_limit": {"cpu": "64MiB"}},
                   {"memory_limit": {"cpu": 1 << 26}}, {"optimize": 0}, {"optimize": 2},
                   {"threads": 1}, {"island_pass": False}):
        y = switchyard.Session(root / "examples/mlp", "cpu", **kwargs).run({"x": x})["y"]
        np.testing.assert_allclose(y, expected, rtol=1e-4, atol=1e-4)
    fused = switchyard.Session(root / "examples/mlp", "cpu", optimize=1).plan
    plain = switchyard.Session(root / "examples/mlp", "cpu", optimize=0).plan
    assert len(fused) < len(plain)


def test_isolated_plugin_runs(root):
    session = switchyard.Session(root / "examples/mlp", "cpu", isolate="cpu", timeout=60)
    y = session.run({"x": np.load(root / "examples/mlp/inputs/x.npy")})["y"]
    np.testing.assert_allclose(y, np.load(root / "examples/mlp/expected/y.npy"), rtol=1e-4,
                               atol=1e-4)
    assert any(c["isolated"] for c in switchyard.plugins(isolate="cpu"))
