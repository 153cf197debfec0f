"""The QueueingHint map of a profile: which plugin wants which events, with which hint.

Mirrors ``buildQueueingHintMap`` in ``pkg/scheduler/scheduler.go`` and ``fillEnqueueExtensions``
in ``framework/runtime/framework.go`` (v1.34): every plugin at PreEnqueue, PreFilter, Filter,
Reserve or Permit registers its ``events_to_register()``, or — without that method — every
Pod and Node event (the wildcard). A registration without a hint, and every registration when
QueueingHints are off, gets the always-Queue hint. A plugin registering Node/Add but not
Node/UpdateNodeTaint also gets UpdateNodeTaint with the always-Queue hint
(kubernetes#109437).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import cast

from schedspec.impl.framework.events import (
    NODE,
    ActionType,
    ClusterEvent,
    EnqueueExtensions,
    default_hint,
    unroll_wildcard_resource,
)
from schedspec.impl.framework.interface import Plugin, implements
from schedspec.impl.queue.scheduling_queue import HintRegistration

__all__ = ["ENQUEUE_POINTS", "build_queueing_hint_map"]

ENQUEUE_POINTS = ("preEnqueue", "preFilter", "filter", "reserve", "permit")


def build_queueing_hint_map(
    plugins: Mapping[str, Plugin], lists: Mapping[str, list[str]], queueing_hints: bool = True
) -> list[HintRegistration]:
    """(event, plugin, hint) for the plugins of one profile (``plugins`` by name, ``lists``
    the plugin names per extension point)."""
    names: list[str] = []
    for point in ENQUEUE_POINTS:
        names += [n for n in lists.get(point, []) if n not in names]
    out: list[HintRegistration] = []
    for name in names:
        plugin = plugins[name]
        if implements(plugin, EnqueueExtensions):
            registrations = cast(EnqueueExtensions, plugin).events_to_register(queueing_hints)
        else:
            registrations = unroll_wildcard_resource()
        node_add = node_taint = False
        for reg in registrations:
            hint = reg.hint if reg.hint is not None and queueing_hints else default_hint
            if reg.event.resource == NODE:
                node_add |= bool(reg.event.action_type & ActionType.ADD)
                node_taint |= bool(reg.event.action_type & ActionType.UPDATE_NODE_TAINT)
            out.append((reg.event, name, hint))
        if node_add and not node_taint:
            out.append((ClusterEvent(NODE, ActionType.UPDATE_NODE_TAINT), name, default_hint))
    return out
