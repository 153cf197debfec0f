"""The watch stream ``schedspec monitor`` judges: every kind ``schedspec.live.READ`` reads, and
the scheduler's Events, through the official ``kubernetes`` client.

``Watcher(source)`` lists each kind once (``initial()``: the state the monitor starts from, and
each list's resourceVersion), then ``start()`` runs one thread per kind, each watching from its
resourceVersion (``watch.Watch().stream``, bookmarks on) and putting ``(kind, obj, deleted)`` on
one queue in the order its watch delivers them; ``get(timeout)`` takes the next. A watch the API
server closes is resumed from the last resourceVersion seen; one it answers ``410 Gone`` is
re-listed, and the differences from what the thread had seen are put on the queue as the
changes the watch missed (``relists`` counts them). Events are read from events.k8s.io/v1, the
API kube-scheduler v1.34 writes them through (cmd/kube-scheduler/app/options/options.go makes an
``events.NewEventBroadcasterAdapter``), from the list's resourceVersion on: past Events are not
judged.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from schedspec.cluster import object_key
from schedspec.live import READ, Read, Source, _api_client, _api_error, _call, manifest
from schedspec.validate import KINDS

__all__ = ["EVENTS", "Item", "Watcher"]

EVENTS = Read("events.k8s.io/v1", "Event", "events", namespaced=True)

Item = tuple[str, dict[str, Any], bool]
"""(kind, object, deleted)."""

_GONE = 410


@dataclass
class _Kind:
    read: Read
    version: str
    seen: dict[str, dict[str, Any]]


class Watcher:
    """Lists, then watches, every kind the monitor mirrors (module docstring)."""

    def __init__(self, source: Source, watch_seconds: int = 300) -> None:
        self.source, self.watch_seconds = source, watch_seconds
        self.client, self.where = _api_client(source)
        self.queue: queue.Queue[Item | BaseException] = queue.Queue()
        self.kinds: list[_Kind] = []
        self.relists = 0
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []

    def initial(self) -> Iterator[Item]:
        """Every object of every mirrored kind, as listed now (Events: none, only where the
        watch starts)."""
        for read in (*[r for r in READ if r.kind in KINDS], EVENTS):
            version, items = self._list(read)
            seen = {} if read is EVENTS else {object_key(o): o for o in items}
            self.kinds.append(_Kind(read, version, seen))
            for obj in seen.values():
                yield read.kind, obj, False

    def start(self) -> None:
        for kind in self.kinds:
            thread = threading.Thread(target=self._run, args=(kind,), daemon=True)
            thread.start()
            self._threads.append(thread)

    def get(self, timeout: float) -> Item | None:
        """The next change (None: none within ``timeout`` seconds); re-raises a thread's error."""
        try:
            item = self.queue.get(timeout=max(timeout, 0.0))
        except queue.Empty:
            return None
        if isinstance(item, BaseException):
            raise item
        return item

    def stop(self) -> None:
        self._stop.set()

    # ---- one kind

    def _api(self, read: Read) -> Any:
        import kubernetes.client

        api = getattr(kubernetes.client, read.api)(self.client)
        in_namespace = self.source.namespace is not None and read.namespaced
        method = getattr(api, read.list_method(in_namespace))
        args = (self.source.namespace,) if in_namespace and self.source.namespace else ()
        return method, args

    def _list(self, read: Read) -> tuple[str, list[dict[str, Any]]]:
        """One list of ``read``'s kind (not paged: the watch starts from its resourceVersion);
        the errors ``schedspec.live`` reports (unreachable, refused, RBAC)."""
        method, args = self._api(read)
        options = {"_preload_content": False}
        page = _call(method, args, options, read, self.source, self.where)
        version = str((page.get("metadata") or {}).get("resourceVersion") or "")
        items = [_item(o, read) for o in page.get("items") or []]
        return version, items

    def _run(self, kind: _Kind) -> None:
        try:
            while not self._stop.is_set():
                self._watch(kind)
        except BaseException as err:  # handed to the reading thread
            if not self._stop.is_set():
                self.queue.put(err)

    def _watch(self, kind: _Kind) -> None:
        from kubernetes import watch
        from kubernetes.client.exceptions import ApiException

        method, args = self._api(kind.read)
        stream = watch.Watch()  # type: ignore[no-untyped-call]
        try:
            for event in stream.stream(  # type: ignore[no-untyped-call]
                method,
                *args,
                resource_version=kind.version,
                allow_watch_bookmarks=True,
                timeout_seconds=self.watch_seconds,
                deserialize=False,
                _request_timeout=(10, self.watch_seconds + 30),
            ):
                if self._stop.is_set():
                    stream.stop()  # type: ignore[no-untyped-call]
                    return
                self._deliver(kind, event)
        except ApiException as err:
            if err.status != _GONE:
                raise _api_error(err, kind.read, self.source, self.where) from None
            self._relist(kind)

    def _deliver(self, kind: _Kind, event: dict[str, Any]) -> None:
        raw = event.get("object") or {}
        version = str((raw.get("metadata") or {}).get("resourceVersion") or "")
        if version:
            kind.version = version
        if event.get("type") not in ("ADDED", "MODIFIED", "DELETED"):
            return  # BOOKMARK: only its resourceVersion
        obj = _item(raw, kind.read)
        deleted = event["type"] == "DELETED"
        if kind.read is not EVENTS:
            key = object_key(obj)
            if deleted:
                kind.seen.pop(key, None)
            else:
                kind.seen[key] = obj
        self.queue.put((kind.read.kind, obj, deleted))

    def _relist(self, kind: _Kind) -> None:
        """The watch expired (410): list again; what changed meanwhile goes on the queue."""
        self.relists += 1
        version, items = self._list(kind.read)
        kind.version = version
        if kind.read is EVENTS:
            return
        now = {object_key(o): o for o in items}
        for key, obj in kind.seen.items():
            if key not in now:
                self.queue.put((kind.read.kind, obj, True))
        for key, obj in now.items():
            if kind.seen.get(key) != obj:
                self.queue.put((kind.read.kind, obj, False))
        kind.seen = now


def _item(raw: dict[str, Any], read: Read) -> dict[str, Any]:
    """A watched object as the monitor keeps it: a manifest for the loader's kinds, the
    Event as the server wrote it."""
    if read is EVENTS:
        return raw
    return manifest(raw, read)
