"""The GIL is released while a session runs: two sessions run at the same time on two
threads, and one session called from several threads takes turns (docs/python.md,
"Threads")."""

import threading
import time

import numpy as np
import pytest

import switchyard

MATMUL = """{{
  "format": "rml-graph", "version": 1,
  "values": [{{"name": "a", "dtype": "f32", "shape": [{n}, {n}]}},
             {{"name": "b", "dtype": "f32", "shape": [{n}, {n}]}},
             {{"name": "c", "dtype": "f32", "shape": [{n}, {n}]}},
             {{"name": "d", "dtype": "f32", "shape": [{n}, {n}]}}],
  "inputs": [0, 1], "outputs": [3],
  "nodes": [{{"op": "matmul", "inputs": [0, 1], "outputs": [2], "name": "mm1"}},
            {{"op": "matmul", "inputs": [2, 1], "outputs": [3], "name": "mm2"}}]
}}"""


@pytest.fixture(scope="module")
def slow_model(tmp_path_factory):
    """Two chained matmuls, big enough that a run takes tens of milliseconds on cpu-ref."""
    path = tmp_path_factory.mktemp("slow") / "matmul.json"
    path.write_text(MATMUL.format(n=256))
    return path


def inputs(n=256):
    rng = np.random.default_rng(0)
    return {"a": rng.standard_normal((n, n), dtype=np.float32),
            "b": rng.standard_normal((n, n), dtype=np.float32) / n}


def test_two_sessions_overlap_inside_the_runtime(slow_model):
    # Each session records when its run was inside the runtime (monotonic ns). With the
    # GIL held across a run, two runs could never be inside at once; released, the two
    # threads' runs overlap. Runs of tens of ms each, started together, make it certain.
    sessions = [switchyard.Session(slow_model, "cpu-ref", threads=1) for _ in range(2)]
    data = inputs()
    spans = [[], []]
    barrier = threading.Barrier(2)

    def work(k):
        barrier.wait()
        for _ in range(3):
            sessions[k].run(data)
            spans[k].append(sessions[k].last_run_span)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert all(len(s) == 3 for s in spans)
    overlap = max(min(a[1], b[1]) - max(a[0], b[0]) for a in spans[0] for b in spans[1])
    assert overlap > 0, f"no two runs were inside the runtime together: {spans}"


def test_python_thread_progresses_while_a_run_is_inside(slow_model):
    # One thread runs; the other counts while the run is inside the runtime (between the
    # span's ends). A held GIL would freeze the counter for the whole run.
    session = switchyard.Session(slow_model, "cpu-ref", threads=1)
    data = inputs()
    session.run(data)
    ticks = []
    done = threading.Event()

    def count():
        while not done.is_set():
            ticks.append(time.monotonic_ns())
            time.sleep(0.0005)

    counter = threading.Thread(target=count)
    counter.start()
    try:
        time.sleep(0.01)
        session.run(data)
        start, end = session.last_run_span
    finally:
        done.set()
        counter.join()
    inside = [t for t in ticks if start < t < end]
    assert end - start > 5_000_000, "the run was too short to tell"
    assert len(inside) >= 3, f"{len(inside)} ticks inside a run of {(end - start) / 1e6:.1f} ms"


def test_one_session_from_many_threads_takes_turns(root):
    session = switchyard.Session(root / "examples/mlp", "cpu")
    x = np.load(root / "examples/mlp/inputs/x.npy")
    expected = np.load(root / "examples/mlp/expected/y.npy")
    errors = []

    def work():
        try:
            for _ in range(200):
                np.testing.assert_allclose(session.run({"x": x})["y"], expected, rtol=1e-4,
                                           atol=1e-4)
                session.plan  # reads the plan while others run
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not errors
    assert session.stats["inputs_in_place"] == 800
