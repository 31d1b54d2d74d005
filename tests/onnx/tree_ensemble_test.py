#!/usr/bin/env python3
"""The ai.onnx.ml tree ensembles (TreeEnsemble 5, TreeEnsembleRegressor and
TreeEnsembleClassifier 1 and 3) that the importer maps onto the catalogue's tree_ensemble
(docs/onnx-import.md): random ensembles built with onnx.helper (several trees, every
mode, set membership, NaN inputs, each aggregate and post transform, several targets),
`switchyard import` and `switchyard run` on cpu and cpu-ref against onnx.reference and,
where it implements the same semantics, ONNX Runtime; and malformed ensembles that
import must refuse with a clear message. Also LabelEncoder with numeric keys and values
(repeated keys, a NaN key, keys and values as tensors).

Where the two references differ, the case says which it follows: onnx.reference ignores
TreeEnsemble-5's post_transform (the cases apply onnx.reference's own transforms,
aionnxml/_common_classifier.py, to its scores: "reference+post"); ONNX Runtime 1.32 reads
TreeEnsemble-5's codes 1 and 2 as LOGISTIC and SOFTMAX, the schema's SOFTMAX and
LOGISTIC swapped (so only its SOFTMAX_ZERO and PROBIT are compared); onnx.reference's old
ops send NaN to the false child of BRANCH_NEQ without missing_value_tracks_true (ONNX
Runtime sends it to the true child, as x != NaN is true), and do not read
*_as_tensor attributes; ONNX Runtime ignores the regressor's post_transform and the
regressor of onnx.reference refuses it ("reference+post" again).

usage: tree_ensemble_test.py SWITCHYARD   (skips, exit 77, without onnx and onnxruntime)
"""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile

try:
    import numpy as np
    import onnx
    import onnxruntime as ort
    from onnx import TensorProto, helper, numpy_helper
    from onnx.reference import ReferenceEvaluator
except ImportError as e:
    print(f"tree_ensemble_test: skipped: {e}")
    sys.exit(77)

RNG = np.random.default_rng(11)
MODES = ["BRANCH_LEQ", "BRANCH_LT", "BRANCH_GTE", "BRANCH_GT", "BRANCH_EQ", "BRANCH_NEQ",
         "BRANCH_MEMBER"]
F = 4  # features
VALUES = [0.5, 1.0, 2.0, 2.5, 3.0, 4.0]


def random_tree(depth, n_targets, votes_per_leaf, member, rng):
    """A tree as nested dicts; interior nodes numbered later in depth-first order."""
    if depth == 0 or (depth < 3 and rng.random() < 0.25):
        k = votes_per_leaf if votes_per_leaf else 1
        return {"votes": [(int(rng.integers(n_targets)), float(np.float32(rng.normal())))
                          for _ in range(k)]}
    mode = MODES[int(rng.integers(7 if member else 6))]
    node = {"mode": mode, "feature": int(rng.integers(F)),
            "split": float(rng.choice(VALUES)), "missing": int(rng.integers(2))}
    if mode == "BRANCH_MEMBER":  # no 0.0: onnx.reference ends a set at a falsy member
        node["members"] = sorted(set(float(v) for v in rng.choice(VALUES, 2)))
    node["true"] = random_tree(depth - 1, n_targets, votes_per_leaf, member, rng)
    node["false"] = random_tree(depth - 1, n_targets, votes_per_leaf, member, rng)
    return node


def inputs(n, dtype, nan=True):
    x = RNG.choice([0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 4.0], size=(n, F))
    if nan:
        x[RNG.random((n, F)) < 0.15] = np.nan
    return x.astype(dtype)


def model(node, x, outputs, domain_version):
    graph = helper.make_graph(
        [node], node.op_type,
        [helper.make_tensor_value_info("X", helper.np_dtype_to_tensor_dtype(x.dtype),
                                       ["N", F])],
        [helper.make_tensor_value_info(n, t, None) for n, t in outputs])
    return helper.make_model(
        graph, ir_version=8,
        opset_imports=[helper.make_opsetid("", 17),
                       helper.make_opsetid("ai.onnx.ml", domain_version)])


