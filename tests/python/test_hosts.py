"""Plugin hosts' lifetime (python/switchyard/__init__.py, _host): a host is shared by the
sessions made with the same plugin options and goes with the last of them, taking the
worker processes of its isolated plugins along (docs/python.md)."""

import gc
import os

import numpy as np

import switchyard


def worker_pids() -> set:
    """This process's children that are plugin workers (switchyard-plugin-worker), reaped
    or not: a zombie counts, since only its host's end reaps it."""
    me = os.getpid()
    pids = set()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                stat = f.read()
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                cmdline = f.read()
        except OSError:
            continue  # gone meanwhile
        # "pid (comm) state ppid ...": comm may hold spaces and parentheses.
        comm = stat[stat.index("(") + 1:stat.rindex(")")]
        state, ppid = stat[stat.rindex(")") + 2:].split()[:2]
        if int(ppid) != me or not comm.startswith("switchyard-plug"):
            continue  # comm is cut at 15 characters: the probe's and the worker's agree
        if b"switchyard-plugin-worker" in cmdline or state == "Z":
            pids.add(int(entry))
    return pids


def test_isolated_session_leaves_no_worker(root):
    gc.collect()
    before = worker_pids()
    # threads=3: plugin options no other test uses, so this test's host is its own.
    session = switchyard.Session(root / "examples/mlp", "cpu", isolate="cpu", threads=3)
    y = session.run({"x": np.load(root / "examples/mlp/inputs/x.npy")})["y"]
    np.testing.assert_allclose(y, np.load(root / "examples/mlp/expected/y.npy"), rtol=1e-4,
                               atol=1e-4)
    started = worker_pids() - before
    assert len(started) == 1, f"expected one cpu worker, found {sorted(started)}"
    del session, y
    gc.collect()
    left = worker_pids() & started
    assert not left, f"worker {sorted(left)} outlived its last session"


def test_host_shared_while_a_session_lives(root):
    a = switchyard.Session(root / "examples/mlp", "cpu", threads=3)
    b = switchyard.Session(root / "examples/cnn", "cpu", threads=3)
    assert a._host is b._host
    host = a._host
    del a, host
    gc.collect()
    # b still holds it: the next session with these options reuses it.
    c = switchyard.Session(root / "examples/mlp", "cpu", threads=3)
    assert c._host is b._host
    del b, c
    gc.collect()
    assert (3, (), 0.0, ()) not in switchyard._hosts


def test_device_tensor_keeps_its_host(root):
    """A device tensor holds its host: its buffer's plugin (and worker) outlive the
    session that made it."""
    gc.collect()
    before = worker_pids()
    s = switchyard.Session(root / "examples/mlp", "cpu", isolate="cpu", threads=3)
    x = np.load(root / "examples/mlp/inputs/x.npy")
    on_device = s.to_device(x)
    started = worker_pids() - before
    del s
    gc.collect()
    assert worker_pids() & started == started
    np.testing.assert_array_equal(on_device.numpy(), x)
    del on_device
    gc.collect()
    assert not worker_pids() & started
