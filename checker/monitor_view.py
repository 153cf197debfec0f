"""The states a live kube-scheduler could have decided on, rebuilt from the watch stream.

kube-scheduler (v1.34, default feature gates) decides on its cache, never on the API server:

- its informers deliver the API server's changes in watch order, late: the cache holds the
  changes before some position ``seen`` of the stream;
- on top of them it holds its own writes that have not landed yet: the pods it has *assumed*
  (``assume`` in pkg/scheduler/schedule_one.go, before the binding goroutine calls the API) and
  the nominations it has *recorded* (``handleSchedulingFailure`` adds the nomination to the
  nominator before it patches the pod's status);
- its writes wait their turn at the client's rate limiter (``clientConnection.qps`` 50, burst
  100 by default): a binding, a victim's patch or deletion, a failure's status patch lands when
  the calls queued before it have gone, so a write can land many changes after the cycle that
  made it.

A failure's status patch is synchronous in the scheduling loop (``updatePod`` calls the API
server directly unless the ``SchedulerAsyncAPICalls`` gate, off by default in v1.34, is on), and
the loop runs one cycle at a time. So the cycle that wrote a failure at position ``i`` took its
snapshot after the loop's previous status write landed (``since``) and ended before its own
first write: every position between is a possible ``seen``, and only the informer's lag behind
``since`` is bounded by the window. A binding is written from a goroutine, but with the same
client (DefaultBinder uses the framework's clientset): its request waits at the same rate
limiter, a token bucket that serves requests in the order they ask, behind the status patches
the loop asked for before it. A binding landing at ``i`` after the loop's last status write
before ``i`` was asked for after it, so its cycle came after that write's, and the same interval
holds; a cut before that write covers a goroutine that reached the limiter late (below).

``views(log, anchor, window, since)`` lists the candidate states, the likeliest first: the API
server's state before the decision, then alternately one more change by others not yet seen
(``seen`` moves back over one change that alters what the cache holds and is not the
scheduler's own) and one more later binding already assumed; then each cut back with up to
``BOTH_WAYS`` later bindings assumed too; for a binding, then the cuts just before each
nomination the loop wrote since the pod's own last change, and just before each of the loop's
bindings landing since then (up to ``window``), nothing of the loop held after the cut (the
binding's cycle may have run before it). ``objects_seen`` builds one.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from schedspec.checker.monitor_state import Change, History, Key, Obj

__all__ = [
    "View",
    "assumed_on",
    "binding",
    "cache_change",
    "cycle_start",
    "loop_write",
    "nomination",
    "objects_seen",
    "own_write",
    "preempted",
    "preempted_on",
    "views",
]


@dataclass(frozen=True)
class View:
    """The cache cut before change ``seen``, the scheduler's own writes up to the decision
    held, and the bindings landing before ``ahead`` assumed; ``shift`` labels it: −k for k
    changes by others unseen, +k for k later bindings assumed. ``nominations`` False: of its
    own writes after the cut, only the bindings are held (the cycle ran before the loop
    recorded the nominations landing there)."""

    seen: int
    ahead: int
    shift: int
    nominations: bool = True
    bindings: bool = True  # False: none of its own writes after the cut held
    later: int = 0  # a cut back (shift < 0) with this many later bindings assumed too

    def label(self) -> str:
        """How the summary names the view (``state -2``; ``state -2, before a nomination``;
        ``state -2, before an overtaking binding``; ``state -2 and +1``)."""
        if not self.bindings:
            return f"state {self.shift:+d}, before an overtaking binding"
        if self.later:
            return f"state {self.shift:+d} and +{self.later}"
        return f"state {self.shift:+d}" + ("" if self.nominations else ", before a nomination")


def _status(pod: Obj) -> Mapping[str, Any]:
    return pod.get("status") or {}


def _node(pod: Obj) -> str:
    return str(pod["spec"].get("nodeName") or "")


def _nominated(pod: Obj) -> str:
    return "" if _node(pod) else str(_status(pod).get("nominatedNodeName") or "")


def binding(change: Change) -> bool:
    """The change sets a pod's ``spec.nodeName`` (the binding subresource)."""
    old, new = change.old, change.new
    if change.key[0] != "Pod" or old is None or new is None:
        return False
    return not _node(old) and bool(_node(new))


def _scheduled_false(pod: Obj) -> tuple[str, str] | None:
    for c in _status(pod).get("conditions") or []:
        if c.get("type") == "PodScheduled" and c.get("status") == "False":
            return str(c.get("reason") or ""), str(c.get("message") or "")
    return None


