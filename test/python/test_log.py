"""The pyptx logger: PYPTX_LOG's handler, and what is logged (ptxas runs,
cubin cache hits and misses)."""
import logging
import os
import subprocess
import sys

import pytest

from pyptx import _log, cache

TINY = """.version 8.5
.target sm_90a
.address_size 64

.visible .entry tiny(.param .u64 out)
{
  ret;
}
"""


@pytest.fixture
def restore_logger():
    level, handlers = _log.logger.level, list(_log.logger.handlers)
    yield _log.logger
    _log.logger.setLevel(level)
    _log.logger.handlers[:] = handlers


def test_pyptx_log_adds_one_handler_at_its_level(restore_logger):
    _log.configure_from_env("debug")
    _log.configure_from_env("INFO")
    env_handlers = [h for h in restore_logger.handlers if isinstance(h, _log._EnvHandler)]
    assert len(env_handlers) == 1 and restore_logger.level == logging.INFO
    with pytest.raises(ValueError, match="PYPTX_LOG='loud': expected one of debug, info"):
        _log.configure_from_env("loud")


def test_pyptx_log_in_a_process_prints_ptxas_runs(tmp_path):
    script = ("from pyptx import kernel, ptx\n"
              "@kernel(arch='sm_90a')\n"
              "def k():\n"
              "    ptx.ret()\n"
              "k.resources()\n")
    source = os.path.join(os.path.dirname(__file__), "..", "..", "python")
    env = dict(os.environ, PYPTX_LOG="info",
               PYTHONPATH=os.pathsep.join([source, os.environ.get("PYTHONPATH", "")]))
    proc = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "[pyptx INFO] k: ptxas -arch=sm_90a took " in proc.stderr
    quiet = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                           env={k: v for k, v in env.items() if k != "PYPTX_LOG"},
                           timeout=120)
    assert "[pyptx" not in quiet.stderr


def test_cache_misses_and_hits_are_logged(tmp_path, monkeypatch, caplog):
    monkeypatch.setenv("PYPTX_CACHE_DIR", str(tmp_path / "cubins"))
    key = cache.CacheKey("tiny_fn", (), (), "sm_90a")
    with caplog.at_level(logging.INFO, logger="pyptx"):
        cache.CubinCache(tmp_path / "entries").put(cache.CacheEntry(key, TINY, b"x"))
        cache.CubinCache(tmp_path / "entries").get(key)
    messages = [r.getMessage() for r in caplog.records if r.name == "pyptx"]
    assert [m.split(" (")[0] for m in messages] == [
        "tiny_fn: cubin compiled", "tiny_fn: cubin from the cache"], messages
