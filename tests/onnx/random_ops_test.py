#!/usr/bin/env python3
"""ONNX's random ops imported and run (RandomUniformLike, RandomNormal, Bernoulli,
Multinomial, Dropout in training mode) on cpu, cpu-ref and opencl:0 (where the build has it):

- values: the catalogue's stream (docs/ops.md, "Sampling": element i of seed s is
  splitmix64's output i + 1 from s) re-implemented here in NumPy, independently of the
  C++ (uniform exactly, normal within 1e-12 of Box-Muller in float64);
- the same values on every device and on a second run;
- distributions: Bernoulli's frequency against p, Multinomial's class frequencies against
  softmax(logits), training-mode Dropout's kept fraction, within 5 standard errors, and
  Dropout's y = mask * x / (1 - ratio).

usage: random_ops_test.py SWITCHYARD   (skips, exit 77, without numpy and onnx)
"""
from __future__ import annotations

import os
import struct
import subprocess
import sys
import tempfile

try:
    import numpy as np
    import onnx
    from onnx import TensorProto, helper
except ImportError as e:
    print(f"random_ops_test: skipped: {e}")
    sys.exit(77)

F = TensorProto.FLOAT
D = TensorProto.DOUBLE
M64 = np.uint64(0xFFFFFFFFFFFFFFFF)


def seed_of(onnx_seed: float) -> np.uint64:
    """ONNX's float seed as the catalogue's: the float's 32 bits."""
    return np.uint64(struct.unpack("<I", struct.pack("<f", onnx_seed))[0])


def stream(seed: np.uint64, n: int) -> np.ndarray:
    """Numbers 0 .. n-1 of seed's stream in [0, 1) (splitmix64, 53 bits each)."""
    with np.errstate(over="ignore"):
        z = seed + (np.arange(n, dtype=np.uint64) + np.uint64(1)) * np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        z = z ^ (z >> np.uint64(31))
    return (z >> np.uint64(11)).astype(np.float64) * 2.0**-53


def model(nodes, inputs, outputs, opset=22):
    graph = helper.make_graph(nodes, "random", inputs, outputs)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def info(name, elem, dims):
    return helper.make_tensor_value_info(name, elem, dims)


