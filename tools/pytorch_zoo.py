#!/usr/bin/env python3
"""PyTorch model zoo: the importer's decompositions checked on real PyTorch exports.

Where tools/pytorch_roundtrip.py takes the bundled examples through PyTorch, this script
builds small models around the PyTorch modules and functions whose ONNX exports the
importer decomposes or maps with care (recurrent layers, Einsum, Resize, ConvTranspose,
the norms, integer and indexing ops, the real nn.TransformerEncoderLayer), each with
random weights from a fixed seed, and for each one:

1. runs it in eval mode on fixed random inputs: PyTorch's own outputs;
2. exports it with torch.onnx.export (opset 17, static shapes, named inputs and
   outputs) and lists the ONNX op types the export contains;
3. `switchyard import MODEL.onnx -o STEM`; a failed import is reported with the
   importer's message verbatim and the model's ONNX op types, and the script goes on;
4. `switchyard run STEM --device D` on every device (default: cpu, cpu-ref, and
   opencl:0 when `switchyard devices` lists it);
5. compares Switchyard's outputs with PyTorch's (|a - b| <= atol + rtol * |b|) and
   prints the largest absolute difference per output and device.

usage: pytorch_zoo.py [--switchyard PATH] [--work DIR] [--device D[,D...]]...
                      [--only NAME[,NAME...]] [--list] [--table] [--export-only] [--keep]

Exit status: 0 when every output of every model matches on every device; 1 on a
mismatch, a failed import or any other failure; 2 on bad arguments; 77 (the ctest skip
code) when PyTorch is not installed. Finds a Python with torch the same way as
pytorch_roundtrip.py, whose helpers it imports.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pytorch_roundtrip as rt  # noqa: E402  (finds a Python with torch, or exits 77)

np, torch, nn, F = rt.np, rt.torch, rt.nn, rt.F

# ----------------------------------------------------------------------------------
# The models. Each builder returns (module, {input name: array}, [output names]) and
# seeds its own weights and inputs, so a model does not depend on which others run.
# ----------------------------------------------------------------------------------


def randn(rng, *shape):
    return rng.standard_normal(shape).astype(np.float32)


class Lstm(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(8, 16, num_layers=2, bidirectional=True, batch_first=True)

    def forward(self, x, h0, c0):
        y, (h, c) = self.lstm(x, (h0, c0))
        return y, h, c


def lstm():
    torch.manual_seed(1)
    rng = np.random.default_rng(1)
    batch, seq, layers_dirs, hidden = 2, 5, 4, 16
    return Lstm(), {"x": randn(rng, batch, seq, 8), "h0": randn(rng, layers_dirs, batch, hidden),
                    "c0": randn(rng, layers_dirs, batch, hidden)}, ["y", "h_n", "c_n"]


class Gru(nn.Module):
    def __init__(self):
        super().__init__()
        self.gru = nn.GRU(8, 16, bidirectional=True)

    def forward(self, x, h0):
        y, h = self.gru(x, h0)
        return y, h


def gru():
    torch.manual_seed(2)
    rng = np.random.default_rng(2)
    seq, batch = 6, 3
    return Gru(), {"x": randn(rng, seq, batch, 8), "h0": randn(rng, 2, batch, 16)}, ["y", "h_n"]


class RnnRelu(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.RNN(8, 12, num_layers=2, nonlinearity="relu")

    def forward(self, x):  # no h0: the export's initial state is zeros
        y, h = self.rnn(x)
        return y, h


def rnn_relu():
    torch.manual_seed(3)
    rng = np.random.default_rng(3)
    return RnnRelu(), {"x": randn(rng, 5, 2, 8)}, ["y", "h_n"]


class EinsumAttention(nn.Module):
    def forward(self, q, k, v):
        scores = torch.einsum("bhqd,bhkd->bhqk", q, k) / (q.shape[-1] ** 0.5)
        return torch.einsum("bhqk,bhkd->bhqd", torch.softmax(scores, dim=-1), v)


def einsum_attention():
    rng = np.random.default_rng(4)
    shape = (2, 3, 5, 8)  # batch, heads, sequence, head dim
    return EinsumAttention(), {n: randn(rng, *shape) for n in "qkv"}, ["attn"]


class Einsum3(nn.Module):
    """Three operands: a bilinear form with a batch label and a summed-out label shared
    by all three ("bi,ij,bj->b") and a chain with an outer product ("ij,jk,kl->il")."""

    def forward(self, a, w, c, m1, m2, m3):
        return torch.einsum("bi,ij,bj->b", a, w, c), torch.einsum("ij,jk,kl->il", m1, m2, m3)


def einsum3():
    rng = np.random.default_rng(5)
    return Einsum3(), {"a": randn(rng, 4, 6), "w": randn(rng, 6, 7), "c": randn(rng, 4, 7),
                       "m1": randn(rng, 3, 5), "m2": randn(rng, 5, 4),
                       "m3": randn(rng, 4, 6)}, ["bilinear", "chain"]


class EinsumDiagonal(nn.Module):
    """Repeated labels within one operand: a batched diagonal and a trace."""

    def forward(self, x, m):
        return torch.einsum("bii->bi", x), torch.einsum("ii->", m)


def einsum_diagonal():
    rng = np.random.default_rng(12)
    return EinsumDiagonal(), {"x": randn(rng, 3, 4, 4), "m": randn(rng, 5, 5)}, ["diag", "trace"]


class Bicubic(nn.Module):
    """F.interpolate bicubic (Resize cubic, cubic_coeff_a -0.75), up with the default
    coordinates and align_corners, and down to a size."""

    def forward(self, x):
        up = F.interpolate(x, scale_factor=2, mode="bicubic", align_corners=False)
        corners = F.interpolate(x, scale_factor=2, mode="bicubic", align_corners=True)
        down = F.interpolate(x, size=(3, 5), mode="bicubic", align_corners=False)
        return up, corners, down


def bicubic():
    rng = np.random.default_rng(13)
    return Bicubic(), {"x": randn(rng, 2, 3, 6, 7)}, ["up", "corners", "down"]


class UpsampleCnn(nn.Module):
    """Conv, then the three Upsample flavours side by side, then a strided
    ConvTranspose2d with output_padding back down the channels."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 6, 3, padding=1)
        self.nearest = nn.Upsample(scale_factor=2, mode="nearest")
        self.bilinear = nn.Upsample(scale_factor=2, mode="bilinear", align_corners=False)
        self.corners = nn.Upsample(scale_factor=2, mode="bilinear", align_corners=True)
        self.deconv = nn.ConvTranspose2d(6, 4, 3, stride=2, padding=1, output_padding=1)

    def forward(self, x):
        h = torch.relu(self.conv(x))
        a, b, c = self.nearest(h), self.bilinear(h), self.corners(h)
        return a, b, c, self.deconv(a + b - c)


