"""Checked reading of plugin args (``pluginConfig[].args``) for plugin factories.

Each helper raises ``ConfigError`` with the path *inside* the args; the framework prefixes the
``profiles[i].pluginConfig[j].args`` part. Unknown fields are rejected, as kube-scheduler's
strict decoding does.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from schedspec.impl.errors import ConfigError

__all__ = ["check_fields", "get_bool", "get_int", "get_list", "get_mapping", "get_str"]

Args = Mapping[str, Any]
_META = ("apiVersion", "kind")


def check_fields(args: Args, kind: str, allowed: tuple[str, ...]) -> None:
    """Reject fields other than ``allowed`` and a ``kind`` other than ``kind``."""
    for key in args:
        if key not in allowed and key not in _META:
            raise ConfigError(f"unknown field {json.dumps(key)} in {kind}", key)
    if args.get("kind", kind) != kind:
        raise ConfigError(f"must be {json.dumps(kind)}, got {json.dumps(args['kind'])}", "kind")


def get_int(args: Args, key: str, default: int, lo: int, hi: int) -> int:
    value = args.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(f"must be an integer, got {json.dumps(value)}", key)
    if not lo <= value <= hi:
        raise ConfigError(f"invalid value {value}: not in valid range [{lo}-{hi}]", key)
    return value


def get_bool(args: Args, key: str, default: bool) -> bool:
    value = args.get(key, default)
    if not isinstance(value, bool):
        raise ConfigError(f"must be a boolean, got {json.dumps(value)}", key)
    return value


def get_str(args: Args, key: str, default: str, allowed: tuple[str, ...]) -> str:
    value = args.get(key, default)
    if value not in allowed:
        shown = ", ".join(json.dumps(a) for a in allowed)
        raise ConfigError(f"unsupported value {json.dumps(value)}: supported are {shown}", key)
    return str(value)


def get_list(args: Args, key: str) -> list[Any]:
    value = args.get(key, [])
    if value is None:
        return []
    if not isinstance(value, list):
        raise ConfigError("must be a list", key)
    return value


def get_mapping(args: Args, key: str) -> Mapping[str, Any] | None:
    value = args.get(key)
    if value is not None and not isinstance(value, dict):
        raise ConfigError("must be a mapping", key)
    return value
