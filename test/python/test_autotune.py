"""pyptx.autotune without a GPU: the key, the cache file and the choice,
with a fake timer (the "kernel" is a Python function whose return value the
fake timer reports as its milliseconds) and a fixed device description.
test/gpu/test_autotune_gpu.py tunes a real kernel with CUDA events."""
import json
import os
import re
import types

import numpy as np
import pytest

from pyptx import kernel, ptx
from pyptx.autotune import (Autotuned, autotune, describe_argument, describe_device,
                            kernel_identity, ptxas_version)

H100 = {"name": "NVIDIA H100 80GB HBM3", "capability": "9.0", "driver": 13000,
        "ptxas": "13.0.88"}
MS = {64: 3.0, 128: 1.0, 256: 2.0}     # the fake milliseconds of each BM
CONFIGS = [{"BM": 64}, {"BM": 128}, {"BM": 256}]


class FakeTimer:
    """Runs the thunk once and reports its return value as milliseconds;
    counts the runs."""

    def __init__(self):
        self.runs = 0

    def __call__(self, run):
        self.runs += 1
        return run()


def matmul_like(x, *, BM):
    return MS[BM] * x.shape[0] / 1024


def _edited_matmul_like(x, *, BM):
    return MS[BM] * x.shape[0] / 512


def refuse_to_time(run):
    raise AssertionError("this call should have been answered from the cache")


def tuned(tmp_path, fn=matmul_like, configs=CONFIGS, device=H100, timer=None):
    return Autotuned(fn, configs, timer=timer or FakeTimer(), cache_dir=tmp_path,
                     device=device)


def test_picks_the_fastest_and_writes_the_choice(tmp_path):
    x = np.zeros((1024, 64), np.float32)
    t = tuned(tmp_path)
    assert t.config_for(x) == {"BM": 128}
    assert t.timer.runs == 3
    path = t.cache_path(x)
    assert path.parent == tmp_path and path.name.startswith("matmul_like-")
    stored = json.loads(path.read_text())
    assert stored["best"] == 1 and stored["config"] == {"BM": 128}
    assert [r["ms"] for r in stored["results"]] == [3.0, 1.0, 2.0]
    key = stored["key"]
    assert key["kernel"]["name"] == f"{__name__}.matmul_like"
    assert re.fullmatch(r"[0-9a-f]{16}", key["kernel"]["source"])
    assert key["device"] == H100
    assert key["args"] == [{"shape": [1024, 64], "dtype": "float32"}]
    assert key["configs"] == CONFIGS
    # The call itself runs the chosen config.
    assert t(x) == 1.0


def test_the_choice_is_remembered_then_read_from_disk(tmp_path):
    x = np.zeros((1024, 64), np.float32)
    first = tuned(tmp_path)
    first.config_for(x)
    first.config_for(x)
    assert first.timer.runs == 3                      # remembered in the process
    second = tuned(tmp_path, timer=refuse_to_time)    # a new process, in effect
    assert second.config_for(x) == {"BM": 128}
    assert second(x) == 1.0


def test_another_shape_is_tuned_again(tmp_path):
    t = tuned(tmp_path)
    t.config_for(np.zeros((1024, 64), np.float32))
    t.config_for(np.zeros((2048, 64), np.float32))
    t.config_for(np.zeros((1024, 64), np.float16))    # dtype is in the key too
    assert t.timer.runs == 9
    assert len(list(tmp_path.glob("matmul_like-*.json"))) == 3


@pytest.mark.parametrize("change", ["device", "driver", "ptxas", "configs", "source"])
def test_the_key_covers_device_toolkit_configs_and_source(tmp_path, change):
    x = np.zeros((64, 64), np.float32)
    base = tuned(tmp_path)
    device = dict(H100)
    configs = CONFIGS
    fn = matmul_like
    if change == "device":
        device["name"], device["capability"] = "NVIDIA H200", "9.0"
    elif change in ("driver", "ptxas"):
        device[change] = {"driver": 13010, "ptxas": "13.1.20"}[change]
    elif change == "configs":
        configs = CONFIGS + [{"BM": 512}]
    else:  # the same module and name, another body
        fn = types.FunctionType(_edited_matmul_like.__code__, globals(), "matmul_like")
        fn.__qualname__ = "matmul_like"
        assert kernel_identity(fn)["name"] == kernel_identity(matmul_like)["name"]
    other = tuned(tmp_path, fn=fn, configs=configs, device=device)
    assert other.cache_path(x) != base.cache_path(x)