def upsample_cnn():
    torch.manual_seed(6)
    rng = np.random.default_rng(6)
    return UpsampleCnn(), {"x": randn(rng, 2, 3, 5, 7)}, [
        "nearest", "bilinear", "bilinear_corners", "deconv"]


class NormActCnn(nn.Module):
    """GroupNorm, InstanceNorm2d (affine and not), PReLU per channel, Hardswish, Mish."""

    def __init__(self):
        super().__init__()
        c = 8
        self.conv1 = nn.Conv2d(3, c, 3, padding=1)
        self.gn = nn.GroupNorm(4, c)
        self.prelu = nn.PReLU(num_parameters=c)
        self.conv2 = nn.Conv2d(c, c, 3, padding=1)
        self.inorm = nn.InstanceNorm2d(c, affine=True)
        self.inorm_plain = nn.InstanceNorm2d(c)
        self.hswish = nn.Hardswish()
        self.mish = nn.Mish()
        with torch.no_grad():  # not the identity the defaults would give
            for norm in (self.gn, self.inorm):
                norm.weight.copy_(1.0 + 0.5 * torch.randn(c))
                norm.bias.copy_(0.5 * torch.randn(c))
            self.prelu.weight.copy_(torch.rand(c) * 0.5)

    def forward(self, x):
        h = self.prelu(self.gn(self.conv1(x)))
        h = self.conv2(h)
        return self.hswish(self.inorm(h)), self.mish(self.inorm_plain(h) * 2.0)


