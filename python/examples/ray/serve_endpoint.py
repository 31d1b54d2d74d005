#!/usr/bin/env python3
"""An online endpoint with Ray Serve and Switchyard (docs/python.md, "Ray").

Each replica holds one Switchyard session; a request is JSON {"inputs": {name: nested
lists}} and the answer {"outputs": {name: nested lists}}. Runs are made on a thread
(the session releases the GIL), so the replica's event loop keeps serving meanwhile.

    python python/examples/ray/serve_endpoint.py --address auto --port 8000
    curl -s -X POST localhost:8000/ -d '{"inputs": {"x": [[0.1, ...12 numbers], [...]]}}'
"""

from __future__ import annotations

import argparse
import asyncio
import os

import numpy as np
from ray import serve

from batch_inference import MODEL, choose_device

_NUMPY = {"f32": np.float32, "f64": np.float64, "f16": np.float16, "i64": np.int64,
          "i32": np.int32, "i8": np.int8, "u8": np.uint8, "bool": np.bool_}


@serve.deployment(ray_actor_options={"num_cpus": 1})
class SwitchyardEndpoint:
    def __init__(self, model: str = MODEL, device: str = "auto") -> None:
        import switchyard

        self.session = switchyard.Session(model, choose_device(device), threads=1)
        self.types = self.session.input_types

    async def __call__(self, request) -> dict:
        body = await request.json()
        inputs = {name: np.asarray(value, dtype=_NUMPY[self.types[name][0]])
                  for name, value in body["inputs"].items() if name in self.types}
        try:
            outputs = await asyncio.to_thread(self.session.run, inputs)
        except Exception as e:  # noqa: BLE001 - the runtime's message goes to the client
            return {"error": str(e)}
        return {"outputs": {name: value.tolist() for name, value in outputs.items()}}


def app(model: str = MODEL, device: str = "auto"):
    return SwitchyardEndpoint.bind(model, device)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--address", default=None)
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--model", default=MODEL)
    args = parser.parse_args()
    import ray

    ray.init(address=args.address)
    serve.start(http_options={"host": "127.0.0.1", "port": args.port})
    serve.run(app(os.path.abspath(args.model)), route_prefix="/", blocking=True)


if __name__ == "__main__":
    main()
