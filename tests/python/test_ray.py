"""Switchyard on a Ray cluster of this machine (docs/python.md, "Ray").

Starts a head and two worker nodes on 127.0.0.1 with `ray start --block`, each in its own
session (setsid), on free ports and a temporary folder of their own, so that nothing of
another Ray on this machine is touched; runs python/examples/ray's batch job with 1 and 2
workers, checks the results equal a single-process run and prints the throughput per
worker count; then ends the processes it started, by their session, whatever happened.
Every wait is bounded. Then the Ray Serve endpoint on the same cluster: a request answered
with the expected output, a bad one with the runtime's message (SY_TEST_RAY_SERVE=0 leaves
it out: about 20 s of the test's 60 on 2 cores). The jobs run in drivers of their own
(ray_driver.py says why); this process only starts the nodes and waits for them.
"""

import json
import os
import pathlib
import signal
import socket
import subprocess
import sys
import tempfile
import time

import numpy as np
import pytest

ray = pytest.importorskip("ray")
pytest.importorskip("ray.data")

ROOT = pathlib.Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "python" / "examples" / "ray"

RAY = [sys.executable, "-c", "import sys; from ray.scripts.scripts import main; sys.exit(main())"]
START_SECONDS = 180


def free_ports(n):
    sockets = [socket.socket() for _ in range(n)]
    for s in sockets:
        s.bind(("127.0.0.1", 0))
    ports = [s.getsockname()[1] for s in sockets]
    for s in sockets:
        s.close()
    return ports


def node_ports():
    names = ["--node-manager-port", "--object-manager-port", "--metrics-export-port",
             "--dashboard-agent-listen-port", "--dashboard-agent-grpc-port",
             "--runtime-env-agent-port"]
    return [f"{name}={port}" for name, port in zip(names, free_ports(len(names)))]


def session_pids(sid):
    """Every process in session `sid` (what a `ray start` started, however deep)."""
    pids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = pathlib.Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        if int(fields[3]) == sid:  # field 6 of stat: the session id
            pids.append(int(entry))
    return pids


def stop(processes):
    for sig in (signal.SIGTERM, signal.SIGKILL):
        for p in processes:
            for pid in session_pids(p.pid):
                try:
                    os.kill(pid, sig)
                except ProcessLookupError:
                    pass
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and any(session_pids(p.pid) for p in processes):
            time.sleep(0.2)
    for p in processes:
        try:
            p.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass


@pytest.fixture(scope="module")
def cluster():
    temp = tempfile.mkdtemp(prefix="syray")
    gcs_port, client_port = free_ports(2)
    address = f"127.0.0.1:{gcs_port}"
    env = dict(os.environ, RAY_USAGE_STATS_ENABLED="0", RAY_DISABLE_DOCKER_CPU_WARNING="1",
               RAY_raylet_start_wait_time_s="120")
    # The package the tests import (the build tree's, or the installed one) and the example
    # module (SwitchyardPredictor is pickled by reference) in every worker.
    import switchyard

    env["PYTHONPATH"] = os.pathsep.join(
        [str(pathlib.Path(switchyard.__file__).parents[1]), str(EXAMPLES),
         env.get("PYTHONPATH", "")])
    logs = open(os.path.join(temp, "nodes.log"), "w")
    processes = []

    def start(args):
        processes.append(subprocess.Popen(RAY + ["start", "--block", "--node-ip-address=127.0.0.1",
                                                 "--disable-usage-stats", *node_ports(), *args],
                                          env=env, stdout=logs, stderr=subprocess.STDOUT,
                                          start_new_session=True))

    deadline = time.monotonic() + START_SECONDS

    def wait_for(what, ready):
        while not ready():
            if any(p.poll() is not None for p in processes):
                logs.flush()
                raise RuntimeError(f"a ray node exited while waiting for {what}:\n" +
                                   pathlib.Path(logs.name).read_text()[-4000:])
            if time.monotonic() > deadline:
                logs.flush()
                raise RuntimeError(f"no {what} after {START_SECONDS} s:\n" +
                                   pathlib.Path(logs.name).read_text()[-4000:])
            time.sleep(0.5)

    def gcs_listening():
        with socket.socket() as s:
            return s.connect_ex(("127.0.0.1", gcs_port)) == 0

    try:
        # One node at a time: on a loaded machine, nodes started together can miss their
        # registration deadline.
        start(["--head", f"--port={gcs_port}", f"--ray-client-server-port={client_port}",
               "--num-cpus=0", "--include-dashboard=false", f"--temp-dir={temp}"])
        wait_for("head", gcs_listening)
        ray.init(address=address, logging_level="ERROR", log_to_driver=False)
        for k in range(2):
            start([f"--address={address}", "--num-cpus=1"])
            wait_for(f"worker node {k + 1}",
                     lambda: len([n for n in ray.nodes() if n["Alive"]]) == k + 2)
        yield address, env
    finally:
        try:
            ray.shutdown()
        finally:
            stop(processes)
            logs.close()
            subprocess.run(["rm", "-rf", temp], check=False)


DRIVER = pathlib.Path(__file__).resolve().parent / "ray_driver.py"
DRIVER_SECONDS = 400


def run_driver(cluster, *args):
    """Runs ray_driver.py on the cluster in a process of its own; returns what it found."""
    address, env = cluster
    try:
        done = subprocess.run([sys.executable, str(DRIVER), address, *args], env=env,
                              capture_output=True, text=True, timeout=DRIVER_SECONDS)
    except subprocess.TimeoutExpired as e:
        raise AssertionError(f"the Ray driver ({' '.join(args)}) did not finish within "
                             f"{DRIVER_SECONDS} s:\n{e.stdout}\n{e.stderr}") from e
    lines = [line for line in done.stdout.splitlines() if line.startswith("RESULT ")]
    assert lines, (f"the Ray driver ({' '.join(args)}) exited with {done.returncode} and no "
                   f"result:\n{done.stdout[-4000:]}\n{done.stderr[-4000:]}")
    result = json.loads(lines[-1][len("RESULT "):])
    assert "error" not in result, result["error"]
    return result


def test_batch_job_on_one_and_two_workers(cluster):
    rates = {}
    for run in run_driver(cluster, "batch")["runs"]:
        workers = run["workers"]
        assert run["equal"], f"{workers} worker(s): outputs differ from a single-process run"
        assert run["distinct_pids"] == workers, run
        rates[workers] = run["rows"] / run["seconds"]
        print(f"\nray batch: {run['rows']} rows, {workers} worker(s): {run['seconds']:.2f} s, "
              f"{rates[workers]:.0f} rows/s")
    print(f"ray batch: 2 workers / 1 worker: {rates[2] / rates[1]:.2f}x")


@pytest.mark.skipif(os.environ.get("SY_TEST_RAY_SERVE") == "0",
                    reason="Ray Serve left out (SY_TEST_RAY_SERVE=0)")
def test_serve_endpoint(cluster):
    result = run_driver(cluster, "serve", str(free_ports(1)[0]))
    assert "outputs" in result["good"], result["good"]
    np.testing.assert_allclose(np.array(result["good"]["outputs"]["y"], np.float32),
                               np.load(ROOT / "examples/mlp/expected/y.npy"), rtol=1e-4,
                               atol=1e-4)
    assert 'input "x" is f32 [1, 1]' in result["bad"]["error"]
