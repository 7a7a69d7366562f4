"""Broken kernels really misbehave on the GPU, and their fixes do not.

Each pair of test/gpu/hazard_kernels.py runs in a subprocess (its command
line): the fixed kernel REPEATS times, then the broken one. A launch that
has not finished HANG_S seconds after it started is a hang: the subprocess
is killed. The fixed form must finish with the right result every time;
the broken form must misbehave as its pair says (a wrong result in every
launch, a hang, or either; a race is counted over RACE_REPEATS launches;
the wgmma pair, which ptxas repairs, must be right). Where the hazard
checker exists, it must also find the hazard's kind in the broken form and
nothing in the fix.

    python3 -m pytest test/gpu/test_hazards_gpu.py -v -s -rs    # -s: the counts
"""
import os
import queue
import subprocess
import sys
import threading

import pytest
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import hazard_kernels  # noqa: E402

PAIRS = hazard_kernels.PAIRS
HANG_S = 10.0       # a launch (and its result check) takes milliseconds
START_S = 120.0     # importing torch, tracing and assembling both forms
REPEATS = 3
RACE_REPEATS = 100  # launches of a pair whose broken form races


class Outcome:
    def __init__(self):
        self.results = {"fixed": [], "broken": []}   # (wrong, total) per launch
        self.hung = None                             # the form whose launch hung
        self.error = None                            # (form, message): a launch raised
        self.log = []

    def __str__(self):
        return "".join(self.log[-40:])


def run_pair(name: str, repeats: int) -> Outcome:
    """Runs `hazard_kernels.py name repeats` and reads its progress lines; a
    launch silent for HANG_S seconds is a hang (the process is killed)."""
    proc = subprocess.Popen([sys.executable, os.path.join(HERE, "hazard_kernels.py"), name,
                             str(repeats)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True)
    lines = queue.Queue()

    def read():
        for line in proc.stdout:
            lines.put(line)
        lines.put(None)

    threading.Thread(target=read, daemon=True).start()
    outcome, launching, timeout = Outcome(), None, START_S
    try:
        while True:
            try:
                line = lines.get(timeout=timeout)
            except queue.Empty:
                outcome.hung = launching or "startup"
                break
            if line is None:
                break
            outcome.log.append(line)
            words = line.split()
            if words[:1] == ["ready"]:
                timeout = HANG_S
            elif words[:1] == ["launch"]:
                launching = words[1]
            elif words[:1] == ["result"]:
                outcome.results[words[1]].append((int(words[2]), int(words[3])))
                launching = None
            elif words[:1] == ["error"]:
                outcome.error = (words[1], " ".join(words[2:]))
    finally:
        proc.kill()
        proc.wait()
    if outcome.hung is None:
        expected = 3 if outcome.error else 0
        assert proc.returncode == expected, f"{name} exited with {proc.returncode}:\n{outcome}"
    return outcome


def check_fixed(name, outcome, repeats):
    assert outcome.hung not in ("startup", "fixed"), \
        f"{name}: the fixed kernel did not finish:\n{outcome}"
    assert not outcome.error or outcome.error[0] != "fixed", \
        f"{name}: the fixed kernel raised:\n{outcome}"
    fixed = outcome.results["fixed"]
    assert len(fixed) == repeats and all(w == 0 for w, _ in fixed), \
        f"{name}: the fixed kernel gave wrong results {fixed}:\n{outcome}"


def broken_results(outcome):
    parts = [f"{w}/{t} wrong" for w, t in outcome.results["broken"]]
    if outcome.hung == "broken":
        parts.append("a hang")
    if outcome.error:
        parts.append(f"raised {outcome.error[1]}")
    return ", ".join(parts)


def misbehaved_every_launch(outcome, repeats) -> bool:
    """Every launch of the broken form gave a wrong result, except a last
    one that hung or raised."""
    broken = outcome.results["broken"]
    if not all(w > 0 for w, _ in broken):
        return False
    return len(broken) == repeats or outcome.hung == "broken" or outcome.error is not None


@pytest.mark.parametrize("name", [n for n, p in PAIRS.items() if p.expect == "wrong"])
def test_broken_gives_a_wrong_result_every_time(name):
    outcome = run_pair(name, REPEATS)
    check_fixed(name, outcome, REPEATS)
    assert outcome.hung is None, f"{name}: the broken kernel hung:\n{outcome}"
    assert misbehaved_every_launch(outcome, REPEATS), \
        f"{name}: the broken kernel was right in some launch ({broken_results(outcome)})"
    print(f"{name}: broken {broken_results(outcome)}")


@pytest.mark.parametrize("name", [n for n, p in PAIRS.items() if p.expect == "hang"])
def test_broken_hangs(name):
    outcome = run_pair(name, REPEATS)
    check_fixed(name, outcome, REPEATS)
    assert outcome.hung == "broken" and not outcome.results["broken"], \
        f"{name}: the broken kernel's first launch did not hang ({broken_results(outcome)})" \
        f":\n{outcome}"


@pytest.mark.parametrize("name", [n for n, p in PAIRS.items() if p.expect == "hang-or-wrong"])
def test_broken_hangs_or_gives_a_wrong_result(name):
    outcome = run_pair(name, REPEATS)
    check_fixed(name, outcome, REPEATS)
    assert misbehaved_every_launch(outcome, REPEATS), \
        f"{name}: the broken kernel was right in some launch ({broken_results(outcome)})"
    print(f"{name}: broken {broken_results(outcome)}")


@pytest.mark.parametrize("name", [n for n, p in PAIRS.items() if p.expect == "sometimes-wrong"])
def test_racing_broken_form_misbehaves_at_times(name):
    """A race: counts the wrong launches out of RACE_REPEATS. Zero is not a
    failure of the kernel under test (the race may not show on this GPU):
    the test is skipped, saying so."""
    outcome = run_pair(name, RACE_REPEATS)
    check_fixed(name, outcome, RACE_REPEATS)
    broken = outcome.results["broken"]
    wrong = sum(1 for w, _ in broken if w > 0)
    print(f"{name}: broken wrong in {wrong} of {len(broken)} launches "
          f"({broken_results(outcome)[-200:]})")
    assert outcome.hung is None and outcome.error is None, \
        f"{name}: the broken kernel {broken_results(outcome)[-200:]}:\n{outcome}"
    assert len(broken) == RACE_REPEATS
    if wrong == 0:
        pytest.skip(f"{name}: the race did not show in {RACE_REPEATS} launches on "
                    f"{torch.cuda.get_device_name()}")


@pytest.mark.parametrize("name", [n for n, p in PAIRS.items() if p.expect == "repaired"])
def test_broken_form_that_ptxas_repairs_is_right(name):
    """ptxas injects the missing wait (see hazard_kernels.py): the broken
    form computes the right result."""
    outcome = run_pair(name, REPEATS)
    check_fixed(name, outcome, REPEATS)
    assert outcome.hung is None and outcome.error is None, broken_results(outcome)
    assert [w for w, _ in outcome.results["broken"]] == [0] * REPEATS, broken_results(outcome)


@pytest.mark.parametrize("name", sorted(PAIRS))
def test_the_checker_finds_the_broken_form_only(name):
    missing = hazard_kernels.checker_missing()
    if missing:
        pytest.skip(missing)
    pair = PAIRS[name]
    broken = hazard_kernels.findings(pair, broken=True)
    assert any(pair.kind in message for message in broken), (pair.kind, broken)
    assert hazard_kernels.findings(pair, broken=False) == []