def tree_ensemble_5(trees, x, n_targets, aggregate=1, post=0):
    """TreeEnsemble-5: interior nodes in depth-first order (true child first), as
    onnx.reference reads membership_values; leaves in order met."""
    n = {k: [] for k in ["feat", "mode", "split", "tid", "tleaf", "fid", "fleaf", "miss"]}
    leaf_t, leaf_w, members, roots = [], [], [], []

    def walk(node):
        if "votes" in node:
            leaf_t.append(node["votes"][0][0])
            leaf_w.append(node["votes"][0][1])
            return len(leaf_t) - 1, 1
        i = len(n["feat"])
        for k in n:
            n[k].append(0)
        n["feat"][i] = node["feature"]
        n["mode"][i] = MODES.index(node["mode"])
        n["split"][i] = node["split"]
        n["miss"][i] = node["missing"]
        if node["mode"] == "BRANCH_MEMBER":
            members.extend(node["members"] + [np.nan])
        n["tid"][i], n["tleaf"][i] = walk(node["true"])
        n["fid"][i], n["fleaf"][i] = walk(node["false"])
        return i, 0

    for t in trees:
        roots.append(walk(t)[0])
    dt = x.dtype
    attrs = dict(
        n_targets=n_targets, aggregate_function=aggregate, post_transform=post,
        tree_roots=roots, nodes_featureids=n["feat"],
        nodes_modes=numpy_helper.from_array(np.array(n["mode"], np.uint8), "nodes_modes"),
        nodes_splits=numpy_helper.from_array(np.array(n["split"], dt), "nodes_splits"),
        nodes_truenodeids=n["tid"], nodes_trueleafs=n["tleaf"],
        nodes_falsenodeids=n["fid"], nodes_falseleafs=n["fleaf"],
        nodes_missing_value_tracks_true=n["miss"],
        leaf_targetids=leaf_t,
        leaf_weights=numpy_helper.from_array(np.array(leaf_w, dt), "leaf_weights"))
    if members:
        attrs["membership_values"] = numpy_helper.from_array(np.array(members, dt), "mv")
    node = helper.make_node("TreeEnsemble", ["X"], ["Y"], domain="ai.onnx.ml", **attrs)
    return model(node, x, [("Y", helper.np_dtype_to_tensor_dtype(dt))], 5)


def tuples(trees, prefix, dense=False):
    """The (tree id, node id) attributes of TreeEnsembleRegressor / Classifier; node ids
    in breadth-first order, so that a tree's first node is its root but ids and order
    are not depth-first; sparse (10, 12, ...) unless `dense` (ONNX Runtime's classifier
    needs ids below the node count)."""
    a = {k: [] for k in ["nodes_treeids", "nodes_nodeids", "nodes_featureids", "nodes_modes",
                         "nodes_values", "nodes_truenodeids", "nodes_falsenodeids",
                         "nodes_missing_value_tracks_true", f"{prefix}_treeids",
                         f"{prefix}_nodeids", f"{prefix}_ids", f"{prefix}_weights"]}
    for tid, tree in zip([3, 0, 7, 5, 1, 2][:len(trees)], trees):
        queue, ids = [tree], {}
        order = []
        while queue:
            node = queue.pop(0)
            ids[id(node)] = len(order) if dense else 10 + 2 * len(order)
            order.append(node)
            if "votes" not in node:
                queue += [node["true"], node["false"]]
        for node in order:
            a["nodes_treeids"].append(tid)
            a["nodes_nodeids"].append(ids[id(node)])
            if "votes" in node:
                for k in ["nodes_featureids", "nodes_truenodeids", "nodes_falsenodeids",
                          "nodes_missing_value_tracks_true"]:
                    a[k].append(0)
                a["nodes_modes"].append("LEAF")
                a["nodes_values"].append(0.0)
                for target, weight in node["votes"]:
                    a[f"{prefix}_treeids"].append(tid)
                    a[f"{prefix}_nodeids"].append(ids[id(node)])
                    a[f"{prefix}_ids"].append(target)
                    a[f"{prefix}_weights"].append(weight)
            else:
                a["nodes_featureids"].append(node["feature"])
                a["nodes_modes"].append(node["mode"])
                a["nodes_values"].append(node["split"])
                a["nodes_truenodeids"].append(ids[id(node["true"])])
                a["nodes_falsenodeids"].append(ids[id(node["false"])])
                a["nodes_missing_value_tracks_true"].append(node["missing"])
    return a


