"""benchmarks/harness without a GPU: time_pair with CUDA events replaced
by a clock that each call advances, so the pairing and the ratios are
checked; row_result's bracket of a row (error recorded, run goes on)."""
import os
import sys
import types

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "benchmarks"))

import harness  # noqa: E402


class FakeCuda:
    """torch.cuda's events, sleep and synchronize over a clock in ms."""

    def __init__(self):
        self.now = 0.0
        fake = self

        class Event:
            def __init__(self, enable_timing=False):
                self.t = None

            def record(self):
                self.t = fake.now

            def elapsed_time(self, end):
                return end.t - self.t

        self.Event = Event

    def _sleep(self, cycles):
        pass

    def synchronize(self):
        pass


def test_time_pair_alternates_and_takes_the_median_of_per_pair_ratios(monkeypatch):
    import torch
    cuda = FakeCuda()
    monkeypatch.setattr(torch, "cuda", types.SimpleNamespace(
        Event=cuda.Event, _sleep=cuda._sleep, synchronize=cuda.synchronize))
    order = []
    # the card's clock drifts: the k-th call of either side takes longer,
    # but within a pair b stays 1.5x a
    def side(name, base):
        def call():
            order.append(name)
            cuda.now += base * (1 + 0.01 * len(order))
        return call
    a_ms, b_ms, ratio = harness.time_pair([side("a", 2.0)], [side("b", 3.0)], 20,
                                          warmup_calls=1, warmup_s=0)
    timed = order[-40:]
    assert timed == ["a", "b"] * 20                     # call by call, in turn
    assert abs(ratio - 1.5) < 0.02
    assert a_ms < b_ms


def _reuse_gaps(order):
    """Per side, the fewest other sets that ran between two uses of a set."""
    calls = [c for pair in order for c in pair]
    last, gaps = {}, {"a": [], "b": []}
    for k, (side, s) in enumerate(calls):
        if s in last and k > 40:
            gaps[side].append(len({x for _, x in calls[last[s] + 1:k]}))
        last[s] = k
    return min(gaps["a"]), min(gaps["b"])


def test_pairs_over_the_same_sets_leave_neither_side_a_warm_l2():
    """b never runs right after a on a's set (it used to: each b call found
    its inputs in L2), and as many other sets pass between two uses of a
    set for either side, for odd and even numbers of sets."""
    for n in range(2, 9):
        order = harness.pair_order(n, n, 64)
        gap_a, gap_b = _reuse_gaps(order)
        assert gap_a == gap_b >= max(1, n // 2), (n, gap_a, gap_b)
        assert all(first[1] != second[1] for first, second in order)
        assert sorted(x for pair in order[:n] for side, x in pair if side == "b") == \
            list(range(n))                               # b still rotates over every set
    # sets of their own (different inputs): in turn, a first
    assert harness.pair_order(2, 3, 4) == [[("a", 0), ("b", 0)], [("a", 1), ("b", 1)],
                                            [("a", 0), ("b", 2)], [("a", 1), ("b", 0)]]


def test_time_pair_over_several_sets_matches_each_call_with_its_side(monkeypatch):
    import torch
    cuda = FakeCuda()
    monkeypatch.setattr(torch, "cuda", types.SimpleNamespace(
        Event=cuda.Event, _sleep=cuda._sleep, synchronize=cuda.synchronize))

    def side(base):
        def call():
            cuda.now += base
        return call
    # set i of a takes 1 + i ms, of b 2 (1 + i) ms: whatever the order in a
    # pair, each pair's ratio is b's time over a's
    a_ms, b_ms, ratio = harness.time_pair([side(1 + i) for i in range(4)],
                                          [side(2 * (1 + i)) for i in range(4)], 40,
                                          warmup_calls=1, warmup_s=0)
    assert (a_ms, b_ms) == (2.5, 5.0)
    # b runs on the set two ahead of a's: per pair 2 (1 + i + 2 mod 4) / (1 + i)
    ratios = sorted(2 * (1 + (i + 2) % 4) / (1 + i) for i in range(4))
    assert ratio == (ratios[1] + ratios[2]) / 2


def test_row_result_records_an_error_and_goes_on(monkeypatch, capsys):
    import json

    import torch
    emptied = []
    monkeypatch.setattr(torch, "cuda", types.SimpleNamespace(
        empty_cache=lambda: emptied.append(1)))
    rows = []
    for i in range(2):
        row = dict(i=i)
        with harness.row_result(row, rows):
            if i == 0:
                raise RuntimeError("no kernel for this shape")
            row["ok"] = True
    assert rows == [{"i": 0, "error": "RuntimeError: no kernel for this shape"},
                    {"i": 1, "ok": True}]
    assert len(emptied) == 2
    printed = [json.loads(line[len("RESULT "):]) for line in capsys.readouterr().out.splitlines()]
    assert printed == rows
