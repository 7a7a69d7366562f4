"""The example kernels rebuilt on pyptx.pipeline emit the PTX they emitted at
fc2d5f1, before the rewrite: the SHA-256 of every configuration of
example_ptx_configs.CONFIGS (those their tests and benchmarks build)
matches data/example_ptx_sha256.json, generated from the base commit (see
example_ptx_configs.py for the command, and for the one update since: the
removal of instructions known at trace time)."""
import json

import pytest

from example_ptx_configs import CONFIGS, SUMS, build_ptx, config_id, sha256

with open(SUMS) as f:
    REFERENCE = json.load(f)

UNIQUE = list({config_id(c): c for c in CONFIGS}.values())


def test_every_configuration_has_a_reference():
    assert sorted(REFERENCE) == sorted(config_id(c) for c in UNIQUE)
    assert len(UNIQUE) >= 70


@pytest.mark.parametrize("config", UNIQUE, ids=config_id)
def test_ptx_unchanged(config):
    assert sha256(build_ptx(config)) == REFERENCE[config_id(config)]