def own_write(change: Change) -> bool:
    """A write the scheduler holds before it lands: a binding (the pod was assumed), or a
    nomination set or cleared by ``handleSchedulingFailure`` (it updates the nominator
    first). A nomination cleared without a new PodScheduled condition may be the preemption
    goroutine's ``clearNominatedNodeName``, which the nominator learns from the informer."""
    if binding(change):
        return True
    old, new = change.old, change.new
    if change.key[0] != "Pod" or old is None or new is None or _nominated(new) == _nominated(old):
        return False
    return bool(_nominated(new)) or _scheduled_false(new) != _scheduled_false(old)


def loop_write(change: Change, schedulers: frozenset[str]) -> bool:
    """A status patch of ``handleSchedulingFailure`` (the scheduling loop's only synchronous
    write): a pending pod of one of ``schedulers`` gets a new PodScheduled=False condition or
    a new nomination."""
    old, new = change.old, change.new
    if change.key[0] != "Pod" or old is None or new is None or _node(new):
        return False
    if str(new["spec"].get("schedulerName") or "default-scheduler") not in schedulers:
        return False
    condition = _scheduled_false(new)
    return (condition is not None and condition != _scheduled_false(old)) or (
        bool(_nominated(new)) and _nominated(new) != _nominated(old)
    )


def cycle_start(
    log: Sequence[Change], position: int, pod: str, schedulers: frozenset[str]
) -> int | None:
    """Where the scheduling loop's last status write before ``position`` by another pod than
    ``pod`` landed: the failed cycle whose write is at ``position`` began after it."""
    for p in range(position - 1, -1, -1):
        if log[p].key != ("Pod", pod) and loop_write(log[p], schedulers):
            return p
    return None


def assumed_on(pod: Obj | None, node: str) -> Obj | None:
    """A victim as the scheduler's cache held it when a preemption on ``node`` chose it:
    DefaultPreemption picks victims among the pods of the node's NodeInfo
    (``SelectVictimsOnNode``), which holds the pods the scheduler has assumed there, so a
    victim that a Preempted Event names on ``node`` and that is still pending in the API server
    (its binding waiting at the rate limiter) was assumed on ``node``."""
    if pod is None or _node(pod) or not node:
        return pod
    return {**pod, "spec": {**pod["spec"], "nodeName": node}}


def preempted(pod: Obj) -> bool:
    """``pod`` has the DisruptionTarget condition DefaultPreemption writes."""
    return any(
        c.get("type") == "DisruptionTarget"
        and c.get("status") == "True"
        and c.get("reason") == "PreemptionByScheduler"
        for c in _status(pod).get("conditions") or []
    )


def preempted_on(pod: Obj, node: str) -> bool:
    """``pod`` is on ``node`` with the DisruptionTarget condition DefaultPreemption writes."""
    return _node(pod) == node and preempted(pod)


def _disrupted(pod: Obj) -> bool:
    return any(
        c.get("type") == "DisruptionTarget" and c.get("status") == "True"
        for c in _status(pod).get("conditions") or []
    )


def nomination(
    log: Sequence[Change], first: int, pod: str, node: str, schedulers: frozenset[str]
) -> int:
    """Where the cycle that preempted on ``node`` for ``pod`` shows first: its victims' first
    DisruptionTarget patch at ``first``, or before it the preemptor's status patch nominating
    the node (``handleSchedulingFailure`` writes it while the preemption goroutine started in
    PostFilter patches the victims: either may land first). A victim of the node going before
    it means that patch was an earlier cycle's."""
    for p in range(first - 1, -1, -1):
        change = log[p]
        if change.key == ("Pod", pod):
            mine = loop_write(change, schedulers) and _nominated(change.new or {}) == node
            return p if mine else first
        on_node = change.old is not None and change.key[0] == "Pod" and _node(change.old) == node
        if on_node and (change.new is None or _disrupted(change.new)):
            return first
    return first


def _cached(pod: Obj | None) -> tuple[Any, ...] | None:
    """What the scheduler's cache and nominator keep of ``pod``: nothing for a pending pod
    without a nomination; else its labels, spec, nomination, and whether it is terminating
    (PodTopologySpread skips terminating pods) by preemption (DefaultPreemption waits for
    those)."""
    if pod is None or not (_node(pod) or _nominated(pod)):
        return None
    terminating = bool((pod.get("metadata") or {}).get("deletionTimestamp"))
    labels = (pod.get("metadata") or {}).get("labels") or {}
    return labels, pod["spec"], _nominated(pod), terminating, terminating and _disrupted(pod)


def own_change(change: Change, pod: str) -> bool:
    """A change of ``pod`` its binding's cycle came after: any but the DisruptionTarget
    condition alone, which a preemption writes on a pod the scheduler holds assumed while its
    binding waits at the rate limiter (so after the cycle that chose the node)."""
    if change.key != ("Pod", pod):
        return False
    old, new = change.old, change.new
    if old is None or new is None or _disrupted(old) or not _disrupted(new):
        return True
    return (_node(old), _nominated(old), _scheduled_false(old)) != (
        _node(new),
        _nominated(new),
        _scheduled_false(new),
    )