def test_scalars_and_keywords_join_the_key(tmp_path):
    def scaled(x, alpha, *, BM, mode="fast"):
        return MS[BM]

    t = tuned(tmp_path, fn=scaled)
    x = np.zeros(8, np.float32)
    paths = {t.cache_path(x, 1.5), t.cache_path(x, 2.5), t.cache_path(x, 1.5, mode="exact")}
    assert len(paths) == 3
    assert t.key(x, 1.5, mode="exact")["kwargs"] == {"mode": "exact"}


def test_failing_configs_are_skipped_and_recorded(tmp_path):
    def picky(x, *, BM):
        if BM == 128:
            raise ValueError("BM=128 needs 300 KiB of shared memory")
        return MS[BM]

    t = tuned(tmp_path, fn=picky)
    x = np.zeros(4, np.float32)
    assert t.config_for(x) == {"BM": 256}
    results = json.loads(t.cache_path(x).read_text())["results"]
    assert results[1] == {"config": {"BM": 128},
                          "error": "ValueError: BM=128 needs 300 KiB of shared memory"}
    assert t.results[next(iter(t.results))] == results


def test_every_config_failing_is_an_error(tmp_path):
    def broken(x, *, BM):
        raise RuntimeError(f"no {BM}")

    with pytest.raises(RuntimeError, match=r"every config failed:(.|\n)*\{'BM': 256\}: "
                                           r"RuntimeError: no 256"):
        tuned(tmp_path, fn=broken).config_for(np.zeros(4))
    assert not list(tmp_path.glob("*.json"))


def test_ties_go_to_the_first_listed(tmp_path):
    t = tuned(tmp_path, fn=lambda x, *, BM: 1.0)
    assert t.config_for(np.zeros(4)) == {"BM": 64}


def test_a_damaged_cache_file_is_tuned_again(tmp_path):
    x = np.zeros(4, np.float32)
    t = tuned(tmp_path)
    path = t.cache_path(x)
    path.write_text("{not json")
    assert t.config_for(x) == {"BM": 128} and t.timer.runs == 3
    assert json.loads(path.read_text())["best"] == 1


def test_a_file_for_other_configs_is_not_trusted(tmp_path):
    x = np.zeros(4, np.float32)
    t = tuned(tmp_path)
    path = t.cache_path(x)
    t.config_for(x)
    stored = json.loads(path.read_text())
    stored["config"] = {"BM": 999}                       # edited by hand
    path.write_text(json.dumps(stored))
    again = tuned(tmp_path)
    assert again.config_for(x) == {"BM": 128} and again.timer.runs == 3


def test_tune_times_again(tmp_path):
    x = np.zeros(4, np.float32)
    t = tuned(tmp_path)
    t.config_for(x)
    t.tune(x)
    assert t.timer.runs == 6


def test_chosen_parameters_cannot_be_passed(tmp_path):
    with pytest.raises(TypeError, match=r"\['BM'\] are chosen by autotune"):
        tuned(tmp_path)(np.zeros(4), BM=64)


def test_decorator_on_a_kernel_checks_the_configs(tmp_path):
    @kernel(arch="sm_90a")
    def tiled(*, BM=64, STAGES=2):
        ptx.ret()

    wrapped = autotune(configs=[{"BM": 64}, {"BM": 128, "STAGES": 3}], cache_dir=tmp_path,
                       device=H100, timer=FakeTimer())(tiled)
    assert isinstance(wrapped, Autotuned) and wrapped.fn is tiled
    identity = kernel_identity(tiled)
    assert identity["arch"] == "sm_90a" and identity["name"].endswith("tiled")
    assert wrapped.key()["kernel"] == identity
    with pytest.raises(ValueError, match=r"sets \['BN'\], which are not template "
                                         r"parameters of tiled"):
        autotune(configs=[{"BN": 64}])(tiled)
    with pytest.raises(ValueError, match="configs is empty"):
        autotune(configs=[])(tiled)


def test_describe_argument():
    assert describe_argument(np.zeros((2, 3), np.float16)) == {"shape": [2, 3],
                                                               "dtype": "float16"}
    assert describe_argument(7) == 7 and describe_argument("K") == "K"
    assert describe_argument(object()) == "object"


