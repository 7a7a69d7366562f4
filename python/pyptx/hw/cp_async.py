"""Ampere ``cp.async`` (non-bulk): ``ptx.cp.async_.{ca, cg, commit_group,
wait_group, wait_all}``."""

HELPERS = {}  # ptx.cp.async_.<name>
