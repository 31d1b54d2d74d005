#!/usr/bin/env python3
"""PyTorch -> ONNX -> Switchyard round trip of the bundled examples.

For each example under examples/ (mlp, cnn, transformer; see tools/make_examples.py):

1. define the same architecture as an ordinary torch.nn.Module and load the example's
   own weights from its .safetensors file (read here with the standard library and NumPy);
2. check that the module reproduces the example's expected/ outputs on its inputs/,
   which proves it is the same model as the rml-graph one;
3. export it with torch.onnx.export (static shapes unless --dynamic-batch), inputs and
   outputs named as in the example, and list the ONNX op types the export contains;
   with --batch N, go on with new random inputs of batch size N and PyTorch's outputs
   for them;
4. `switchyard import MODEL.onnx -o STEM`, then `switchyard run STEM --device D
   --input NAME=FILE.npy --out DIR` on every --device;
5. compare Switchyard's outputs with PyTorch's own (|a - b| <= atol + rtol * |b|) and
   print the largest absolute difference per output.

usage: pytorch_roundtrip.py [--switchyard PATH] [--examples DIR] [--work DIR]
                            [--device D[,D...]]... [--only NAME[,NAME...]] [--opset N]
                            [--dynamic-batch [--batch N]] [--export-only] [--keep]

Exit status: 0 when every output of every example matches on every device; 1 on a
mismatch or any failure (a message says which step); 2 on bad arguments; 77 (the ctest
skip code) when PyTorch is not installed. Runs with the first Python that has torch and
numpy: this one, else $SY_PYTHON, /usr/bin/python3 (Debian's python3-torch), python3.
Uses only torch, numpy and the standard library (not the onnx or safetensors packages).
"""
import argparse
import inspect
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile

REEXEC_FLAG = "SY_PYTORCH_ROUNDTRIP_REEXEC"


