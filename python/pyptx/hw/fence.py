"""Fences (``fence.*``) and CTA barriers (``bar.sync``, named barriers)."""
from pyptx._inst import Namespace

fence = Namespace("fence", "ptx.fence: memory and proxy fences.")
bar = Namespace("bar", "ptx.bar.sync(n): CTA barriers.")
