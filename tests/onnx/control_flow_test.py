#!/usr/bin/env python3
"""ONNX If, Loop and Scan lowered at import (tools/onnx_import/map_control_flow.cpp), each
model imported by `switchyard import` and run on cpu against ONNX's reference evaluator
(onnx.reference; NumPy for Scan, which it runs only forwards along axis 0): If with a condition known at import (the branch taken is imported) and
one known only at run time (both branches, `where`), bodies reading outer-scope values,
a Loop with loop-carried values and scan outputs, a Loop holding an If, Scan in both
directions with non-zero axes, Scan-8 with sequence_lens (NumPy, as ONNX Runtime runs
it: each row scans its own length, zeros after); and the refusals: a while loop whose condition the data
decides, an If whose branches differ in shape at run time.

usage: control_flow_test.py SWITCHYARD   (skips, exit 77, without numpy and onnx)
"""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile

try:
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    from onnx.reference import ReferenceEvaluator
except ImportError as e:
    print(f"control_flow_test: skipped: {e}")
    sys.exit(77)

F = TensorProto.FLOAT
I64 = TensorProto.INT64
B = TensorProto.BOOL
RNG = np.random.default_rng(5)


def info(name, dtype, dims):
    return helper.make_tensor_value_info(name, dtype, dims)


def const(name, value):
    return helper.make_node("Constant", [], [name], value=numpy_helper.from_array(value, name))


def model(nodes, inputs, outputs, initializers=()):
    graph = helper.make_graph(nodes, "g", inputs, outputs, list(initializers))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def branch(name, scale):
    """A body reading outer-scope x: y = x * scale + 1."""
    return helper.make_graph(
        [const(name + "_s", np.array(scale, np.float32)), const(name + "_1", np.array(1, np.float32)),
         helper.make_node("Mul", ["x", name + "_s"], [name + "_m"]),
         helper.make_node("Add", [name + "_m", name + "_1"], [name + "_y"])],
        name, [], [info(name + "_y", F, [2, 3])])


def if_model(cond_from_data):
    nodes = []
    if cond_from_data:  # cond = sum(x) > 0: known only at run time
        nodes += [helper.make_node("ReduceSum", ["x"], ["s"], keepdims=0),
                  const("zero", np.array(0, np.float32)),
                  helper.make_node("Greater", ["s", "zero"], ["c"])]
    else:  # cond from the input's shape: known at import
        nodes += [helper.make_node("Shape", ["x"], ["shape"]),
                  helper.make_node("ReduceProd", ["shape"], ["n"], keepdims=0),
                  const("six", np.array(6, np.int64)),
                  helper.make_node("Equal", ["n", "six"], ["c"])]
    nodes.append(helper.make_node("If", ["c"], ["y"], then_branch=branch("t", 2.0),
                                  else_branch=branch("e", -3.0)))
    return model(nodes, [info("x", F, [2, 3])], [info("y", F, [2, 3])])


def loop_model():
    """y_final = x + sum(i * w) over 4 iterations; scan output: each step's y (stacked);
    an If inside the body on the iteration number (known at import once unrolled)."""
    inner_then = helper.make_graph([helper.make_node("Identity", ["y_in"], ["pick_t"])], "it",
                                   [], [info("pick_t", F, [3])])
    inner_else = helper.make_graph([helper.make_node("Neg", ["y_in"], ["pick_e"])], "ie",
                                   [], [info("pick_e", F, [3])])
    body = helper.make_graph(
        [helper.make_node("Cast", ["i"], ["fi"], to=F),
         helper.make_node("Mul", ["fi", "w"], ["step"]),
         helper.make_node("Add", ["y_in", "step"], ["y_out"]),
         helper.make_node("Identity", ["cond_in"], ["cond_out"]),
         const("two", np.array(2, np.int64)),
         helper.make_node("Less", ["i", "two"], ["early"]),
         helper.make_node("If", ["early"], ["picked"], then_branch=inner_then,
                          else_branch=inner_else)],
        "body", [info("i", I64, []), info("cond_in", B, []), info("y_in", F, [3])],
        [info("cond_out", B, []), info("y_out", F, [3]), info("picked", F, [3])])
    nodes = [const("M", np.array(4, np.int64)), const("cond", np.array(True)),
             helper.make_node("Loop", ["M", "cond", "x"], ["y", "steps"], body=body)]
    return model(nodes, [info("x", F, [3]), info("w", F, [3])],
                 [info("y", F, [3]), info("steps", F, [4, 3])])


