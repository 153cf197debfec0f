"""Plugin registry: plugin name → factory (``pkg/scheduler/framework/runtime/registry.go``).

A factory takes the plugin's args (``pluginConfig[].args``, ``{}`` when absent) and the
framework ``Handle``, and returns the plugin; it raises ``ConfigError`` (path inside the args)
for bad args. ``schedspec.impl.plugins.in_tree_registry()`` holds the default plugins; pass a
merged registry to add your own (see docs/writing-a-plugin.md).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from schedspec.impl.framework.interface import Handle, Plugin

__all__ = ["PluginFactory", "Registry", "merge_registries"]

PluginFactory = Callable[[Mapping[str, Any], Handle], Plugin]
Registry = dict[str, PluginFactory]


def merge_registries(base: Registry, extra: Registry) -> Registry:
    """``base`` plus ``extra``; a name in both is an error (``Registry.Merge``)."""
    clash = sorted(set(base) & set(extra))
    if clash:
        raise ValueError(f"a plugin named {clash[0]!r} already exists")
    return {**base, **extra}
