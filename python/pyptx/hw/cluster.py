"""Thread-block clusters: ``barrier.cluster.*``, ``mapa``, remote arrives."""
from pyptx._inst import Namespace

cluster = Namespace("barrier.cluster", "ptx.cluster: barrier.cluster.* helpers.")