def test_machine_description():
    assert re.fullmatch(r"\d+\.\d+\.\d+", ptxas_version())
    if os.path.exists("/dev/nvidiactl"):
        device = describe_device(0)
        assert device["name"] and re.fullmatch(r"\d+\.\d+", device["capability"])
        assert device["driver"] >= 12000
    else:
        with pytest.raises(RuntimeError, match="cannot load libcuda.so.1"):
            describe_device(0)


def test_a_chosen_call_costs_a_lookup(tmp_path):
    """Once chosen, a call neither asks the driver nor hashes the key again."""
    asked = []

    def device(index):
        asked.append(index)
        return H100

    t = tuned(tmp_path, device=device)
    x = np.zeros((1024, 64), np.float32)
    for _ in range(3):
        assert t(x) == 1.0
    assert asked == [0] and t.timer.runs == 3


# -- measuring: restoring written arguments, progress ----------------------------------

def accumulate(x, acc, *, BM):
    """Adds x into acc (as a kernel accumulating into its output would);
    "takes" MS[BM] ms."""
    acc += x
    return MS[BM]


class SetupTimer:
    """A timer that takes setup=: runs setup, then the run, 3 times; logs
    the order."""

    def __init__(self):
        self.log = []

    def __call__(self, run, setup=None):
        for _ in range(3):
            if setup:
                setup()
                self.log.append("setup")
            self.log.append("run")
            ms = run()
        return ms


@pytest.mark.parametrize("timer", [FakeTimer, SetupTimer])
def test_restore_value_keeps_a_configs_writes_from_the_next(tmp_path, timer):
    x = np.arange(4, dtype=np.float32)
    acc = np.full(4, 10, np.float32)
    t = Autotuned(accumulate, CONFIGS, timer=timer(), cache_dir=tmp_path, device=H100,
                  restore_value=["acc"])
    assert t.config_for(x, acc) == {"BM": 128}
    assert np.array_equal(acc, np.full(4, 10, np.float32))   # as it was given
    t(x, acc)
    assert np.array_equal(acc, 10 + x)                       # one launch's worth
    if timer is SetupTimer:
        assert t.timer.log == ["setup", "run"] * 9


def test_reset_to_zero_zeroes_before_each_run_and_after(tmp_path):
    x = np.ones(4, np.float32)
    acc = np.full(4, 5, np.float32)
    seen = []

    def accumulate_and_look(x, acc, *, BM):
        seen.append(acc.copy())
        acc += x
        return MS[BM]

    t = Autotuned(accumulate_and_look, CONFIGS, timer=FakeTimer(), cache_dir=tmp_path,
                  device=H100, reset_to_zero=["acc"])
    t.config_for(x, acc=acc)
    assert all(not s.any() for s in seen) and len(seen) == 3
    assert not acc.any()


def test_without_restoring_the_writes_pile_up(tmp_path):
    x = np.ones(4, np.float32)
    acc = np.zeros(4, np.float32)
    Autotuned(accumulate, CONFIGS, timer=FakeTimer(), cache_dir=tmp_path,
              device=H100).config_for(x, acc)
    assert np.array_equal(acc, np.full(4, 3, np.float32))   # the check above can fail


def test_restore_names_must_be_arguments(tmp_path):
    with pytest.raises(ValueError, match=r"restore_value names \['out'\], which are not "
                                         r"arguments of .*\['x', 'acc'\]"):
        Autotuned(accumulate, CONFIGS, restore_value=["out"])


def test_progress_and_choice_are_printed_and_logged(tmp_path, monkeypatch, capsys, caplog):
    import logging
    monkeypatch.setenv("PYPTX_PRINT_AUTOTUNING", "1")
    x = np.zeros((1024, 64), np.float32)
    with caplog.at_level(logging.INFO, logger="pyptx"):
        tuned(tmp_path).config_for(x)
    printed = capsys.readouterr().out.splitlines()
    assert printed == [
        "autotune matmul_like [1/3] {'BM': 64}: 3.0000 ms",
        "autotune matmul_like [2/3] {'BM': 128}: 1.0000 ms",
        "autotune matmul_like [3/3] {'BM': 256}: 2.0000 ms",
        "autotune matmul_like: chose {'BM': 128} (1.0000 ms) for "
        "[{'dtype': 'float32', 'shape': [1024, 64]}]"]
    assert [r.getMessage() for r in caplog.records if r.name == "pyptx"] == printed
    monkeypatch.delenv("PYPTX_PRINT_AUTOTUNING")
    tuned(tmp_path).config_for(np.zeros((512, 64), np.float32))
    assert capsys.readouterr().out == ""