def scan_model(backwards):
    """A running sum over axis 1 of x [2, 5] (read backwards or not), each partial sum
    times a row of z [5, 2] (read forwards along axis 0), stacked on axis 1."""
    body = helper.make_graph(
        [helper.make_node("Add", ["acc_in", "xs"], ["acc_out"]),
         helper.make_node("Mul", ["acc_out", "zs"], ["out"])],
        "body", [info("acc_in", F, [2]), info("xs", F, [2]), info("zs", F, [2])],
        [info("acc_out", F, [2]), info("out", F, [2])])
    nodes = [helper.make_node("Scan", ["init", "x", "z"], ["acc", "outs"], body=body,
                              num_scan_inputs=2, scan_input_axes=[1, 0],
                              scan_input_directions=[1 if backwards else 0, 0],
                              scan_output_axes=[1])]
    return model(nodes, [info("init", F, [2]), info("x", F, [2, 5]), info("z", F, [5, 2])],
                 [info("acc", F, [2]), info("outs", F, [2, 5])])


def scan8_model():
    """Scan-8 over a batch of 2 with sequence_lens [3, 5] (an initializer), read backwards:
    each row's running sum over its first len elements, the squares as scan outputs."""
    body = helper.make_graph(
        [helper.make_node("Add", ["acc_in", "xs"], ["acc_out"]),
         helper.make_node("Mul", ["acc_out", "acc_out"], ["out"])],
        "body", [info("acc_in", F, [2]), info("xs", F, [2])],
        [info("acc_out", F, [2]), info("out", F, [2])])
    node = helper.make_node("Scan", ["lens", "init", "x"], ["acc", "outs"], body=body,
                            num_scan_inputs=1, directions=[1])
    graph = helper.make_graph(
        [node], "g", [info("init", F, [2, 2]), info("x", F, [2, 5, 2])],
        [info("acc", F, [2, 2]), info("outs", F, [2, 5, 2])],
        [numpy_helper.from_array(np.array([3, 5], np.int64), "lens")])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 8)])


def scan8_reference(feeds):
    """Scan-8 as ONNX Runtime runs it: row b scans its first lens[b] elements (backwards
    here), scan outputs in iteration order, zeros after them."""
    acc = feeds["init"].astype(np.float64).copy()
    outs = np.zeros((2, 5, 2))
    for b, length in enumerate([3, 5]):
        for k, t in enumerate(reversed(range(length))):
            acc[b] += feeds["x"][b, t]
            outs[b, k] = acc[b] ** 2
    return [acc.astype(np.float32), outs.astype(np.float32)]


def while_model():
    body = helper.make_graph(
        [helper.make_node("Add", ["v_in", "one"], ["v_out"]),
         helper.make_node("ReduceSum", ["v_out"], ["s"], keepdims=0),
         helper.make_node("Less", ["s", "limit"], ["cond_out"])],
        "body", [info("i", I64, []), info("cond_in", B, []), info("v_in", F, [2])],
        [info("cond_out", B, []), info("v_out", F, [2])])
    nodes = [const("one", np.array(1, np.float32)), const("limit", np.array(10, np.float32)),
             const("cond", np.array(True)),
             helper.make_node("Loop", ["", "cond", "v"], ["r"], body=body)]
    return model(nodes, [info("v", F, [2])], [info("r", F, [2])])


def shapes_differ_model():
    t = helper.make_graph([helper.make_node("Identity", ["x"], ["ty"])], "t", [],
                          [info("ty", F, None)])
    e = helper.make_graph([helper.make_node("ReduceSum", ["x"], ["ey"], keepdims=0)], "e", [],
                          [info("ey", F, None)])
    nodes = [helper.make_node("ReduceSum", ["x"], ["s"], keepdims=0),
             const("zero", np.array(0, np.float32)),
             helper.make_node("Greater", ["s", "zero"], ["c"]),
             helper.make_node("If", ["c"], ["y"], then_branch=t, else_branch=e)]
    return model(nodes, [info("x", F, [2, 3])], [info("y", F, None)])


