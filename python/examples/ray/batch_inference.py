#!/usr/bin/env python3
"""Batch inference with Ray Data and Switchyard (docs/python.md, "Ray").

Each Ray actor holds one Switchyard session, made once when the actor starts, on the
device chosen where that actor runs (a GPU Ray assigned it, else the CPU); Ray Data feeds
it batches of rows through map_batches. On any Ray cluster (one machine, or many joined
with `ray start`):

    python python/examples/ray/batch_inference.py --address auto --workers 2 --rows 100000

prints the throughput and checks the results against a run in this process.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

MODEL = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..",
                                     "examples", "mlp"))


def choose_device(device: str = "auto") -> str:
    """`device` as given, or for "auto": the CUDA device of the GPU Ray gave this worker,
    else the first OpenCL GPU when SWITCHYARD_RAY_OPENCL=1, else the CPU."""
    if device != "auto":
        return device
    import switchyard

    specs = {d["spec"]: d for d in switchyard.devices()}
    try:
        import ray

        gpus = ray.get_gpu_ids()
    except Exception:  # noqa: BLE001 - outside a Ray worker
        gpus = []
    for gpu in gpus:
        if f"cuda:{int(gpu)}" in specs:
            return f"cuda:{int(gpu)}"
    if os.environ.get("SWITCHYARD_RAY_OPENCL") == "1":
        for spec, d in specs.items():
            if spec.startswith("opencl") and d["kind"] in ("gpu", "igpu"):
                return spec
    return "cpu"


class SwitchyardPredictor:
    """A callable for map_batches: {"data": rows} -> {"output": rows, "worker": pid}.

    Models whose first input has a fixed batch (examples/mlp: x f32 [2, 12]) get the rows
    in chunks of it, the last one padded; a run-time batch takes the rows at once."""

    def __init__(self, model: str = MODEL, device: str = "auto", threads: int = 1) -> None:
        import switchyard

        self.device = choose_device(device)
        self.session = switchyard.Session(model, self.device, threads=threads)
        self.input = self.session.input_names[0]
        self.output = self.session.output_names[0]
        dtype, shape = self.session.input_types[self.input]
        self.batch = shape[0]
        self.dtype = np.dtype({"f32": "float32", "f64": "float64", "f16": "float16",
                               "i64": "int64", "i32": "int32"}[dtype])

    def predict(self, rows: np.ndarray) -> np.ndarray:
        rows = np.ascontiguousarray(rows, dtype=self.dtype)
        if self.batch is None:
            return self.session.run({self.input: rows})[self.output]
        n, b = len(rows), self.batch
        padded = rows
        if n % b:
            padded = np.concatenate([rows, np.zeros((b - n % b, *rows.shape[1:]), rows.dtype)])
        outs = [self.session.run({self.input: padded[i:i + b]})[self.output]
                for i in range(0, len(padded), b)]
        return np.concatenate(outs)[:n]

    def __call__(self, batch: dict) -> dict:
        out = self.predict(batch["data"])
        return {"output": out, "worker": np.full(len(out), os.getpid(), np.int64)}


def make_rows(rows: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).uniform(-1, 1, (rows, 12)).astype(np.float32)


def run_job(x: np.ndarray, workers: int, model: str = MODEL, device: str = "auto",
            batch_size: int = 1024):
    """The rows through Ray Data with `workers` actors; returns (outputs in row order,
    the pids of the actors that ran, seconds)."""
    import ray

    context = ray.data.DataContext.get_current()
    context.execution_options.preserve_order = True
    blocks = max(4 * workers, 8)
    ds = ray.data.from_numpy(np.array_split(x, blocks))
    start = time.perf_counter()
    out = ds.map_batches(SwitchyardPredictor, fn_constructor_kwargs={"model": model,
                                                                      "device": device},
                         concurrency=workers, num_cpus=1, batch_size=batch_size,
                         batch_format="numpy")
    rows = out.take_all()
    seconds = time.perf_counter() - start
    outputs = np.stack([r["output"] for r in rows])
    pids = sorted({int(r["worker"]) for r in rows})
    return outputs, pids, seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--address", default=None, help="Ray cluster address (auto: running)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--rows", type=int, default=100000)
    parser.add_argument("--model", default=MODEL)
    parser.add_argument("--device", default="auto")
    args = parser.parse_args()
    import ray

    ray.init(address=args.address)
    x = make_rows(args.rows)
    outputs, pids, seconds = run_job(x, args.workers, args.model, args.device)
    reference = SwitchyardPredictor(args.model, args.device).predict(x)
    same = np.array_equal(outputs, reference)
    print(f"{args.rows} rows on {len(pids)} workers in {seconds:.2f} s: "
          f"{args.rows / seconds:.0f} rows/s; equal to a single-process run: {same}")


if __name__ == "__main__":
    main()
