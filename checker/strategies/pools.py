"""The small shared pools every choice comes from, so that drawn objects often just match
and often just miss: label keys and values, topology keys, taints, priorities, quantities,
ports, images and times."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

Obj = dict[str, Any]


HOSTNAME = "kubernetes.io/hostname"
ZONE = "topology.kubernetes.io/zone"
REGION = "topology.kubernetes.io/region"
TOPOLOGY_KEYS = (HOSTNAME, ZONE, REGION)
ZONES: Mapping[str, str] = {"zone-a": "region-1", "zone-b": "region-1", "zone-c": "region-2"}
"""Zone → its region: two zones share a region, so zone and region domains differ."""

LABEL_KEYS = ("app", "tier", "example.com/pool")
LABEL_VALUES = ("web", "db", "batch")
NUMERIC_LABEL_KEY = "example.com/cores"
NUMERIC_LABEL_VALUES = ("2", "4", "8")
"""Node label values read by ``Gt``/``Lt`` node-affinity requirements."""

NAMESPACES = ("default", "prod", "batch")
NAMESPACE_LABELS: Mapping[str, tuple[str, ...]] = {"team": ("a", "b"), "env": ("prod", "dev")}

TAINT_KEYS = ("dedicated", "nvidia.com/gpu", "node.kubernetes.io/unschedulable")
TAINT_VALUES = ("", "gpu", "infra")
TAINT_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")

PRIORITIES = (0, 100, 1000)
PRIORITY_CLASSES: Mapping[str, int] = {"low": 100, "high": 1000, "also-low": 100}
"""Name → value; ``low`` and ``also-low`` tie, and tie with the bare priority 100."""

CPU_ALLOCATABLE = ("2", "3920m", "4")
MEMORY_ALLOCATABLE = ("4Gi", "8Gi", "15Gi")
PODS_ALLOCATABLE = ("110", "3", "1")
CPU_REQUESTS = ("100m", "250m", "500m", "1", "1500m")
MEMORY_REQUESTS = ("128Mi", "256Mi", "512Mi", "1Gi")
EPHEMERAL_ALLOCATABLE = ("20Gi", "100Gi")
EPHEMERAL_REQUESTS = ("1Gi", "10Gi")
EXTENDED_RESOURCES = ("nvidia.com/gpu", "example.com/fpga")
EXTENDED_ALLOCATABLE = ("0", "1", "4")

HOST_PORTS = (80, 8080)
HOST_IPS = ("", "0.0.0.0", "10.0.0.1")
IMAGES = ("nginx:1.27", "redis", "registry.k8s.io/pause:3.10")
_MB = 1024 * 1024
IMAGE_SIZES = (1 * _MB, 23 * _MB, 300 * _MB, 1000 * _MB, 2000 * _MB)
"""ImageLocality's thresholds are 23 MB and 1000 MB per container."""
START_TIMES = ("2025-09-14T09:00:00Z", "2025-09-14T09:30:00Z")
DELETION_TIMESTAMP = "2025-09-14T10:00:00Z"
