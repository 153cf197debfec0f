"""Plugins of the v1.34 default profile that schedspec does not run, each with its reason.

This table is the one place the difference is written down (DESIGN.md "declared
differences"); the checker reads it. A configuration may disable these plugins or give them
``pluginConfig`` args (ignored); enabling one is rejected with the reason.
"""

from __future__ import annotations

from types import MappingProxyType

__all__ = ["DECLARED_DIFFERENCES", "DECLARED_OUT_OF_SCOPE"]

_VOLUMES = "volume plugins are out of scope: the cluster model has no PVC/PV/CSINode/StorageClass"

DECLARED_OUT_OF_SCOPE = MappingProxyType(
    {
        "VolumeRestrictions": _VOLUMES,
        "NodeVolumeLimits": _VOLUMES,
        "VolumeBinding": _VOLUMES,
        "VolumeZone": _VOLUMES,
        "DynamicResources": "DRA is out of scope: the cluster model has no ResourceClaims",
    }
)
"""Plugin name → why it does not run."""

DECLARED_DIFFERENCES = MappingProxyType(
    {
        "NodeResourcesFit.statusResources": "assigned pods are accounted with their spec "
        "requests; InPlacePodVerticalScaling status resources are not modelled",
        "preemption.parallelism": "the preemption dry run checks the potential nodes one at "
        "a time from the random offset (upstream: 16 at a time); the stop rule and the "
        "candidate order are upstream's, and the last tie-break is the first candidate in "
        "that order (upstream: Go map order)",
        "preemption.gracePeriod": "victims are deleted at once: the simulated API server has "
        "no kubelet, so a victim never lingers as terminating (pods loaded with a "
        "deletionTimestamp do count as terminating)",
        "preemption.startTime": "a pod without status.startTime counts as starting after every "
        "recorded start (upstream: time.Now() at comparison time)",
        "parallelism": "filters and scores run sequentially; the node visiting order and the "
        "stop after numFeasibleNodesToFind feasible nodes are as upstream",
        "tieBreak": "selectHost draws among equal top scores with a seeded random.Random "
        "(reservoir sampling in evaluation order), not Go's math/rand",
    }
)
