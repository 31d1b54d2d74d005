#!/usr/bin/env python3
"""Generates tools/onnx_import/onnx_schema_table.cpp: the importer's opset knowledge.

Every operator schema of every version, from the ONNX specification itself (the `onnx`
package's `onnx.defs.get_all_schemas_with_history()`: the default domain, ai.onnx.ml and
the preview domains) and from ONNX Runtime's registry for the com.microsoft domain
(`onnxruntime.capi.onnxruntime_pybind11_state.get_all_operator_schema()`: the contrib ops
that ONNX Runtime's own tools write). For each (domain, op, since_version):

  - the formal inputs and outputs: name, single / optional / variadic, allowed types
    (a bit per ONNX element type; sequences, optionals and maps as flags);
  - the attributes: name, type, required, and the default as a serialized AttributeProto
    (what a function body's attribute reference falls back to);
  - the function bodies ONNX defines for the op (serialized FunctionProtos, one per opset
    version the body was written for), which the importer expands for ops that no mapping
    covers. Bodies that depend on the node's input types (context-dependent functions)
    are not tabled: the importer says so.

A new onnx or onnxruntime release is one rerun:

    python3 -m venv /tmp/v && /tmp/v/bin/pip install onnx onnxruntime
    /tmp/v/bin/python tools/gen_onnx_schemas.py     # rewrites the .cpp beside this file

tests/unit/onnx_import/onnx_schemas_test.cpp holds the table against a listing the onnx
package writes (tests/unit/onnx_import/CMakeLists.txt, where the test venv has onnx).
"""
from __future__ import annotations

import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_OUT = os.path.join(HERE, "onnx_import", "onnx_schema_table.cpp")

# Contrib domains taken from ONNX Runtime's registry. Internal layout domains
# (com.ms.internal.nhwc, com.microsoft.nchwc) are ONNX Runtime's own rewrites, never in files.
ORT_DOMAINS = {"com.microsoft"}
# Ops ONNX Runtime registers in the default domain that ONNX itself lacks (at those
# versions) and that ONNX Runtime's own tools write: its transformers optimizer fuses
# LayerNormalization at any opset (ONNX has it from 17 on) and its model builder writes
# SimplifiedLayerNormalization.
ORT_DEFAULT_DOMAIN_EXTRAS = {"LayerNormalization", "SimplifiedLayerNormalization"}

OPTION = {"Single": "kSingle", "Optional": "kOptional", "Variadic": "kVariadic"}
ATTR_TYPE = {
    "FLOAT": "kFloat", "INT": "kInt", "STRING": "kString", "TENSOR": "kTensor",
    "GRAPH": "kGraph", "FLOATS": "kFloats", "INTS": "kInts", "STRINGS": "kStrings",
    "TENSORS": "kTensors", "GRAPHS": "kGraphs", "SPARSE_TENSOR": "kSparseTensor",
    "SPARSE_TENSORS": "kSparseTensors", "TYPE_PROTO": "kTypeProto",
    "TYPE_PROTOS": "kTypeProtos",
}
# Flags above the element-type bits (onnx_schemas.h says the same).
SEQUENCE_BIT, OPTIONAL_BIT, MAP_BIT, OTHER_BIT = 60, 61, 62, 63


def type_mask(type_strs: list[str], elem_types: dict[str, int]) -> int:
    mask = 0
    for t in type_strs:
        if t.startswith("seq("):
            mask |= 1 << SEQUENCE_BIT
        elif t.startswith("optional("):
            mask |= 1 << OPTIONAL_BIT
        elif t.startswith("map("):
            mask |= 1 << MAP_BIT
        elif t.startswith("tensor(") and t[7:-1] in elem_types:
            mask |= 1 << elem_types[t[7:-1]]
        elif t.startswith("sparse_tensor("):
            mask |= 1 << OTHER_BIT
        else:
            mask |= 1 << OTHER_BIT
    return mask


def c_bytes(data: bytes) -> str:
    """A C++ string literal holding exactly `data` (octal escapes, split every 32 bytes)."""
    if not data:
        return '""'
    parts = []
    for i in range(0, len(data), 32):
        parts.append('"' + "".join(f"\\{b:03o}" for b in data[i:i + 32]) + '"')
    return "\n      ".join(parts)


