"""One Ray driver for test_ray.py, run as its own process: `ray_driver.py ADDRESS batch|serve`.

Why a process of its own: Ray Data and Serve leave threads in their driver that may still
call into Ray's core worker after `ray.shutdown()`, and Ray then ends the whole process
with status 1 ("The core worker has already been shutdown ... The process will exit"),
however the test went. The driver prints its findings as one JSON line starting with
RESULT, then leaves with os._exit(0) without shutting Ray down (the cluster is the test's
and goes with it), so a passed job can no longer turn into a failed test, and a failed
one is reported by what it printed, not by how Ray left.
"""

import json
import os
import pathlib
import sys
import traceback
import urllib.request

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python" / "examples" / "ray"))


def batch():
    import batch_inference

    x = batch_inference.make_rows(200000)
    reference = batch_inference.SwitchyardPredictor(device="cpu").predict(x)
    runs = []
    for workers in (1, 2):
        outputs, pids, seconds = batch_inference.run_job(x, workers, device="cpu")
        runs.append({"workers": workers, "rows": len(x), "seconds": seconds,
                     "distinct_pids": len(pids),
                     "equal": bool(outputs.shape == reference.shape and
                                   np.array_equal(outputs, reference))})
    return {"runs": runs}


def serve_endpoint(port):
    from ray import serve

    import serve_endpoint as endpoint

    serve.start(http_options={"host": "127.0.0.1", "port": port})
    try:
        serve.run(endpoint.app(device="cpu"), route_prefix="/")

        def post(inputs):
            request = urllib.request.Request(f"http://127.0.0.1:{port}/",
                                             data=json.dumps({"inputs": inputs}).encode(),
                                             method="POST")
            with urllib.request.urlopen(request, timeout=60) as answer:
                return json.loads(answer.read())

        x = np.load(ROOT / "examples/mlp/inputs/x.npy")
        return {"good": post({"x": x.tolist()}), "bad": post({"x": [[1.0]]})}
    finally:
        serve.shutdown()


def main():
    address, job = sys.argv[1], sys.argv[2]
    try:
        import ray

        ray.init(address=address, logging_level="ERROR", log_to_driver=False)
        result = batch() if job == "batch" else serve_endpoint(int(sys.argv[3]))
        line = "RESULT " + json.dumps(result)
    except Exception:  # noqa: BLE001 - reported to the test, which fails with it
        line = "RESULT " + json.dumps({"error": traceback.format_exc()})
    sys.stdout.write(line + "\n")
    sys.stdout.flush()
    os._exit(0)


if __name__ == "__main__":
    main()