def regressor(trees, x, n_targets, version=3, as_tensor=False, dense=False, **extra):
    a = tuples(trees, "target", dense)
    if as_tensor:
        a["nodes_values_as_tensor"] = numpy_helper.from_array(
            np.array(a.pop("nodes_values"), np.float64), "v")
        a["target_weights_as_tensor"] = numpy_helper.from_array(
            np.array(a.pop("target_weights"), np.float64), "w")
    node = helper.make_node("TreeEnsembleRegressor", ["X"], ["Y"], domain="ai.onnx.ml",
                            n_targets=n_targets, **a, **extra)
    return model(node, x, [("Y", TensorProto.FLOAT)], version)


def classifier(trees, x, labels, dense=False, **extra):
    a = tuples(trees, "class", dense)
    node = helper.make_node("TreeEnsembleClassifier", ["X"], ["Y", "Z"], domain="ai.onnx.ml",
                            classlabels_int64s=labels, **a, **extra)
    return model(node, x, [("Y", TensorProto.INT64), ("Z", TensorProto.FLOAT)], 3)


def forest(count, n_targets, votes=0, member=False, depth=3):
    return [random_tree(depth, n_targets, votes, member, RNG) for _ in range(count)]


def cases():
    """(name, model, x, references): references among 'reference' and 'ort'."""
    for dt in (np.float32, np.float64):
        tag = "f32" if dt == np.float32 else "f64"
        trees = forest(4, 3, member=True)
        for agg, agg_name in [(0, "average"), (1, "sum"), (2, "min"), (3, "max")]:
            x = inputs(40, dt)
            # Under MIN and MAX, a target no leaf of a row votes for: onnx.reference (and
            # the op) leave the dtype's largest finite value (or its negative), ONNX
            # Runtime something else; so onnx.reference only.
            engines = ["reference"] + (["ort"] if agg < 2 else [])
            yield (f"te5_{tag}_{agg_name}", tree_ensemble_5(trees, x, 3, agg), x, engines)
        for post, post_name in [(1, "softmax"), (2, "logistic"), (3, "softmax_zero")]:
            x = inputs(40, dt)
            engines = ["reference+post"] + (["ort"] if post == 3 else [])
            yield (f"te5_{tag}_{post_name}", tree_ensemble_5(trees, x, 3, 1, post), x, engines)
    one = forest(3, 1, member=True)
    x = RNG.uniform(0.05, 0.3, size=(30, F)).astype(np.float32)  # leaf sums inside (0, 1)
    probit_trees = [{"mode": "BRANCH_LEQ", "feature": 0, "split": 0.2, "missing": 1,
                     "true": {"votes": [(0, 0.25)]}, "false": {"votes": [(0, 0.125)]}}]
    yield ("te5_probit", tree_ensemble_5(probit_trees, x, 1, 1, 4), x,
           ["reference+post", "ort"])
    x = inputs(30, np.float32)
    yield "te5_one_target", tree_ensemble_5(one, x, 1), x, ["reference", "ort"]

    for agg in ["SUM", "AVERAGE", "MIN", "MAX"]:
        trees = forest(3, 2, votes=2)
        x = inputs(40, np.float32)
        yield (f"regressor_{agg.lower()}", regressor(trees, x, 2, aggregate_function=agg,
                                                     base_values=[0.5, -1.0]), x, ["reference"])
    trees = forest(5, 3, votes=1)
    x = inputs(40, np.float64, nan=False)
    yield "regressor_f64_as_tensor", regressor(trees, x, 3, as_tensor=True, dense=True), x, ["ort"]
    x = inputs(40, np.float32, nan=False)
    yield "regressor_v1", regressor(trees, x, 3, version=1, dense=True), x, ["reference", "ort"]
    x = inputs(40, np.float32, nan=False)
    yield ("regressor_logistic", regressor(forest(3, 1), x, 1, dense=True,
                                             post_transform="LOGISTIC"), x,
           ["reference+post"])

    multi = forest(4, 3, votes=2)
    for post in ["NONE", "SOFTMAX", "LOGISTIC", "SOFTMAX_ZERO"]:
        x = inputs(40, np.float32)
        yield (f"classifier_{post.lower()}",
               classifier(multi, x, [4, 7, 9], post_transform=post, base_values=[0.1, 0, -0.1]),
               x, ["reference"])
    binary = [random_tree(3, 1, 1, False, RNG) for _ in range(3)]
    for post in ["NONE", "LOGISTIC"]:
        x = inputs(40, np.float32)
        yield (f"classifier_binary_{post.lower()}",
               classifier(binary, x, [0, 1], post_transform=post), x, ["reference"])
        x = inputs(40, np.float32)
        yield (f"classifier_one_label_{post.lower()}",
               classifier(binary, x, [1], post_transform=post, base_values=[0.25]), x,
               ["reference"])
    x = inputs(40, np.float32, nan=False)
    yield ("classifier_ort", classifier(multi, x, [4, 7, 9], dense=True), x,
           ["reference", "ort"])