def cache_change(change: Change) -> bool:
    """The change alters what the scheduler caches (a pending pod created, a condition
    written on a bound pod: no)."""
    return change.key[0] == "Pod" and _cached(change.old) != _cached(change.new)


BOTH_WAYS = 4
"""How many later bindings a cut back may assume too (each costs a judgement per cut)."""


def views(
    log: Sequence[Change],
    anchor: int,
    window: int,
    since: int | None = None,
    bound: str | None = None,
) -> Iterator[View]:
    """The states to try for a decision at ``anchor``: 0, −1, +1, −2, +2, … (module
    docstring). Back: each step leaves one more change by others unseen; those at or after
    ``since`` (the cycle began after it) are free, ``window`` more before it (or before the
    anchor when ``since`` is None). Ahead: up to ``window`` later bindings of pods present at
    the anchor. Neither crosses a change of another kind than Pod (a node added or tainted is
    no cache lag to allow for). ``bound``: the decision is that pod's binding (last, the cuts
    before the loop's nominations since the pod's last change)."""
    back: list[int] = []
    budget = window
    for p in range(anchor - 1, -1, -1):
        change = log[p]
        if change.key[0] != "Pod":
            break
        if own_write(change) or not cache_change(change):
            continue
        if since is None or p < since:
            if budget == 0:
                break
            budget -= 1
        back.append(p)
    ahead: list[int] = []
    for p in range(anchor + 1, len(log)):
        if len(ahead) == window or log[p].key[0] != "Pod":
            break
        if binding(log[p]):
            ahead.append(p + 1)
    yield View(anchor, anchor + 1, 0)
    for k in range(1, max(len(back), len(ahead)) + 1):
        if k <= len(back):
            yield View(back[k - 1], anchor + 1, -k)
        if k <= len(ahead):
            yield View(anchor, ahead[k - 1], k)
    # Behind and ahead at once: in a burst of bindings (they wait at the rate limiter while
    # cycles take a millisecond) the cache may not yet have seen the latest changes by others
    # and already hold pods whose bindings land after the decision's.
    for j in range(1, min(BOTH_WAYS, len(ahead)) + 1):
        for k in range(1, len(back) + 1):
            yield View(back[k - 1], ahead[j - 1], -k, later=j)
    if bound is None:
        return
    # A binding lands late (its goroutine waits at the rate limiter), so the cycle that chose
    # the node may have run before the loop recorded a nomination whose status patch landed
    # between that cycle and the binding — though not before the pod's own last change (its
    # creation, or its last failure's patch): cut just before each such nomination, nothing
    # of the loop's held after it (the bindings it had assumed still are).
    for p in range(anchor - 1, -1, -1):
        change = log[p]
        if own_change(change, bound) or change.key[0] != "Pod":
            break
        if own_write(change) and not binding(change):
            unseen = sum(1 for q in back if q >= p)
            yield View(p, anchor + 1, -unseen, nominations=False)
    # Binding goroutines run side by side and reach the client's rate limiter in no set order:
    # a binding of a later cycle may land first. So the cycle may have run before the cycles
    # of up to ``window`` of the loop's bindings landing since the pod's own last change: cut
    # just before each, nothing of the loop's held after it.
    overtaking = 0
    for p in range(anchor - 1, -1, -1):
        change = log[p]
        if own_change(change, bound) or change.key[0] != "Pod" or overtaking == window:
            break
        if own_write(change) and binding(change):
            overtaking += 1
            unseen = sum(1 for q in back if q >= p)
            yield View(p, anchor + 1, -unseen, nominations=False, bindings=False)


def objects_seen(
    history: History, view: View, anchor: int, pins: Mapping[Key, Obj | None]
) -> dict[Key, Obj]:
    """The objects of ``view``: the state before change ``view.seen``; the scheduler's own
    writes landing from there up to the anchor (it held them); the bindings landing after the
    anchor before ``view.ahead``, of pods it knew then (it had assumed them); ``pins`` last."""
    objects = history.objects_at(view.seen)
    for change in history.log[view.seen : anchor]:
        held = view.nominations or (view.bindings and binding(change))
        if held and own_write(change) and change.new is not None:
            objects[change.key] = change.new
    for change in history.log[anchor + 1 : view.ahead]:
        if binding(change) and change.key in objects and change.new is not None:
            objects[change.key] = change.new
    for key, obj in pins.items():
        if obj is None:
            objects.pop(key, None)
        else:
            objects[key] = obj
    return objects
