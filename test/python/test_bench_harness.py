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
