#!/usr/bin/env python3
"""Python's per-run overhead over the C++ session, for examples/mlp on `cpu`
(docs/performance.md, "Python").

Alternates rounds of the C++ side (sy_session_benchmark's BM_MlpRun: Session::Run with
the bundled input, one plugin thread) and the Python side (switchyard.Session.run on the
same model, input and thread count, timed over a loop), and prints each side's median
per run and the difference: what the module adds (dict in, arrays wrapped in place,
GIL released and taken again, NumPy arrays out).

    PYTHONPATH=build/release/python build/venv/bin/python benchmarks/python_overhead.py \\
        --benchmark build/release/bin/sy_session_benchmark
"""

import argparse
import json
import os
import pathlib
import statistics
import subprocess
import time

import numpy as np

import switchyard

ROOT = pathlib.Path(__file__).resolve().parents[1]
MLP = ROOT / "examples" / "mlp"


def cpp_round(benchmark: str) -> float:
    out = subprocess.run([benchmark, "--benchmark_filter=BM_MlpRun$", "--benchmark_format=json",
                          "--benchmark_min_time=0.5"], capture_output=True, text=True,
                         check=True, env=dict(os.environ, OPENBLAS_NUM_THREADS="1",
                                              OMP_NUM_THREADS="1")).stdout
    row = json.loads(out)["benchmarks"][0]
    scale = {"ns": 1e-3, "us": 1.0, "ms": 1e3}[row["time_unit"]]
    return row["real_time"] * scale


def python_round(session, inputs, runs: int) -> float:
    run = session.run
    start = time.perf_counter()
    for _ in range(runs):
        run(inputs)
    return (time.perf_counter() - start) / runs * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--benchmark", required=True, help="path to sy_session_benchmark")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--runs", type=int, default=50000, help="Python runs per round")
    args = parser.parse_args()
    session = switchyard.Session(MLP, "cpu", threads=1)
    inputs = {"x": np.load(MLP / "inputs" / "x.npy")}
    python_round(session, inputs, 2000)  # warm up
    cpp, py = [], []
    for _ in range(args.rounds):
        cpp.append(cpp_round(args.benchmark))
        py.append(python_round(session, inputs, args.runs))
    c, p = statistics.median(cpp), statistics.median(py)
    print("C++ Session::Run (BM_MlpRun) per run, us:", " ".join(f"{v:.2f}" for v in cpp))
    print("Python Session.run per run, us:          ", " ".join(f"{v:.2f}" for v in py))
    print(f"median: C++ {c:.2f} us, Python {p:.2f} us: Python adds {p - c:.2f} us a run "
          f"({p / c:.2f}x); inputs in place: {session.stats['inputs_in_place']}, "
          f"copied by Python: {session.stats['inputs_copied_by_python']}")


if __name__ == "__main__":
    main()