def norm_act_cnn():
    torch.manual_seed(7)
    rng = np.random.default_rng(7)
    return NormActCnn(), {"x": randn(rng, 2, 3, 6, 6)}, ["hswish", "mish"]


class OneHot(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(10, 4)

    def forward(self, labels):
        onehot = F.one_hot(labels, num_classes=10)
        return onehot, self.proj(onehot.float())


def one_hot():
    torch.manual_seed(8)
    rng = np.random.default_rng(8)
    return OneHot(), {"labels": rng.integers(0, 10, (3, 5)).astype(np.int64)}, [
        "onehot", "projected"]


class IntOps(nn.Module):
    """cumsum (float and int64), topk values and indices, argmax, where, gather,
    masked_fill with a causal triu mask, tril on data, index_select, flip (Slice with
    negative steps), chunk and split."""

    def forward(self, x, idx):
        t = x.shape[1]
        vals, inds = torch.topk(x, k=3, dim=-1)
        scores = x @ x.transpose(1, 2)
        causal = torch.triu(torch.ones(t, t, dtype=torch.bool), diagonal=1)
        masked = torch.softmax(scores.masked_fill(causal, float("-inf")), dim=-1)
        lo, hi = torch.chunk(x, 2, dim=-1)
        s1, s2, s3 = torch.split(x, [1, 2, 3], dim=1)
        return (torch.cumsum(x, dim=1), torch.cumsum(idx, dim=-1), vals, inds,
                torch.argmax(x, dim=-1), torch.where(x > 0.5, x, -x * 0.25),
                torch.gather(x, 2, idx), masked, torch.tril(scores, diagonal=-1),
                torch.index_select(x, 2, torch.tensor([7, 0, 3, 3])),
                torch.flip(x, dims=[1, 2]), lo * hi,
                torch.cat([s3, s2, s1], dim=1))


def int_ops():
    rng = np.random.default_rng(9)
    return IntOps(), {"x": randn(rng, 2, 6, 8), "idx": rng.integers(0, 8, (2, 6, 3))}, [
        "cumsum", "cumsum_int", "topk_values", "topk_indices", "argmax", "where", "gather",
        "masked_softmax", "tril", "index_select", "flip", "chunk", "split"]


class Encoder(nn.Module):
    def __init__(self, norm_first, causal):
        super().__init__()
        self.layer = nn.TransformerEncoderLayer(16, 2, dim_feedforward=32, dropout=0.1,
                                                batch_first=True, norm_first=norm_first)
        self.causal = causal

    def forward(self, x):
        mask = None
        if self.causal:
            t = x.shape[1]
            mask = torch.triu(torch.full((t, t), float("-inf")), diagonal=1)
        return self.layer(x, src_mask=mask)


def encoder_post():
    torch.manual_seed(10)
    rng = np.random.default_rng(10)
    return Encoder(norm_first=False, causal=False), {"x": randn(rng, 2, 5, 16)}, ["y"]


def encoder_pre():
    torch.manual_seed(11)
    rng = np.random.default_rng(11)
    return Encoder(norm_first=True, causal=True), {"x": randn(rng, 2, 5, 16)}, ["y"]


ZOO = {
    "lstm": (lstm, "nn.LSTM, 2 layers, bidirectional, batch_first, h0/c0 as inputs"),
    "gru": (gru, "nn.GRU, bidirectional, sequence first, h0 as input"),
    "rnn_relu": (rnn_relu, "nn.RNN, 2 layers, relu nonlinearity, zero initial state"),
    "einsum_attention": (einsum_attention,
                         "einsum bhqd,bhkd->bhqk, softmax, einsum bhqk,bhkd->bhqd"),
    "einsum3": (einsum3, "einsum with three operands: bi,ij,bj->b and ij,jk,kl->il"),
    "einsum_diagonal": (einsum_diagonal, "einsum with repeated labels: bii->bi and ii->"),
    "bicubic": (bicubic, "F.interpolate bicubic: x2 with and without align_corners, "
                "down to a size"),
    "upsample_cnn": (upsample_cnn, "Conv2d; Upsample x2 nearest, bilinear, bilinear "
                     "align_corners; ConvTranspose2d stride 2 with output_padding"),
    "norm_act_cnn": (norm_act_cnn, "GroupNorm, PReLU per channel, InstanceNorm2d "
                     "(affine and not), Hardswish, Mish"),
    "one_hot": (one_hot, "F.one_hot, then a Linear on it"),
    "int_ops": (int_ops, "cumsum, topk, argmax, where, gather, causal masked_fill, tril, "
                "index_select, flip, chunk, split"),
    "encoder_post": (encoder_post, "nn.TransformerEncoderLayer, batch_first, "
                     "norm_first=False, no mask"),
    "encoder_pre": (encoder_pre, "nn.TransformerEncoderLayer, batch_first, "
                    "norm_first=True, causal src_mask"),
}

# ----------------------------------------------------------------------------------
# One model through export, import, run and compare
# ----------------------------------------------------------------------------------


def max_abs_diff(got, want):
    if got.shape != want.shape:
        return None
    diff = np.abs(got.astype(np.float64) - want.astype(np.float64))
    finite = diff[np.isfinite(diff)]
    return float(finite.max()) if finite.size else 0.0


def check_model(name, args, devices, result):
    """Fills result (status, ops, error, diffs {device: {output: max diff or None}});
    returns True when everything matched; raises rt.Failure on a broken step."""
    build, what = ZOO[name]
    work = os.path.join(args.work, name)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    model, inputs, output_names = build()
    model.eval()
    input_names = list(inputs)
    print("%s: %s\n  inputs %s; outputs %s" % (
        name, what, ", ".join("%s %s %s" % (n, a.dtype, list(a.shape)) for n, a in inputs.items()),
        ", ".join(output_names)), flush=True)

    tensors = tuple(torch.from_numpy(a) for a in inputs.values())
    with torch.no_grad():
        out = model(*tensors)
    torch_out = [t.detach().numpy() for t in (out if isinstance(out, (tuple, list)) else (out,))]
    if len(torch_out) != len(output_names):
        raise rt.Failure("the module returns %d outputs, %d names given"
                         % (len(torch_out), len(output_names)))
    input_dir = os.path.join(work, "inputs")
    os.makedirs(input_dir)
    for n, a in inputs.items():
        np.save(os.path.join(input_dir, n + ".npy"), a)

    onnx_path = os.path.join(work, name + ".onnx")
    result["status"] = "export failed"
    # Not under no_grad: in eval mode with gradients off, nn.TransformerEncoderLayer takes
    # its fused fast path (aten::_transformer_encoder_layer_fwd), which has no export.
    torch.onnx.export(model, tensors, onnx_path, input_names=input_names,
                      output_names=output_names, opset_version=args.opset,
                      do_constant_folding=True, **rt.EXPORT_EXTRA)
    opsets, ops = rt.onnx_summary(onnx_path)
    result["ops"] = rt.op_counts(ops)
    print("  exported %s (opset %s): %d nodes: %s" % (
        onnx_path, ", ".join("%s %d" % kv if kv[0] != "ai.onnx" else str(kv[1])
                             for kv in opsets.items()), len(ops), result["ops"]))
    if args.export_only:
        result["status"] = "exported"
        return True

    stem = os.path.join(work, "switchyard", name)
    os.makedirs(os.path.dirname(stem))
    result["status"] = "import failed"
    try:
        printed = rt.run_tool([args.switchyard, "import", onnx_path, "-o", stem],
                              "switchyard import")
    except rt.Failure as e:
        result["error"] = str(e).split(":\n", 1)[-1]
        raise rt.Failure("%s\n  the export's ONNX ops: %s" % (e, result["ops"]))
    for line in printed.strip().splitlines():
        print("      " + line)
    input_files = []
    for n in input_names:
        input_files += ["--input", "%s=%s" % (n, os.path.join(input_dir, n + ".npy"))]

    ok = True
    result["status"] = "ran"
    for device in devices:
        out_dir = os.path.join(work, "out-" + device.replace(":", "_"))
        diffs = result["diffs"].setdefault(device, {})
        try:
            printed = rt.run_tool([args.switchyard, "run", stem, "--device", device]
                                  + input_files + ["--out", out_dir], "switchyard run on " + device)
        except rt.Failure as e:
            print("  FAILED: %s" % e)
            result.setdefault("run_errors", {})[device] = str(e)
            ok = False
            continue
        print("      " + (printed.strip().splitlines() or [""])[0])
        print("  Switchyard on %s against PyTorch (rtol %g, atol %g):"
              % (device, args.rtol, args.atol))
        for n, want in zip(output_names, torch_out):
            path = os.path.join(out_dir, n + ".npy")
            if not os.path.exists(path):
                print("    %s: MISSING: switchyard run wrote no %s" % (n, path))
                diffs[n] = None
                ok = False
                continue
            got = np.load(path)
            if got.dtype != want.dtype:
                print("    %s: dtype %s, PyTorch's is %s" % (n, got.dtype, want.dtype))
            diffs[n] = max_abs_diff(got, want)
            ok = rt.compare(n, got, want, args.rtol, args.atol) and ok
    result["status"] = "pass" if ok else "mismatch"
    return ok


# ----------------------------------------------------------------------------------
# Reports
# ----------------------------------------------------------------------------------


def fmt(value):
    if value is None:
        return "-"
    return "0" if value == 0 else "%.1e" % value


def summary_table(names, results, devices):
    """A Markdown table: one row per model, the worst output's max |diff| per device
    (or the failure), and the output with the worst difference."""
    lines = ["| model | result | " + " | ".join("max \\|diff\\| %s" % d for d in devices) + " |",
             "|---|---|" + "---|" * len(devices)]
    for name in names:
        r = results[name]
        cells = []
        for d in devices:
            diffs = r["diffs"].get(d)
            if not diffs or any(v is None for v in diffs.values()):
                cells.append("-" if r["status"] != "mismatch" else "failed")
            else:
                worst = max(diffs, key=lambda n: diffs[n])
                cells.append("%s (%s)" % (fmt(diffs[worst]), worst)
                             if len(diffs) > 1 and diffs[worst] > 0 else fmt(diffs[worst]))
        lines.append("| %s | %s | %s |" % (name, r["status"], " | ".join(cells)))
    return "\n".join(lines)


def opencl_listed(switchyard):
    try:
        proc = subprocess.run([switchyard, "devices"], stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, universal_newlines=True)
    except OSError:
        return False
    return any(line.startswith("opencl:0 ") for line in proc.stdout.splitlines())


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        epilog="Exit 0: all match; 1: a mismatch or failure; 77: PyTorch is not installed.")
    parser.add_argument("--switchyard",
                        default=os.path.join(root, "build", "release", "bin", "switchyard"),
                        help="the switchyard binary (default: build/release/bin/switchyard)")
    parser.add_argument("--work", help="folder for the .onnx, imported models and outputs "
                        "(default: a temporary folder, removed on success)")
    parser.add_argument("--device", action="append",
                        help="device to run on; repeatable or a comma list (default: cpu, "
                        "cpu-ref, and opencl:0 when `switchyard devices` lists it)")
    parser.add_argument("--only", action="append",
                        help="only these models (repeatable or a comma list): " + ", ".join(ZOO))
    parser.add_argument("--list", action="store_true", help="list the models and exit")
    parser.add_argument("--opset", type=int, default=17,
                        help="ONNX opset for torch.onnx.export (default 17)")
    parser.add_argument("--export-only", action="store_true",
                        help="stop after exporting (no switchyard)")
    parser.add_argument("--table", action="store_true",
                        help="end with a Markdown table of the results (docs/pytorch.md)")
    parser.add_argument("--rtol", type=float, default=1e-3, help="default 1e-3")
    parser.add_argument("--atol", type=float, default=1e-5, help="default 1e-5")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")
    args = parser.parse_args()

    def split(items):
        return [x for item in items or [] for x in item.split(",") if x]

    if args.list:
        for name, (_, what) in ZOO.items():
            print("%-17s %s" % (name, what))
        return 0
    names = split(args.only) or list(ZOO)
    unknown = [n for n in names if n not in ZOO]
    if unknown:
        parser.error("unknown model %s (known: %s)" % (", ".join(unknown), ", ".join(ZOO)))
    devices = split(args.device)
    if not args.export_only:
        if not os.path.exists(args.switchyard):
            print("error: no switchyard binary at %s (build it, or pass --switchyard PATH)"
                  % args.switchyard)
            return 1
        try:
            if not rt.has_import_command(args.switchyard):
                print("error: %s has no `import` command" % args.switchyard)
                return 1
        except rt.Failure as e:
            print("error: %s" % e)
            return 1
        if not devices:
            devices = ["cpu", "cpu-ref"] + (["opencl:0"] if opencl_listed(args.switchyard)
                                            else [])
    temporary = args.work is None
    args.work = os.path.abspath(args.work or tempfile.mkdtemp(prefix="sy-pytorch-zoo-"))
    os.makedirs(args.work, exist_ok=True)
    torch.set_num_threads(1)
    print("PyTorch %s (%s), NumPy %s; opset %d; devices %s; work folder %s" % (
        torch.__version__, sys.executable, np.__version__, args.opset,
        ", ".join(devices) or "none", args.work), flush=True)

    results, failed = {}, []
    for name in names:
        result = results[name] = {"status": "error", "diffs": {}}
        try:
            ok = check_model(name, args, devices, result)
        except rt.Failure as e:
            print("  FAILED: %s" % e)
            ok = False
        except Exception as e:  # a torch export error, a bad file: report, go on
            print("  FAILED: %s: %s" % (type(e).__name__, e))
            result.setdefault("error", "%s: %s" % (type(e).__name__, e))
            ok = False
        if not ok:
            failed.append(name)
        sys.stdout.flush()

    print("\nsummary:")
    for name in names:
        r = results[name]
        line = "  %-17s %s" % (name, r["status"])
        for d, diffs in r["diffs"].items():
            line += "; %s: %s" % (d, ", ".join("%s %s" % (n, fmt(v)) for n, v in diffs.items()))
        print(line)
        if r.get("error"):
            print("    error: " + r["error"].replace("\n", "\n           "))
            if r.get("ops"):
                print("    ONNX ops: " + r["ops"])
    if args.table:
        print("\n" + summary_table(names, results, devices))
    what = "export" if args.export_only else "on " + ", ".join(devices)
    print("%d of %d zoo models match (%s)%s" % (
        len(names) - len(failed), len(names), what,
        "; failed: " + ", ".join(failed) if failed else ""))
    if temporary and not failed and not args.keep:
        shutil.rmtree(args.work, ignore_errors=True)
    elif temporary:
        print("kept %s" % args.work)
    return 0 if not failed else 1


if __name__ == "__main__":
    sys.exit(main())
