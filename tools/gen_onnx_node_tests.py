#!/usr/bin/env python3
"""Writes the ONNX backend node tests of the installed `onnx` package as test data.

The `onnx` wheel on PyPI carries the case definitions (onnx.backend.test.case.node) but
not the generated `node/` folder. This script runs the definitions and writes each case in
the layout of Debian's libonnx-testdata, which tests/onnx/onnx_node_tests.cpp reads:

    OUT/node/<case>/model.onnx
    OUT/node/<case>/test_data_set_0/input_<k>.pb, output_<k>.pb

so that a new onnx release is one `pip install -U onnx` and a rerun. Nothing is committed:
ctest generates the folder at test time into the build tree (tests/CMakeLists.txt).

Usage: gen_onnx_node_tests.py OUT [--filter REGEX]
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import sys
import warnings


def write_value(path: str, value, info, numpy_helper) -> None:
    """One input or output as the TensorProto / SequenceProto / OptionalProto file."""
    import onnx

    kind = info.type.WhichOneof("value")
    if isinstance(value, onnx.TensorProto):
        proto = value
    elif kind == "sequence_type":
        proto = numpy_helper.from_list(value, info.name)
    elif kind == "optional_type":
        proto = numpy_helper.from_optional(value, info.name)
    elif kind == "map_type":
        proto = numpy_helper.from_dict(value, info.name)
    else:
        proto = numpy_helper.from_array(value, info.name)
    with open(path, "wb") as f:
        f.write(proto.SerializeToString())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", help="folder to write node/ into")
    parser.add_argument("--filter", default="", help="only cases whose name matches REGEX")
    args = parser.parse_args()

    import onnx
    from onnx import numpy_helper
    import onnx.backend.test.case.node as node_cases

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cases = node_cases.collect_testcases()
    pattern = re.compile(args.filter) if args.filter else None
    root = os.path.join(args.out, "node")
    if os.path.isdir(root):
        shutil.rmtree(root)
    os.makedirs(root)
    written = 0
    for case in cases:
        if pattern and not pattern.search(case.name):
            continue
        folder = os.path.join(root, case.name)
        os.makedirs(folder)
        with open(os.path.join(folder, "model.onnx"), "wb") as f:
            f.write(case.model.SerializeToString())
        graph = case.model.graph
        for i, (inputs, outputs) in enumerate(case.data_sets):
            data = os.path.join(folder, f"test_data_set_{i}")
            os.makedirs(data)
            for k, value in enumerate(inputs):
                write_value(os.path.join(data, f"input_{k}.pb"), value, graph.input[k], numpy_helper)
            for k, value in enumerate(outputs):
                write_value(os.path.join(data, f"output_{k}.pb"), value, graph.output[k], numpy_helper)
        written += 1
    with open(os.path.join(args.out, "ONNX_VERSION"), "w") as f:
        f.write(f"{onnx.__version__} opset {onnx.defs.onnx_opset_version()}\n")
    print(f"{written} node cases of onnx {onnx.__version__} in {root}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