class Runner:
    def __init__(self, sy: str, work: str):
        self.sy, self.work = sy, work
        r = subprocess.run([sy, "devices"], capture_output=True, text=True)
        self.devices = ["cpu", "cpu-ref"] + (["opencl:0"] if "opencl:0" in r.stdout else [])

    def run(self, name, m, feeds, device):
        folder = os.path.join(self.work, name)
        os.makedirs(folder, exist_ok=True)
        path = os.path.join(folder, "model.onnx")
        onnx.save(m, path)
        stem = os.path.join(folder, "sy")
        if not os.path.exists(stem + ".json"):
            subprocess.run([self.sy, "import", path, "-o", stem], check=True, capture_output=True)
        args = []
        for k, v in feeds.items():
            np.save(os.path.join(folder, k + ".npy"), v)
            args += ["--input", f"{k}={os.path.join(folder, k + '.npy')}"]
        out = os.path.join(folder, "out-" + device.replace(":", ""))
        r = subprocess.run([self.sy, "run", stem + ".json", "--device", device, *args,
                            "--out", out], capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError(f"{name} on {device}: {r.stdout}{r.stderr}")
        return {o.name: np.load(os.path.join(out, o.name + ".npy")) for o in m.graph.output}

    def everywhere(self, name, m, feeds):
        """The outputs on every device (twice on cpu), checked to agree."""
        results = [self.run(name, m, feeds, d) for d in self.devices]
        results.append(self.run(name, m, feeds, "cpu"))
        first = results[0]
        for d, r in zip(self.devices[1:] + ["cpu (second run)"], results[1:]):
            for k in first:
                if first[k].dtype.kind == "f":
                    ok = np.allclose(r[k], first[k], rtol=1e-6, atol=1e-6)
                else:
                    ok = np.array_equal(r[k], first[k])
                if not ok:
                    raise AssertionError(f"{name}: {k} on {d} differs from cpu")
        return first


def check_uniform(rt: Runner):
    x = np.zeros((50, 40), np.float32)
    m = model([helper.make_node("RandomUniformLike", ["x"], ["y"], low=-1.5, high=2.5,
                                seed=3.0, dtype=D)],
              [info("x", F, [50, 40])], [info("y", D, [50, 40])])
    y = rt.everywhere("uniform_like", m, {"x": x})["y"]
    want = -1.5 + 4.0 * stream(seed_of(3.0), x.size).reshape(x.shape)
    assert y.dtype == np.float64 and np.array_equal(y, want), "RandomUniformLike values"


def check_normal(rt: Runner):
    m = model([helper.make_node("RandomNormal", [], ["y"], shape=[300, 7], mean=2.0, scale=0.5,
                                seed=11.0)], [], [info("y", F, [300, 7])])
    y = rt.everywhere("normal", m, {})["y"]
    u = stream(seed_of(11.0), 2 * 2100)
    z = np.sqrt(-2.0 * np.log(1.0 - u[0::2])) * np.cos(2.0 * np.pi * u[1::2])
    want = (2.0 + 0.5 * z).astype(np.float32).reshape(300, 7)
    assert y.dtype == np.float32 and np.allclose(y, want, rtol=1e-6, atol=1e-6), "RandomNormal"


def check_bernoulli(rt: Runner):
    p = np.full((200, 500), 0.3, np.float32)
    p[:, :100] = 0.0
    p[:, 100:200] = 1.0
    m = model([helper.make_node("Bernoulli", ["p"], ["y"], seed=5.0)],
              [info("p", F, [200, 500])], [info("y", F, [200, 500])])
    y = rt.everywhere("bernoulli", m, {"p": p})["y"]
    assert set(np.unique(y)) <= {0.0, 1.0}
    assert not y[:, :100].any() and y[:, 100:200].all(), "p = 0 and p = 1 are certain"
    n = y[:, 200:].size
    freq = y[:, 200:].mean()
    assert abs(freq - 0.3) < 5 * np.sqrt(0.3 * 0.7 / n), f"Bernoulli(0.3) drew {freq}"


def check_multinomial(rt: Runner):
    logits = np.log(np.array([[0.1, 0.2, 0.3, 0.4], [0.7, 0.1, 0.1, 0.1]], np.float32))
    samples = 20000
    m = model([helper.make_node("Multinomial", ["x"], ["y"], sample_size=samples, seed=9.0,
                                dtype=TensorProto.INT64)],
              [info("x", F, [2, 4])], [info("y", TensorProto.INT64, [2, samples])])
    y = rt.everywhere("multinomial", m, {"x": logits})["y"]
    assert y.shape == (2, samples) and y.min() >= 0 and y.max() <= 3
    for row, probs in zip(y, np.exp(logits)):
        freq = np.bincount(row, minlength=4) / samples
        err = 5 * np.sqrt(probs * (1 - probs) / samples)
        assert np.all(np.abs(freq - probs) < err), f"Multinomial frequencies {freq} vs {probs}"


def check_training_dropout(rt: Runner):
    x = np.random.default_rng(3).standard_normal((100, 300)).astype(np.float32)
    ratio = helper.make_tensor("ratio", F, [], [0.25])
    mode = helper.make_tensor("mode", TensorProto.BOOL, [], [True])
    node = helper.make_node("Dropout", ["x", "ratio", "mode"], ["y", "mask"], seed=4)
    graph = helper.make_graph([node], "dropout", [info("x", F, [100, 300])],
                              [info("y", F, [100, 300]), info("mask", TensorProto.BOOL, [100, 300])],
                              [ratio, mode])
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 22)])
    out = rt.everywhere("training_dropout", m, {"x": x})
    y, mask = out["y"], out["mask"]
    assert mask.dtype == np.bool_
    assert np.allclose(y, np.where(mask, x / np.float32(0.75), 0), rtol=1e-6), "y = mask * x / 0.75"
    freq = mask.mean()
    assert abs(freq - 0.75) < 5 * np.sqrt(0.75 * 0.25 / mask.size), f"kept {freq}, not 0.75"


def main() -> int:
    sy = os.path.abspath(sys.argv[1])
    failed = 0
    with tempfile.TemporaryDirectory() as work:
        rt = Runner(sy, work)
        for check in [check_uniform, check_normal, check_bernoulli, check_multinomial,
                      check_training_dropout]:
            try:
                check(rt)
                print(f"ok {check.__name__} on {', '.join(rt.devices)}")
            except (AssertionError, RuntimeError) as e:
                failed += 1
                print(f"FAIL {check.__name__}: {e}")
    print(f"{5 - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