def label_encoders():
    """LabelEncoder (ai.onnx.ml 2 and 4) with numeric keys and values."""
    x = inputs(30, np.float32)
    node = helper.make_node("LabelEncoder", ["X"], ["Y"], domain="ai.onnx.ml",
                            keys_floats=[0.5, 1.0, 2.5, 1.0], values_int64s=[10, 11, 12, 13],
                            default_int64=-7)
    # A repeated key: the last wins (the schema, onnx.reference; ONNX Runtime keeps the first).
    yield ("label_encoder_floats_to_ints", model(node, x, [("Y", TensorProto.INT64)], 2), x,
           ["reference"])
    # "Float keys with value 'NaN' match any input 'NaN' value": neither onnx.reference nor
    # ONNX Runtime does, so the schema's text computed here ("spec").
    node = helper.make_node("LabelEncoder", ["X"], ["Y"], domain="ai.onnx.ml",
                            keys_floats=[1.5, float("nan")], values_floats=[3.0, 4.0])
    yield ("label_encoder_nan_key", model(node, x, [("Y", TensorProto.FLOAT)], 2), x, ["spec"])
    xi = RNG.integers(0, 6, size=(30, F)).astype(np.int64)
    node = helper.make_node("LabelEncoder", ["X"], ["Y"], domain="ai.onnx.ml",
                            keys_int64s=[1, 3, 5], values_floats=[0.25, -1.5, 8.0],
                            default_float=2.0)
    yield ("label_encoder_ints_to_floats", model(node, xi, [("Y", TensorProto.FLOAT)], 2), xi,
           ["reference", "ort"])
    node = helper.make_node(
        "LabelEncoder", ["X"], ["Y"], domain="ai.onnx.ml",
        keys_tensor=helper.make_tensor("k", TensorProto.INT64, [4], [0, 2, 4, 2]),
        values_tensor=helper.make_tensor("v", TensorProto.INT32, [4], [5, 6, 7, 8]),
        default_tensor=helper.make_tensor("d", TensorProto.INT32, [1], [-3]))
    # (ONNX Runtime 1.32 has no LabelEncoder-4 kernel.)
    yield ("label_encoder_tensors", model(node, xi, [("Y", TensorProto.INT32)], 4), xi,
           ["reference"])


def refusals():
    """(name, model, text the import's error must contain)."""
    x = inputs(2, np.float32)
    base = [{"mode": "BRANCH_LEQ", "feature": 1, "split": 1.0, "missing": 0,
             "true": {"votes": [(0, 1.0)]},
             "false": {"mode": "BRANCH_GT", "feature": 2, "split": 2.0, "missing": 0,
                       "true": {"votes": [(0, 2.0)]}, "false": {"votes": [(0, 3.0)]}}}]

    def edit(name, **changes):
        m = tree_ensemble_5(base, x, 1)
        attrs = {a.name: a for a in m.graph.node[0].attribute}
        for k, v in changes.items():
            del attrs[k].ints[:]
            attrs[k].ints.extend(v)
        return name, m

    yield *edit("child_out_of_range", nodes_falsenodeids=[1, 9]), "outside the 3 leaves"
    yield *edit("cycle", nodes_falsenodeids=[1, 0], nodes_falseleafs=[0, 0]), "cycle"
    yield *edit("feature_out_of_range", nodes_featureids=[1, 4]), "input x has 4 features"
    yield *edit("target_out_of_range", leaf_targetids=[0, 1, 0]), "leaf_targetids"
    c = classifier(base, x, [1, 2])
    attrs = [a for a in c.graph.node[0].attribute if a.name != "classlabels_int64s"]
    attrs.append(helper.make_attribute("classlabels_strings", ["a", "b"]))
    del c.graph.node[0].attribute[:]
    c.graph.node[0].attribute.extend(attrs)
    c.graph.output[0].type.tensor_type.elem_type = TensorProto.STRING
    yield "classifier_string_labels", c, "classlabels_strings"
    r = regressor(base, x, 1)
    for a in r.graph.node[0].attribute:
        if a.name == "nodes_truenodeids":
            a.ints[0] = 99
    yield "regressor_missing_child", r, "child 99 is not a node of tree 3"


