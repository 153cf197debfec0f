"""DefaultBinder: binds the pod through the API server's ``pods/binding`` subresource.

Mirrors ``pkg/scheduler/framework/plugins/defaultbinder/default_binder.go``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from schedspec.impl.api import Pod
from schedspec.impl.framework.args import check_fields
from schedspec.impl.framework.cycle_state import CycleState
from schedspec.impl.framework.interface import Handle
from schedspec.impl.framework.status import Code, Status

__all__ = ["NAME", "DefaultBinder"]

NAME = "DefaultBinder"


class DefaultBinder:
    def __init__(self, handle: Handle) -> None:
        self._handle = handle

    def name(self) -> str:
        return NAME

    def bind(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        try:
            self._handle.client().bind(pod.namespace, pod.name, pod.uid, node_name)
        except Exception as err:  # the API server's answer, whatever it is, fails the bind
            return Status(Code.ERROR, (str(err),))
        return None

    @staticmethod
    def new(args: Mapping[str, Any], handle: Handle) -> DefaultBinder:
        check_fields(args, "DefaultBinderArgs", ())
        return DefaultBinder(handle)
