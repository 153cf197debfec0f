"""Nodes grouped by zone, listed round-robin across zones (``backend/cache/node_tree.go``).

The zone key is ``region:\\x00:zone`` from the ``topology.kubernetes.io`` labels (or their
``failure-domain.beta`` predecessors); zones keep the order they first appeared in, nodes their
insertion order, so the list interleaves zones and spreads the search across them.
"""

from __future__ import annotations

from collections.abc import Mapping

__all__ = ["NodeTree", "zone_key"]

_REGION = ("topology.kubernetes.io/region", "failure-domain.beta.kubernetes.io/region")
_ZONE = ("topology.kubernetes.io/zone", "failure-domain.beta.kubernetes.io/zone")


def _first(labels: Mapping[str, str], keys: tuple[str, str]) -> str:
    return labels.get(keys[0]) or labels.get(keys[1]) or ""


def zone_key(labels: Mapping[str, str]) -> str:
    region, zone = _first(labels, _REGION), _first(labels, _ZONE)
    return "" if not region and not zone else f"{region}:\x00:{zone}"


class NodeTree:
    def __init__(self) -> None:
        self._zones: dict[str, list[str]] = {}
        self._zone_of: dict[str, str] = {}

    def add(self, name: str, labels: Mapping[str, str]) -> None:
        if name in self._zone_of:
            return
        zone = zone_key(labels)
        self._zones.setdefault(zone, []).append(name)
        self._zone_of[name] = zone

    def remove(self, name: str) -> None:
        zone = self._zone_of.pop(name, None)
        if zone is None:
            return
        self._zones[zone].remove(name)
        if not self._zones[zone]:
            del self._zones[zone]

    def update(self, name: str, labels: Mapping[str, str]) -> None:
        if self._zone_of.get(name) != zone_key(labels):
            self.remove(name)
            self.add(name, labels)

    def __len__(self) -> int:
        return len(self._zone_of)

    def list(self) -> list[str]:
        """Node names, one per zone in turn."""
        out: list[str] = []
        zones = list(self._zones.values())
        depth = max((len(z) for z in zones), default=0)
        for i in range(depth):
            out.extend(z[i] for z in zones if i < len(z))
        return out