RUNS = [
    ("if_condition_at_import", if_model(False), [{"x": (2, 3)}]),
    ("if_condition_at_run_time", if_model(True), [{"x": (2, 3)}, {"x": (2, 3)}, {"x": (2, 3)}]),
    ("loop_unrolled_with_scan_and_if", loop_model(), [{"x": (3,), "w": (3,)}]),
    ("scan_axis_1", scan_model(False), [{"init": (2,), "x": (2, 5), "z": (5, 2)}]),
    ("scan_backwards", scan_model(True), [{"init": (2,), "x": (2, 5), "z": (5, 2)}]),
    ("scan8_sequence_lens", scan8_model(), [{"init": (2, 2), "x": (2, 5, 2)}]),
]


def scan_reference(feeds, backwards):
    """onnx.reference scans axis 0 forwards only: the same loop in NumPy."""
    acc = feeds["init"].astype(np.float64)
    outs = []
    for t in range(5):
        acc = acc + feeds["x"][:, 4 - t if backwards else t]
        outs.append(acc * feeds["z"][t])
    return [acc.astype(np.float32), np.stack(outs, axis=1).astype(np.float32)]
REFUSED = [
    ("while_loop", while_model(), "computes the loop condition from run-time data"),
    ("if_branches_differ", shapes_differ_model(), "in then_branch but"),
]


def main() -> int:
    sy = os.path.abspath(sys.argv[1])
    passed = failed = 0
    with tempfile.TemporaryDirectory() as work:
        for name, m, feed_list in RUNS:
            folder = os.path.join(work, name)
            os.makedirs(folder)
            path = os.path.join(folder, "model.onnx")
            onnx.save(m, path)
            stem = os.path.join(folder, "sy")
            steps = [[sy, "import", path, "-o", stem]]
            reference = None if name.startswith("scan") else ReferenceEvaluator(m)
            for n, shapes in enumerate(feed_list):
                run = os.path.join(folder, str(n))
                os.makedirs(os.path.join(run, "want"))
                # Signs vary between runs so that a run-time condition takes both ways.
                feeds = {k: (RNG.standard_normal(s) + (2 if n % 2 == 0 else -2)).astype(np.float32)
                         for k, s in shapes.items()}
                args = []
                for k, v in feeds.items():
                    np.save(os.path.join(run, k + ".npy"), v)
                    args += ["--input", f"{k}={os.path.join(run, k + '.npy')}"]
                want = (reference.run(None, feeds) if reference is not None
                        else scan8_reference(feeds) if name.startswith("scan8")
                        else scan_reference(feeds, name == "scan_backwards"))
                for out, v in zip([o.name for o in m.graph.output], want):
                    np.save(os.path.join(run, "want", out + ".npy"), v)
                steps.append([sy, "run", stem + ".json", "--device", "cpu", *args, "--compare",
                              os.path.join(run, "want")])
            ok = True
            for step in steps:
                r = subprocess.run(step, capture_output=True, text=True, cwd=folder)
                if r.returncode != 0:
                    print(f"FAIL {name}: {' '.join(step[:2])}: {(r.stdout + r.stderr).strip()}")
                    ok = False
                    break
            passed += ok
            failed += not ok
            if ok:
                print(f"ok {name}: matches onnx.reference ({len(feed_list)} runs)")
        for name, m, reason in REFUSED:
            path = os.path.join(work, name + ".onnx")
            onnx.save(m, path)
            r = subprocess.run([sy, "import", path, "-o", os.path.join(work, name)],
                               capture_output=True, text=True)
            out = r.stdout + r.stderr
            ok = r.returncode != 0 and reason in out
            passed += ok
            failed += not ok
            print(f"{'ok' if ok else 'FAIL'} {name}: refused" + ("" if ok else f": {out.strip()}"))
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