def formal_type_strs(formal, constraints: dict[str, list[str]]) -> list[str]:
    # onnx's FormalParameter says type_str; ONNX Runtime's binding says typeStr.
    ts = formal.type_str if hasattr(formal, "type_str") else formal.typeStr
    return constraints.get(ts, [ts])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-o", "--output", default=DEFAULT_OUT)
    parser.add_argument("--no-ort", action="store_true", help="leave out com.microsoft")
    parser.add_argument("--check", action="store_true",
                        help="compare the checked-in table with what this Python's onnx and "
                             "onnxruntime say, writing nothing (exit 1 when they differ, 77 "
                             "when this Python has other releases than the table's)")
    args = parser.parse_args()

    import onnx
    from onnx import defs

    elem_types = {}
    for name, code in onnx.TensorProto.DataType.items():
        key = {"FLOAT": "float", "DOUBLE": "double", "FLOAT16": "float16",
               "BFLOAT16": "bfloat16"}.get(name, name.lower())
        elem_types[key] = code
    schemas = [s for s in defs.get_all_schemas_with_history()]
    sources = [f"onnx {onnx.__version__} (opset {defs.onnx_opset_version()})"]
    if not args.no_ort:
        import onnxruntime
        from onnxruntime.capi import onnxruntime_pybind11_state as ort_c

        schemas += [s for s in ort_c.get_all_operator_schema()
                    if s.domain in ORT_DOMAINS
                    or (s.domain == "" and s.name in ORT_DEFAULT_DOMAIN_EXTRAS)]
        sources.append(f"onnxruntime {onnxruntime.__version__} (com.microsoft and "
                       + ", ".join(sorted(ORT_DEFAULT_DOMAIN_EXTRAS)) + ")")

    seen = set()
    unique = []
    for s in schemas:
        key = (s.domain, s.name, s.since_version)
        if key in seen:
            continue
        seen.add(key)
        unique.append(s)
    unique.sort(key=lambda s: (s.domain, s.name, s.since_version))

    formals, attrs, bodies, entries = [], [], [], []
    for s in unique:
        constraints = {t.type_param_str: list(t.allowed_type_strs) for t in s.type_constraints}
        first_in = len(formals)
        for f in s.inputs:
            formals.append((f.name, OPTION[str(f.option).split(".")[-1]],
                            type_mask(formal_type_strs(f, constraints), elem_types)))
        first_out = len(formals)
        for f in s.outputs:
            formals.append((f.name, OPTION[str(f.option).split(".")[-1]],
                            type_mask(formal_type_strs(f, constraints), elem_types)))
        first_attr = len(attrs)
        for name in sorted(s.attributes):
            a = s.attributes[name]
            default = b""
            if hasattr(a, "default_value"):  # onnx: an AttributeProto
                if a.default_value is not None and a.default_value.name:
                    default = a.default_value.SerializeToString()
            else:  # ONNX Runtime: already serialized
                default = bytes(a._default_value or b"")
            attrs.append((name, ATTR_TYPE[str(a.type).split(".")[-1]], a.required, default))
        first_body = len(bodies)
        if getattr(s, "has_function", False):
            for v in s.function_opset_versions:
                bodies.append((v, s.get_function_with_opset_version(v)))
        entries.append((s, first_in, len(s.inputs), first_out, len(s.outputs), first_attr,
                        len(s.attributes), first_body, len(bodies) - first_body))

    out = []
    w = out.append
    w("// GENERATED by tools/gen_onnx_schemas.py from " + " and ".join(sources) + ".")
    w("// Do not edit: rerun the script (its docstring says how). onnx_schemas.h describes it.")
    w("// clang-format off")
    w('#include "onnx_schemas.h"')
    w("")
    w("namespace sy::onnx_import::generated {")
    w("")
    w("using enum OnnxFormalOption;")
    w("using enum OnnxAttrType;")
    w("")
    w("const OnnxFormal kFormals[] = {")
    for name, opt, mask in formals:
        w(f'  {{"{name}", {opt}, 0x{mask:x}ull}},')
    w("};")
    w("")
    w("const OnnxAttrSpec kAttrs[] = {")
    for name, typ, req, default in attrs:
        w(f'  {{"{name}", {typ}, {"true" if req else "false"}, std::string_view({c_bytes(default)}, {len(default)})}},')
    w("};")
    w("")
    w("const OnnxFunctionBody kBodies[] = {")
    for version, body in bodies:
        w(f"  {{{version}, std::string_view({c_bytes(body)}, {len(body)})}},")
    w("};")
    w("")
    w("const OnnxSchema kSchemas[] = {")
    for s, fi, ni, fo, no, fa, na, fb, nb in entries:
        max_in = min(s.max_input, 2**31 - 1)
        max_out = min(s.max_output, 2**31 - 1)
        w(f'  {{"{s.domain}", "{s.name}", {s.since_version}, {"true" if s.deprecated else "false"}, '
          f"{s.min_input}, {max_in}, {s.min_output}, {max_out}, "
          f"{{{fi}, {ni}}}, {{{fo}, {no}}}, {{{fa}, {na}}}, {{{fb}, {nb}}}, "
          f'{"true" if getattr(s, "has_context_dependent_function", False) else "false"}}},')
    w("};")
    w("")
    w("const OnnxSchemaTable kTable = {kSchemas, kFormals, kAttrs, kBodies, ")
    w('                                 "' + " and ".join(sources) + '"};')
    w("")
    w("}  // namespace sy::onnx_import::generated")
    text = "\n".join(out) + "\n"
    if args.check:
        with open(args.output) as f:
            current = f.read()
        first = current.splitlines()[0] if current else ""
        if first != out[0]:
            print(f"gen_onnx_schemas: skipped: the table says '{first[3:]}', this Python has "
                  f"{' and '.join(sources)}: rerun without --check to regenerate")
            return 77
        if current != text:
            print(f"gen_onnx_schemas: {args.output} differs from what {' and '.join(sources)} "
                  "define: rerun without --check to regenerate")
            return 1
        print(f"gen_onnx_schemas: the table matches {' and '.join(sources)}: "
              f"{len(entries)} schemas, {len(bodies)} function bodies")
        return 0
    with open(args.output, "w") as f:
        f.write(text)
    print(f"{len(entries)} schemas, {len(formals)} formals, {len(attrs)} attributes, "
          f"{len(bodies)} function bodies -> {args.output} ({len(text) // 1024} KiB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
