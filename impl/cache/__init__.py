"""The scheduler cache (pods on nodes, assumed pods), the node tree and the per-cycle snapshot."""

from schedspec.impl.cache.cache import Cache, CacheError
from schedspec.impl.cache.node_tree import NodeTree
from schedspec.impl.cache.snapshot import Snapshot

__all__ = ["Cache", "CacheError", "NodeTree", "Snapshot"]
