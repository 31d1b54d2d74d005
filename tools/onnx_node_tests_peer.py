#!/usr/bin/env python3
"""Runs ONNX backend node test cases on ONNX Runtime's CPU provider: the peer figure for
docs/onnx-conformance.md, measured on the same files as onnx_node_tests.

A case passes when ONNX Runtime loads the model and every output matches the expected one
with onnx_node_tests' rule (dtype and shape exactly; floats |got - want| <= atol + rtol *
|want| with rtol 1e-3, atol 1e-7, NaN matching NaN; other types exactly).

Usage: onnx_node_tests_peer.py DATA_DIR/node [--filter REGEX] [--list-failures]
(DATA_DIR from tools/gen_onnx_node_tests.py; needs onnx and onnxruntime.)
"""
from __future__ import annotations

import argparse
import os
import re
import sys


def load_value(path: str, numpy_helper, onnx):
    with open(path, "rb") as f:
        data = f.read()
    t = onnx.TensorProto()
    t.ParseFromString(data)
    if t.data_type != 0 or t.dims:
        return numpy_helper.to_array(t)
    seq = onnx.SequenceProto()
    seq.ParseFromString(data)
    return numpy_helper.to_list(seq)


def matches(got, want, np) -> bool:
    if isinstance(want, list):
        return isinstance(got, list) and len(got) == len(want) and all(
            matches(g, w, np) for g, w in zip(got, want))
    got = np.asarray(got)
    if got.dtype != want.dtype or got.shape != want.shape:
        return False
    if want.dtype.kind == "f":
        g, w = got.astype(np.float64), want.astype(np.float64)
        nan = np.isnan(w)
        if not np.array_equal(nan, np.isnan(g)):
            return False
        ok = np.abs(g - w) <= 1e-7 + 1e-3 * np.abs(w)
        ok |= nan | (g == w)
        return bool(ok.all())
    return bool(np.array_equal(got, want))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("node_dir")
    parser.add_argument("--filter", default="")
    parser.add_argument("--list-failures", action="store_true")
    args = parser.parse_args()
    import numpy as np
    import onnx
    import onnxruntime as ort
    from onnx import numpy_helper

    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.log_severity_level = 4
    pattern = re.compile(args.filter) if args.filter else None
    passed, failed = 0, []
    for case in sorted(os.listdir(args.node_dir)):
        if pattern and not pattern.search(case):
            continue
        folder = os.path.join(args.node_dir, case)
        try:
            session = ort.InferenceSession(os.path.join(folder, "model.onnx"), options,
                                           providers=["CPUExecutionProvider"])
            ok = True
            for data in sorted(d for d in os.listdir(folder) if d.startswith("test_data_set")):
                d = os.path.join(folder, data)
                n_in = len([f for f in os.listdir(d) if f.startswith("input_")])
                n_out = len([f for f in os.listdir(d) if f.startswith("output_")])
                feeds = {session.get_inputs()[k].name:
                         load_value(os.path.join(d, f"input_{k}.pb"), numpy_helper, onnx)
                         for k in range(n_in)}
                got = session.run(None, feeds)
                for k in range(n_out):
                    want = load_value(os.path.join(d, f"output_{k}.pb"), numpy_helper, onnx)
                    ok = ok and matches(got[k], want, np)
            if ok:
                passed += 1
            else:
                failed.append((case, "wrong result"))
        except Exception as e:  # noqa: BLE001 - any refusal or error is a failure here
            failed.append((case, str(e).splitlines()[0][:160] if str(e) else type(e).__name__))
    if args.list_failures:
        for case, why in failed:
            print(f"{case}: {why}")
    print(f"onnxruntime {ort.__version__}: {passed} passed, {len(failed)} failed "
          f"of {passed + len(failed)} cases in {args.node_dir}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