def expected(engine, m, x):
    if engine == "spec":  # a LabelEncoder on float keys as its schema says (NaN matches NaN)
        a = {k.name: helper.get_attribute_value(k) for k in m.graph.node[0].attribute}
        table = dict(zip(a["keys_floats"], a["values_floats"]))
        nan_value = next((v for k, v in table.items() if np.isnan(k)), None)
        default = a.get("default_float", -0.0)
        y = [nan_value if np.isnan(v) and nan_value is not None else
             table.get(float(v), default) for v in x.ravel()]
        return [np.array(y, np.float32).reshape(x.shape)]
    if engine == "reference":
        return ReferenceEvaluator(m).run(None, {"X": x})
    if engine == "reference+post":
        from onnx.reference.ops.aionnxml import _common_classifier as post
        plain = onnx.ModelProto()
        plain.CopyFrom(m)
        attr = next(a for a in plain.graph.node[0].attribute if a.name == "post_transform")
        names = ["NONE", "SOFTMAX", "LOGISTIC", "SOFTMAX_ZERO", "PROBIT"]
        code = names.index(attr.s.decode()) if attr.s else attr.i
        attr.i, attr.s = 0, b"NONE" if attr.s else b""
        scores = ReferenceEvaluator(plain).run(None, {"X": x})[0].astype(np.float64)
        f = [None, post.softmax, post.logistic, post.softmax_zero, post.probit][code]
        return [f(scores).astype(x.dtype)]
    session = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"])
    return session.run(None, {"X": x})


def main() -> int:
    sy = os.path.abspath(sys.argv[1])
    passed = failed = 0
    with tempfile.TemporaryDirectory() as work:
        for name, m, x, engines in list(cases()) + list(label_encoders()):
            folder = os.path.join(work, name)
            os.makedirs(folder)
            path = os.path.join(folder, "model.onnx")
            onnx.save(m, path)
            np.save(os.path.join(folder, "X.npy"), x)
            stem = os.path.join(folder, "sy", "model")
            r = subprocess.run([sy, "import", path, "-o", stem], capture_output=True, text=True)
            ok = r.returncode == 0
            if not ok:
                print(f"FAIL {name}: import: {(r.stdout + r.stderr).strip()}")
            names = [o.name for o in m.graph.output]
            for engine in engines if ok else []:
                want_dir = os.path.join(folder, engine)
                os.makedirs(want_dir)
                for k, v in zip(names, expected(engine, m, x)):
                    np.save(os.path.join(want_dir, k + ".npy"), np.asarray(v))
                for device in ["cpu", "cpu-ref"]:
                    r = subprocess.run([sy, "run", stem, "--device", device, "--input",
                                        f"X={os.path.join(folder, 'X.npy')}", "--compare",
                                        want_dir, "--rtol", "1e-5", "--atol", "1e-5"],
                                       capture_output=True, text=True, cwd=folder)
                    if r.returncode != 0:
                        print(f"FAIL {name} [{device}] vs {engine}: "
                              f"{(r.stdout + r.stderr).strip()[-2000:]}")
                        ok = False
            passed += ok
            failed += not ok
            if ok:
                print(f"ok {name}: {', '.join(names)} match {' and '.join(engines)} on cpu, cpu-ref")
        for name, m, reason in refusals():
            path = os.path.join(work, name + ".onnx")
            onnx.save(m, path)
            r = subprocess.run([sy, "import", path, "-o", os.path.join(work, name)],
                               capture_output=True, text=True)
            crashed = r.returncode < 0 or r.returncode > 1
            ok = r.returncode == 1 and reason in r.stderr
            passed += ok
            failed += not ok
            print(("ok" if ok else "FAIL") + f" {name}: refused" +
                  (f" ({reason})" if ok else
                   f"; {'crashed, ' if crashed else ''}expected '{reason}', exit "
                   f"{r.returncode}: {r.stderr.strip()}"))
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