def ensure_torch():
    """Imports torch and numpy, or re-executes the running script (this one, or one that
    imports this module, such as tools/pytorch_zoo.py) under a Python that has them, or
    exits 77 (skip) saying PyTorch is not installed. Imported from an interpreter with no
    script to re-execute (python3 -c, a REPL), it raises the ImportError instead."""
    try:
        import numpy  # noqa: F401
        import torch  # noqa: F401
        return
    except ImportError as e:
        reason = str(e)
        if __name__ == "__main__":
            script = os.path.abspath(__file__)
        else:
            script = os.path.abspath(sys.argv[0]) if sys.argv and sys.argv[0] else ""
            if not (script.endswith(".py") and os.path.isfile(script)):
                raise
    tried = [sys.executable]
    if not os.environ.get(REEXEC_FLAG):
        seen = set([os.path.realpath(sys.executable or "")])
        for candidate in [os.environ.get("SY_PYTHON"), "/usr/bin/python3", "python3"]:
            path = shutil.which(candidate) if candidate else None
            if not path or os.path.realpath(path) in seen:
                continue
            seen.add(os.path.realpath(path))
            tried.append(path)
            probe = subprocess.run([path, "-c", "import torch, numpy"],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            if probe.returncode == 0:
                sys.stdout.flush()
                env = dict(os.environ, **{REEXEC_FLAG: "1"})
                os.execve(path, [path, script] + sys.argv[1:], env)
    print("skip: PyTorch is not installed (%s in %s; no torch and numpy in %s either). "
          "Install Debian's python3-torch (apt-get install python3-torch) or "
          "pip install torch numpy, or point $SY_PYTHON at a Python that has them."
          % (reason, sys.executable, ", ".join(tried[1:]) or "no other Python"), flush=True)
    sys.exit(77)


# As a script, and when a script imports this module for its helpers.
ensure_torch()

import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from torch import nn  # noqa: E402

# ----------------------------------------------------------------------------------
# Files: safetensors (read), rml-graph JSON (input/output names), ONNX (op listing)
# ----------------------------------------------------------------------------------

SAFETENSORS_DTYPES = {"F32": np.float32, "F16": np.float16, "F64": np.float64,
                      "I8": np.int8, "U8": np.uint8, "I16": np.int16, "I32": np.int32,
                      "I64": np.int64, "BOOL": np.bool_}


def read_safetensors(path):
    """The public safetensors layout: u64 little-endian header length, a JSON header
    {name: {dtype, shape, data_offsets}}, then the data section. Returns {name: array}."""
    with open(path, "rb") as f:
        blob = f.read()
    (header_len,) = struct.unpack("<Q", blob[:8])
    header = json.loads(blob[8:8 + header_len])
    data = blob[8 + header_len:]
    tensors = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        begin, end = info["data_offsets"]
        dtype = np.dtype(SAFETENSORS_DTYPES[info["dtype"]]).newbyteorder("<")
        tensors[name] = np.frombuffer(data[begin:end], dtype=dtype).reshape(info["shape"]).copy()
    return tensors


def graph_io_names(json_path):
    with open(json_path) as f:
        graph = json.load(f)
    names = [v["name"] for v in graph["values"]]
    return [names[i] for i in graph["inputs"]], [names[i] for i in graph["outputs"]]


def _varint(buf, pos):
    result = shift = 0
    while True:
        byte = buf[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return result, pos
        shift += 7


def _fields(buf):
    """Yields (field number, wire type, value) of one protobuf message; LEN values as bytes."""
    pos = 0
    while pos < len(buf):
        key, pos = _varint(buf, pos)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, pos = _varint(buf, pos)
        elif wire == 1:
            value, pos = buf[pos:pos + 8], pos + 8
        elif wire == 2:
            length, pos = _varint(buf, pos)
            value, pos = buf[pos:pos + length], pos + length
        elif wire == 5:
            value, pos = buf[pos:pos + 4], pos + 4
        else:
            raise ValueError("unsupported protobuf wire type %d" % wire)
        yield number, wire, value


def onnx_summary(path):
    """(opsets {domain: version}, [op_type of each top-level node]) of an ONNX file, read
    with a few lines of protobuf wire format: ModelProto.opset_import = 8 (domain = 1,
    version = 2), ModelProto.graph = 7, GraphProto.node = 1, NodeProto.op_type = 4 and
    NodeProto.domain = 7."""
    with open(path, "rb") as f:
        model = f.read()
    opsets, ops = {}, []
    for number, _, value in _fields(model):
        if number == 8:
            fields = {n: v for n, _, v in _fields(value)}
            opsets[fields.get(1, b"").decode() or "ai.onnx"] = fields.get(2, 1)
        elif number == 7:
            for n, _, node in _fields(value):
                if n != 1:
                    continue
                fields = {k: v for k, _, v in _fields(node)}
                op = fields.get(4, b"").decode()
                domain = fields.get(7, b"").decode()
                ops.append(domain + "." + op if domain else op)
    return opsets, ops


def op_counts(ops):
    counts = {}
    for op in ops:
        counts[op] = counts.get(op, 0) + 1
    return ", ".join(op if n == 1 else "%s x%d" % (op, n) for op, n in counts.items())


# ----------------------------------------------------------------------------------
# The examples as PyTorch modules (architectures of tools/make_examples.py)
# ----------------------------------------------------------------------------------

class WeightLoader:
    """Copies the example's stored tensors into a module's parameters and buffers and
    checks that every stored tensor is used exactly once."""

    def __init__(self, tensors):
        self.tensors = tensors
        self.used = set()

    def __call__(self, target, name, transpose=False):
        array = self.tensors[name]
        self.used.add(name)
        if transpose:
            array = array.T
        value = torch.from_numpy(np.ascontiguousarray(array))
        if tuple(target.shape) != tuple(value.shape):
            raise ValueError("%s: stored shape %s does not fit the module's %s"
                             % (name, tuple(value.shape), tuple(target.shape)))
        with torch.no_grad():
            target.copy_(value)

    def check_all_used(self):
        unused = sorted(set(self.tensors) - self.used)
        if unused:
            raise ValueError("stored tensors the module does not use: " + ", ".join(unused))


class Mlp(nn.Module):
    """layers.{0,1,2}: Linear 12 -> 16 -> 16 -> 4 with ReLU between; the example stores
    each weight as [in, out] (x @ w), nn.Linear as [out, in]."""

    def __init__(self, tensors):
        super().__init__()
        widths = [tensors["layers.0.weight"].shape[0]] + [
            tensors["layers.%d.weight" % i].shape[1] for i in range(3)]
        self.layers = nn.ModuleList(nn.Linear(widths[i], widths[i + 1]) for i in range(3))
        load = WeightLoader(tensors)
        for i, layer in enumerate(self.layers):
            load(layer.weight, "layers.%d.weight" % i, transpose=True)
            load(layer.bias, "layers.%d.bias" % i)
        load.check_all_used()

    def forward(self, x):
        for i, layer in enumerate(self.layers):
            x = layer(x)
            if i + 1 < len(self.layers):
                x = torch.relu(x)
        return x


class Cnn(nn.Module):
    """conv 3x3 pad 1 (bias) -> batch norm (eps 1e-5) -> relu -> max pool 2x2/2 -> conv 3x3
    pad 1 (no bias) -> relu -> global average pool -> flatten -> linear 16 -> 10."""

    def __init__(self, tensors):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(8, eps=1e-5)
        self.pool1 = nn.MaxPool2d(2, 2)
        self.conv2 = nn.Conv2d(8, 16, 3, padding=1, bias=False)
        self.gap = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(16, 10)
        load = WeightLoader(tensors)
        load(self.conv1.weight, "conv1.weight")
        load(self.conv1.bias, "conv1.bias")
        load(self.bn1.weight, "bn1.scale")
        load(self.bn1.bias, "bn1.bias")
        load(self.bn1.running_mean, "bn1.mean")
        load(self.bn1.running_var, "bn1.var")
        load(self.conv2.weight, "conv2.weight")
        load(self.fc.weight, "fc.weight")  # stored [10, 16] with trans_b = 1: as nn.Linear
        load(self.fc.bias, "fc.bias")
        load.check_all_used()

    def forward(self, x):
        x = self.pool1(torch.relu(self.bn1(self.conv1(x))))
        x = torch.relu(self.conv2(x))
        return self.fc(torch.flatten(self.gap(x), 1))


class Transformer(nn.Module):
    """One pre-norm encoder block: token embedding + learned positions, LayerNorm,
    2-head self-attention (q, k, v, o projections, no mask) + residual, LayerNorm,
    Linear -> GELU (erf) -> Linear + residual. Written the usual way, with the batch and
    sequence sizes read from the tensor's shape (which the ONNX export records as
    Shape/Gather computations that `switchyard import` must fold)."""

    def __init__(self, tensors):
        super().__init__()
        vocab, dim = tensors["embed.table"].shape
        seq = tensors["embed.pos"].shape[0]
        hidden = tensors["mlp.fc1.weight"].shape[1]
        self.heads, self.head_dim = 2, dim // 2
        self.embed = nn.Embedding(vocab, dim)
        self.pos = nn.Parameter(torch.zeros(seq, dim))
        self.ln1 = nn.LayerNorm(dim, eps=1e-5)
        self.q, self.k, self.v, self.o = (nn.Linear(dim, dim) for _ in range(4))
        self.ln2 = nn.LayerNorm(dim, eps=1e-5)
        self.fc1 = nn.Linear(dim, hidden)
        self.fc2 = nn.Linear(hidden, dim)
        load = WeightLoader(tensors)
        load(self.embed.weight, "embed.table")
        load(self.pos, "embed.pos")
        for ln, name in ((self.ln1, "ln1"), (self.ln2, "ln2")):
            load(ln.weight, name + ".scale")
            load(ln.bias, name + ".bias")
        for proj, name in ((self.q, "q"), (self.k, "k"), (self.v, "v"), (self.o, "o")):
            load(proj.weight, "attn.%s.weight" % name, transpose=True)
            load(proj.bias, "attn.%s.bias" % name)
        for fc, name in ((self.fc1, "fc1"), (self.fc2, "fc2")):
            load(fc.weight, "mlp.%s.weight" % name, transpose=True)
            load(fc.bias, "mlp.%s.bias" % name)
        load.check_all_used()

    def forward(self, tokens):
        h = self.embed(tokens) + self.pos
        batch, seq, dim = h.shape

        def heads(t):
            return t.view(batch, seq, self.heads, self.head_dim).transpose(1, 2)

        n1 = self.ln1(h)
        q, k, v = heads(self.q(n1)), heads(self.k(n1)), heads(self.v(n1))
        scores = (q @ k.transpose(-2, -1)) / (self.head_dim ** 0.5)
        a = (torch.softmax(scores, dim=-1) @ v).transpose(1, 2).reshape(batch, seq, dim)
        h = h + self.o(a)
        return h + self.fc2(F.gelu(self.fc1(self.ln2(h))))


MODELS = {"mlp": Mlp, "cnn": Cnn, "transformer": Transformer}

# ----------------------------------------------------------------------------------
# The round trip
# ----------------------------------------------------------------------------------

# PyTorch against the example's expected/ (NumPy, float64 then rounded to f32).
EXPECTED_RTOL, EXPECTED_ATOL = 1e-4, 1e-5


# The TorchScript-based exporter: PyTorch 2.9 made the dynamo exporter (which needs the
# onnxscript package) the default; older versions have no such argument.
EXPORT_EXTRA = ({"dynamo": False}
                if "dynamo" in inspect.signature(torch.onnx.export).parameters else {})


class Failure(Exception):
    pass


def compare(label, got, want, rtol, atol):
    """Prints one line; returns True when got matches want elementwise."""
    if got.shape != want.shape:
        print("    %s: DIFFERS: shape %s, expected %s" % (label, got.shape, want.shape))
        return False
    g, w = got.astype(np.float64), want.astype(np.float64)
    diff = np.abs(g - w)
    bad = ~(diff <= atol + rtol * np.abs(w))  # NaN counts as a difference
    finite = diff[np.isfinite(diff)]
    max_diff = float(finite.max()) if finite.size else 0.0
    if bad.any():
        first = np.unravel_index(int(np.argmax(bad)), bad.shape)
        print("    %s: DIFFERS: %d of %d elements, max |diff| %.3g; first at %s: %r, expected %r"
              % (label, int(bad.sum()), bad.size, max_diff, list(first),
                 float(g[first]), float(w[first])))
        return False
    print("    %s: matches, max |diff| %.3g" % (label, max_diff))
    return True


def run_tool(command, what):
    print("    $ " + " ".join(command), flush=True)
    proc = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          universal_newlines=True)
    if proc.returncode != 0:
        out = proc.stdout.strip()
        raise Failure("%s failed (exit %d)%s" % (what, proc.returncode,
                                                 ":\n" + out if out else ""))
    return proc.stdout


def has_import_command(switchyard):
    try:
        proc = subprocess.run([switchyard, "--help"], stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, universal_newlines=True)
    except OSError as e:
        raise Failure("cannot run %s: %s" % (switchyard, e))
    return any(line.split()[:1] == ["import"] for line in proc.stdout.splitlines())


def roundtrip(name, args, devices):
    """Returns True when everything matched; raises Failure on a broken step."""
    folder = os.path.join(args.examples, name)
    stem_in = os.path.join(folder, name)
    work = os.path.join(args.work, name)
    os.makedirs(work, exist_ok=True)
    input_names, output_names = graph_io_names(stem_in + ".json")
    inputs = [np.load(os.path.join(folder, "inputs", n + ".npy")) for n in input_names]
    expected = [np.load(os.path.join(folder, "expected", n + ".npy")) for n in output_names]
    print("%s: inputs %s; outputs %s" % (
        name, ", ".join("%s %s %s" % (n, a.dtype, list(a.shape))
                        for n, a in zip(input_names, inputs)),
        ", ".join(output_names)))

    model = MODELS[name](read_safetensors(stem_in + ".safetensors")).eval()
    with torch.no_grad():
        result = model(*[torch.from_numpy(a) for a in inputs])
    results = result if isinstance(result, (tuple, list)) else (result,)
    torch_out = [r.detach().numpy() for r in results]
    print("  PyTorch module against the example's expected/ (rtol %g, atol %g):"
          % (EXPECTED_RTOL, EXPECTED_ATOL))
    same = all([compare(n, got, want, EXPECTED_RTOL, EXPECTED_ATOL)
                for n, got, want in zip(output_names, torch_out, expected)])
    if not same:
        raise Failure("the PyTorch module does not reproduce the example; it is not the same model")

    torch_dir = os.path.join(work, "pytorch")
    os.makedirs(torch_dir, exist_ok=True)
    for n, a in zip(output_names, torch_out):
        np.save(os.path.join(torch_dir, n + ".npy"), a)
    onnx_path = os.path.join(work, name + ".onnx")
    dynamic_axes = None
    if args.dynamic_batch:
        dynamic_axes = {n: {0: "batch"} for n in input_names + output_names}
    torch.onnx.export(model, tuple(torch.from_numpy(a) for a in inputs), onnx_path,
                      input_names=input_names, output_names=output_names,
                      opset_version=args.opset, do_constant_folding=True,
                      dynamic_axes=dynamic_axes, **EXPORT_EXTRA)
    opsets, ops = onnx_summary(onnx_path)
    print("  exported %s (%d bytes; opset %s%s): %d nodes: %s" % (
        onnx_path, os.path.getsize(onnx_path),
        ", ".join("%s %d" % kv if kv[0] != "ai.onnx" else str(kv[1]) for kv in opsets.items()),
        "; batch axis dynamic" if dynamic_axes else "", len(ops), op_counts(ops)))
    if args.export_only:
        return True

    input_dir = os.path.join(folder, "inputs")
    if args.batch:
        # Other inputs of another batch size: the import must fold the model's shape
        # computations for the size --input-shape gives, not the one traced.
        rng = np.random.default_rng(7)
        inputs = [rng.integers(a.min(), a.max() + 1, (args.batch,) + a.shape[1:]).astype(a.dtype)
                  if a.dtype.kind in "iu" else
                  rng.standard_normal((args.batch,) + a.shape[1:]).astype(a.dtype)
                  for a in inputs]
        input_dir = os.path.join(work, "inputs")
        os.makedirs(input_dir, exist_ok=True)
        for n, a in zip(input_names, inputs):
            np.save(os.path.join(input_dir, n + ".npy"), a)
        with torch.no_grad():
            result = model(*[torch.from_numpy(a) for a in inputs])
        results = result if isinstance(result, (tuple, list)) else (result,)
        torch_out = [r.detach().numpy() for r in results]
        print("  batch %d: new inputs %s; PyTorch outputs %s" % (
            args.batch,
            ", ".join("%s %s" % (n, list(a.shape)) for n, a in zip(input_names, inputs)),
            ", ".join("%s %s" % (n, list(a.shape)) for n, a in zip(output_names, torch_out))))

    stem_out = os.path.join(work, "switchyard", name)
    shutil.rmtree(os.path.dirname(stem_out), ignore_errors=True)
    os.makedirs(os.path.dirname(stem_out))
    command = [args.switchyard, "import", onnx_path, "-o", stem_out]
    if args.dynamic_batch:
        for n, a in zip(input_names, inputs):
            command += ["--input-shape", "%s=%s" % (n, ",".join(str(d) for d in a.shape))]
    for line in run_tool(command, "switchyard import").strip().splitlines():
        print("      " + line)
    input_files = []
    for n in input_names:
        path = os.path.abspath(os.path.join(input_dir, n + ".npy"))
        input_files += ["--input", "%s=%s" % (n, path)]

    ok = True
    for device in devices:
        out_dir = os.path.join(work, "out-" + device.replace(":", "_"))
        shutil.rmtree(out_dir, ignore_errors=True)
        try:
            out = run_tool([args.switchyard, "run", stem_out, "--device", device,
                            "--optimize", str(args.optimize)] + input_files
                           + ["--out", out_dir], "switchyard run on " + device)
        except Failure as e:
            print("  FAILED: %s" % e)
            ok = False
            continue
        print("      " + (out.strip().splitlines() or [""])[0])
        print("  Switchyard on %s against PyTorch (rtol %g, atol %g):"
              % (device, args.rtol, args.atol))
        for n, want in zip(output_names, torch_out):
            path = os.path.join(out_dir, n + ".npy")
            if not os.path.exists(path):
                written = sorted(os.listdir(out_dir)) if os.path.isdir(out_dir) else []
                print("    %s: MISSING: switchyard run wrote no %s (it wrote: %s)"
                      % (n, path, ", ".join(written) or "nothing"))
                ok = False
                continue
            ok = compare(n, np.load(path), want, args.rtol, args.atol) and ok
    return ok


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        epilog="Exit 0: all match; 1: a mismatch or failure; 77: PyTorch is not installed.")
    parser.add_argument("--switchyard",
                        default=os.path.join(root, "build", "release", "bin", "switchyard"),
                        help="the switchyard binary (default: build/release/bin/switchyard)")
    parser.add_argument("--examples", default=os.path.join(root, "examples"),
                        help="folder of the bundled examples (default: examples/)")
    parser.add_argument("--work", help="folder for the .onnx, imported models and outputs "
                        "(default: a temporary folder, removed on success)")
    parser.add_argument("--device", action="append",
                        help="device to run on (cpu, cpu-ref, opencl:0, ...); repeatable or a "
                        "comma list, each device run separately (default: cpu)")
    parser.add_argument("--only", action="append",
                        help="only these examples (repeatable or a comma list): "
                        + ", ".join(MODELS))
    parser.add_argument("--opset", type=int, default=17,
                        help="ONNX opset for torch.onnx.export (default 17)")
    parser.add_argument("--dynamic-batch", action="store_true",
                        help="export with a dynamic batch axis and import with --input-shape")
    parser.add_argument("--batch", type=int,
                        help="with --dynamic-batch: import and run at this batch size, on "
                        "new random inputs (default: the example's own inputs)")
    parser.add_argument("--export-only", action="store_true",
                        help="stop after checking the modules and exporting (no switchyard)")
    parser.add_argument("--rtol", type=float, default=1e-3, help="default 1e-3")
    parser.add_argument("--atol", type=float, default=1e-5, help="default 1e-5")
    parser.add_argument("--optimize", type=int, default=1, choices=(0, 1, 2),
                        help="the graph optimization level for switchyard run (default 1)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")
    args = parser.parse_args()

    def split(items):
        return [x for item in items or [] for x in item.split(",") if x]

    if args.batch is not None and (not args.dynamic_batch or args.batch < 1):
        parser.error("--batch needs --dynamic-batch and a positive size")
    devices = split(args.device) or ["cpu"]
    names = split(args.only) or list(MODELS)
    unknown = [n for n in names if n not in MODELS]
    if unknown:
        parser.error("unknown example %s (known: %s)" % (", ".join(unknown), ", ".join(MODELS)))
    args.examples = os.path.abspath(args.examples)
    missing = [n for n in names if not os.path.exists(os.path.join(args.examples, n, n + ".json"))]
    if missing:
        print("error: no example %s under %s" % (", ".join(missing), args.examples))
        return 1
    if not args.export_only:
        if not os.path.exists(args.switchyard):
            print("error: no switchyard binary at %s (build it, or pass --switchyard PATH)"
                  % args.switchyard)
            return 1
        try:
            if not has_import_command(args.switchyard):
                print("error: %s has no `import` command (ONNX import, issue 7); "
                      "--export-only checks the PyTorch side alone" % args.switchyard)
                return 1
        except Failure as e:
            print("error: %s" % e)
            return 1
    max_opset = getattr(getattr(torch.onnx, "_constants", None), "ONNX_MAX_OPSET", None)
    if max_opset is not None and not 7 <= args.opset <= max_opset:
        print("error: --opset %d: PyTorch %s exports opsets 7 to %d"
              % (args.opset, torch.__version__, max_opset))
        return 1
    temporary = args.work is None
    args.work = os.path.abspath(args.work or tempfile.mkdtemp(prefix="sy-pytorch-"))
    os.makedirs(args.work, exist_ok=True)
    torch.manual_seed(0)
    torch.set_num_threads(1)
    print("PyTorch %s (%s), NumPy %s; opset %d; work folder %s" % (
        torch.__version__, sys.executable, np.__version__, args.opset, args.work), flush=True)

    passed, failed = [], []
    for name in names:
        try:
            ok = roundtrip(name, args, devices)
        except Failure as e:
            print("  FAILED: %s" % e)
            ok = False
        except Exception as e:  # a torch export error, a bad file: report, go on
            print("  FAILED: %s: %s" % (type(e).__name__, e))
            ok = False
        (passed if ok else failed).append(name)
        sys.stdout.flush()

    what = "export" if args.export_only else "round trip on " + ", ".join(devices)
    print("%d of %d examples match (%s)%s" % (len(passed), len(names), what,
                                              "; failed: " + ", ".join(failed) if failed else ""))
    if temporary and not failed and not args.keep:
        shutil.rmtree(args.work, ignore_errors=True)
    elif temporary:
        print("kept %s" % args.work)
    return 0 if not failed else 1


if __name__ == "__main__":
    sys.exit(main())
