"""Lifecycle of the graph: released after backward, no reference cycles, flat memory, depth.

The graph is released by reference counting alone: closures capture arrays, never Tensors, and
``backward()`` drops each node's ``_prev`` and ``_backward`` (unless ``retain_graph=True``). The
garbage collector is switched off in these tests so that a reference cycle shows up as a leak
instead of being cleaned up later (and rescanning the whole graph on the way).
"""

from __future__ import annotations

import gc
import sys
import tracemalloc
import weakref

import numpy as np
import pytest

import minitorch as mt


@pytest.fixture
def no_gc():
    """Only reference counting frees memory while the test runs."""
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def small_graph():
    """x -> h = x * 2 -> e = exp(h) -> loss = sum(e), and weakrefs to the intermediates."""
    x = mt.Tensor(np.linspace(-1.0, 1.0, 6).reshape(2, 3), requires_grad=True)
    h = x * 2.0
    e = h.exp()
    loss = e.sum()
    refs = {"h": weakref.ref(h), "e": weakref.ref(e), "e.data": weakref.ref(e.data)}
    return x, loss, refs


def alive(refs):
    return sorted(name for name, ref in refs.items() if ref() is not None)


def test_backward_releases_the_graph(no_gc):
    x, loss, refs = small_graph()
    assert alive(refs) == ["e", "e.data", "h"], "the graph keeps the intermediates alive"
    loss.backward()
    assert alive(refs) == [], (
        "after loss.backward() the intermediate tensors are still alive although only `loss` "
        "and `x` are held: backward() must drop each node's _prev and _backward"
    )
    np.testing.assert_allclose(x.grad, 2.0 * np.exp(2.0 * x.data))


def test_retain_graph_keeps_it(no_gc):
    x, loss, refs = small_graph()
    loss.backward(retain_graph=True)
    assert alive(refs) == ["e", "e.data", "h"]
    loss.backward()  # the second pass may free it
    assert alive(refs) == []


def test_no_reference_cycles(no_gc):
    """Dropping the last reference to an un-differentiated graph frees it at once."""
    x, loss, refs = small_graph()
    del loss
    assert alive(refs) == [], (
        "a graph nobody references is still alive with the garbage collector off: there is a "
        "reference cycle (does a _backward closure capture a Tensor, e.g. `out`, instead of arrays?)"
    )


def toy_mlp(rng):
    """The chapter's toy MLP, 23 -> 64 -> 5 with tanh, on a full batch of 600."""
    X = mt.Tensor(rng.standard_normal((600, 23)))
    targets = rng.integers(0, 5, 600)
    params = [
        mt.Tensor(rng.standard_normal((23, 64)) / np.sqrt(23), requires_grad=True),
        mt.Tensor(np.zeros(64), requires_grad=True),
        mt.Tensor(rng.standard_normal((64, 5)) / 8.0, requires_grad=True),
        mt.Tensor(np.zeros(5), requires_grad=True),
    ]
    W1, b1, W2, b2 = params

    def step():
        loss = mt.cross_entropy((X @ W1 + b1).tanh() @ W2 + b2, targets)
        loss.backward()
        for p in params:
            p.data -= 0.1 * p.grad
            p.zero_grad()
        return loss.item()

    return step


def test_memory_is_flat_over_1000_training_steps(no_gc):
    step = toy_mlp(np.random.default_rng(0))
    tracemalloc.start()
    try:
        for _ in range(100):
            first_loss = step()
        early, _ = tracemalloc.get_traced_memory()
        tracemalloc.reset_peak()
        for _ in range(900):
            last_loss = step()
        late, late_peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert last_loss < first_loss, "the MLP did not train"
    growth = late - early
    assert growth < 64 * 1024, (
        f"traced memory grew by {growth / 1024:.0f} KiB between step 100 and step 1000 "
        f"({growth / 900:.0f} bytes per step): something keeps each step's graph alive"
    )
    # One step's graph holds a few (600, 64) arrays (~300 KiB each); a leak would pile them up.
    assert late_peak < early + 8 * 1024 * 1024, f"peak {late_peak / 2**20:.1f} MiB"


def test_memory_is_flat_with_the_collector_on_and_cyclic_garbage_each_step():
    """backward() pauses the cyclic collector while it runs (issue 32): cycles the learner's
    own code makes around it (here 1,000 objects and a 128 KiB array per step, enough for
    Python's collector to run by itself) are still collected."""
    assert gc.isenabled()
    step = toy_mlp(np.random.default_rng(1))

    def step_with_a_cycle():
        junk = [np.ones(16 * 1024)] + [{} for _ in range(1000)]
        junk.append(junk)  # only the cyclic collector can free this
        return step()

    tracemalloc.start()
    try:
        for _ in range(50):
            step_with_a_cycle()
        early, _ = tracemalloc.get_traced_memory()
        for _ in range(300):
            step_with_a_cycle()
        late, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert gc.isenabled()
    assert late - early < 32 * 1024 * 1024, (
        f"traced memory grew by {(late - early) / 2**20:.0f} MiB over 300 steps: the cyclic "
        "garbage made between backward() calls is not collected")


def test_100k_op_chain_at_the_default_recursion_limit():
    """Topological sort and backward must be iterative: 100,000 ops at recursion limit 1000."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(1000)  # Python's default, whatever the test runner set
    try:
        x = mt.Tensor(np.linspace(0.5, 2.0, 4), requires_grad=True)
        c = mt.Tensor(np.full(4, 0.25), requires_grad=True)
        one = mt.Tensor(np.ones(4))
        h = x
        for _ in range(50_000):  # 100,000 ops
            h = (h + c) * one
        loss = h.sum()
        loss.backward()
    finally:
        sys.setrecursionlimit(limit)
    np.testing.assert_array_equal(x.grad, np.ones(4))
    np.testing.assert_array_equal(c.grad, np.full(4, 50_000.0))
    np.testing.assert_allclose(loss.item(), (x.data + 50_000 * 0.25).sum())
