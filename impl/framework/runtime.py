"""The framework runtime: builds a profile's plugins and runs each extension point.

Mirrors ``pkg/scheduler/framework/runtime/framework.go`` (v1.34): plugins are instantiated from
the registry by name, sorted into extension points by the protocols they implement
(``multiPoint`` expansion: plugins re-listed at a specific point keep that position, then the
multiPoint ones, then the other specific ones), score weights come from the Score set first
and then multiPoint, and a weight of 0 counts as 1. Building fails fast (``ConfigError`` with
the field path) on an unknown plugin, a plugin that does not implement the extension point it
is listed at, a double registration, no or several QueueSort plugins, or no Bind plugin.

``FrameworkHandle`` holds what the profiles share: the pods waiting at Permit, the nominator, the
seeded RNG. Each profile gives its plugins a ``ProfileHandle``: the shared handle plus that
profile's own runners (``run_filter_plugins_with_nominated_pods``, the PreFilter ``add_pod`` /
``remove_pod`` extensions), as upstream's ``frameworkImpl`` is itself the plugins' ``Handle``.

``run_filter_plugins_with_nominated_pods`` is the two-pass filter (``framework.go``
``RunFilterPluginsWithNominatedPods`` / ``addGENominatedPods``): pass 1 adds the pods nominated
to the node with priority ≥ the pod's (not the pod itself) to a cloned NodeInfo and a cloned
CycleState (through the PreFilter ``add_pod`` extensions); pass 2, run only when pass 1 added
pods and passed, filters the node as it is. Both must pass: see docs/preemption.md for why.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from functools import partial
from random import Random
from typing import Any, cast

from schedspec.impl.api import Pod
from schedspec.impl.errors import ConfigError, did_you_mean
from schedspec.impl.framework import equivalence
from schedspec.impl.framework.config import PluginRef, ProfileConfig
from schedspec.impl.framework.cycle_state import CycleState
from schedspec.impl.framework.declared import DECLARED_OUT_OF_SCOPE
from schedspec.impl.framework.interface import (
    APIClient,
    BatchScorer,
    BindPlugin,
    Clock,
    FilterPlugin,
    NodeLocalFilter,
    PermitPlugin,
    Plugin,
    PostBindPlugin,
    PostFilterPlugin,
    PostFilterResult,
    PreBindPlugin,
    PreEnqueuePlugin,
    PreFilterPlugin,
    PreScorePlugin,
    QueueSortPlugin,
    ReservePlugin,
    ScorePlugin,
    SharedLister,
    WaitingPod,
    implements,
)
from schedspec.impl.framework.nominator import Nominator
from schedspec.impl.framework.registry import Registry
from schedspec.impl.framework.status import Code, Status
from schedspec.impl.framework.types import (
    MAX_NODE_SCORE,
    Diagnosis,
    NodeInfo,
    NodeScore,
    PodInfo,
    PreFilterResult,
    QueuedPodInfo,
)

__all__ = ["MAX_PERMIT_TIMEOUT", "Framework", "FrameworkHandle", "ProfileHandle"]

FilterFn = Callable[[CycleState, Pod, NodeInfo], Status | None]

MAX_PERMIT_TIMEOUT = 15 * 60.0  # seconds (framework.go maxTimeout)

_POINTS: dict[str, tuple[type[Any], str]] = {
    "preEnqueue": (PreEnqueuePlugin, "PreEnqueuePlugin"),
    "queueSort": (QueueSortPlugin, "QueueSortPlugin"),
    "preFilter": (PreFilterPlugin, "PreFilterPlugin"),
    "filter": (FilterPlugin, "FilterPlugin"),
    "postFilter": (PostFilterPlugin, "PostFilterPlugin"),
    "preScore": (PreScorePlugin, "PreScorePlugin"),
    "score": (ScorePlugin, "ScorePlugin"),
    "reserve": (ReservePlugin, "ReservePlugin"),
    "permit": (PermitPlugin, "PermitPlugin"),
    "preBind": (PreBindPlugin, "PreBindPlugin"),
    "bind": (BindPlugin, "BindPlugin"),
    "postBind": (PostBindPlugin, "PostBindPlugin"),
}


# ------------------------------------------------------------------------------ waiting pods


class _WaitingPod:
    """A pod held at Permit until every waiting plugin allows it, one rejects it, or a timeout."""

    def __init__(self, pod: Pod, waits: Mapping[str, float], clock: Clock) -> None:
        self._pod = pod
        self._pending = dict(waits)
        self._result: Status | None = None
        self._done = False
        self._waiters: list[Callable[[Status | None], None]] = []
        for plugin, timeout in waits.items():
            message = f"rejected due to timeout after waiting {timeout:g}s at plugin {plugin}"
            clock.after(timeout, partial(self.reject, plugin, message))

    @property
    def pod(self) -> Pod:
        return self._pod

    def pending_plugins(self) -> list[str]:
        return sorted(self._pending)

    def allow(self, plugin: str) -> None:
        self._pending.pop(plugin, None)
        if not self._pending:
            self._finish(None)

    def reject(self, plugin: str, message: str) -> None:
        self._finish(Status(Code.UNSCHEDULABLE, (message,), plugin))

    def on_done(self, callback: Callable[[Status | None], None]) -> None:
        if self._done:
            callback(self._result)
        else:
            self._waiters.append(callback)

    def _finish(self, result: Status | None) -> None:
        if self._done:
            return
        self._done, self._result = True, result
        waiters, self._waiters = self._waiters, []
        for callback in waiters:
            callback(result)


class FrameworkHandle:
    """What the profiles share: snapshot, clock, API client, namespaces, waiting pods, the
    nominator and the seeded RNG."""

    def __init__(
        self,
        snapshot: SharedLister,
        clock: Clock,
        client: APIClient,
        namespaces: Callable[[], Mapping[str, Mapping[str, str]]] = dict,
        nominator: Nominator | None = None,
        rng: Random | None = None,
    ) -> None:
        self._snapshot, self._clock, self._client = snapshot, clock, client
        self._namespaces = namespaces
        self.waiting_pods: dict[str, _WaitingPod] = {}
        self._nominator = nominator if nominator is not None else Nominator()
        self._rng = rng if rng is not None else Random(0)

    def nominator(self) -> Nominator:
        """The ``PodNominator``: pods nominated to nodes (``NominatedPodsForNode``)."""
        return self._nominator

    def rng(self) -> Random:
        """The scheduler's seeded RNG (tie-breaks, the preemption offset)."""
        return self._rng

    def snapshot_shared_lister(self) -> SharedLister:
        return self._snapshot

    def get_waiting_pod(self, uid: str) -> WaitingPod | None:
        return self.waiting_pods.get(uid)

    def iterate_over_waiting_pods(self, callback: Callable[[WaitingPod], None]) -> None:
        for wp in list(self.waiting_pods.values()):
            callback(wp)

    def reject_waiting_pod(self, uid: str) -> bool:
        wp = self.waiting_pods.get(uid)
        if wp is None:
            return False
        wp.reject("", "removed")
        return True

    def clock(self) -> Clock:
        return self._clock

    def client(self) -> APIClient:
        return self._client

    def namespace_labels(self, namespace: str) -> Mapping[str, str] | None:
        return self._namespaces().get(namespace)

    def namespaces(self) -> Iterable[tuple[str, Mapping[str, str]]]:
        return self._namespaces().items()


class ProfileHandle:
    """The ``Handle`` one profile's plugins get: the shared handle plus the profile's runners."""

    def __init__(self, shared: FrameworkHandle) -> None:
        self.shared = shared
        self._framework: Framework | None = None

    @property
    def framework(self) -> Framework:
        if self._framework is None:
            raise RuntimeError("the profile's framework is still being built")
        return self._framework

    def snapshot_shared_lister(self) -> SharedLister:
        return self.shared.snapshot_shared_lister()

    def get_waiting_pod(self, uid: str) -> WaitingPod | None:
        return self.shared.get_waiting_pod(uid)

    def iterate_over_waiting_pods(self, callback: Callable[[WaitingPod], None]) -> None:
        self.shared.iterate_over_waiting_pods(callback)

    def reject_waiting_pod(self, uid: str) -> bool:
        return self.shared.reject_waiting_pod(uid)

    def clock(self) -> Clock:
        return self.shared.clock()

    def client(self) -> APIClient:
        return self.shared.client()

    def namespace_labels(self, namespace: str) -> Mapping[str, str] | None:
        return self.shared.namespace_labels(namespace)

    def namespaces(self) -> Iterable[tuple[str, Mapping[str, str]]]:
        return self.shared.namespaces()

    def nominator(self) -> Nominator:
        return self.shared.nominator()

    def rng(self) -> Random:
        return self.shared.rng()

    def run_filter_plugins_with_nominated_pods(
        self, state: CycleState, pod: Pod, node_info: NodeInfo
    ) -> Status | None:
        return self.framework.run_filter_plugins_with_nominated_pods(state, pod, node_info)

    def run_pre_filter_extension_add_pod(
        self, state: CycleState, pod: Pod, to_add: PodInfo, node_info: NodeInfo
    ) -> Status | None:
        return self.framework.run_pre_filter_extension_add_pod(state, pod, to_add, node_info)

    def run_pre_filter_extension_remove_pod(
        self, state: CycleState, pod: Pod, to_remove: PodInfo, node_info: NodeInfo
    ) -> Status | None:
        return self.framework.run_pre_filter_extension_remove_pod(state, pod, to_remove, node_info)


# ------------------------------------------------------------------------------ building


def _instantiate(
    profile: ProfileConfig, registry: Registry, handle: ProfileHandle
) -> dict[str, Plugin]:
    refs = [r for s in profile.plugins.values() for r in s.enabled]
    problems: list[ConfigError] = []
    for ref in refs:
        if ref.name in DECLARED_OUT_OF_SCOPE:
            message = (
                f'plugin "{ref.name}" is declared out of scope: {DECLARED_OUT_OF_SCOPE[ref.name]}'
            )
            problems.append(ConfigError(message, ref.path))
        elif ref.name not in registry:
            problems.append(ConfigError(_no_such_plugin(ref.name, registry), ref.path))
    for name, (_, path) in profile.plugin_args.items():
        if name not in registry and name not in DECLARED_OUT_OF_SCOPE:
            problems.append(
                ConfigError(_no_such_plugin(name, registry), path.removesuffix(".args"))
            )
    if problems:
        raise ConfigError.every(problems)
    plugins: dict[str, Plugin] = {}
    for ref in refs:
        if ref.name in plugins:
            continue
        args, path = profile.plugin_args.get(ref.name, ({}, ""))
        try:
            plugins[ref.name] = registry[ref.name](args, handle)
        except ConfigError as err:
            problems.append(err.under(path or f"{profile.path}.pluginConfig"))
    if problems:
        raise ConfigError.every(problems)
    return plugins


def _no_such_plugin(name: str, registry: Registry) -> str:
    return f'plugin "{name}" does not exist{did_you_mean(name, registry)}'


def _point_list(profile: ProfileConfig, point: str, plugins: Mapping[str, Plugin]) -> list[str]:
    """The plugin names at ``point``, with multiPoint expanded (``expandMultiPointPlugins``)."""
    proto, type_name = _POINTS[point]
    own = profile.plugins[point]
    names: list[str] = []
    for ref in own.enabled:
        if not implements(plugins[ref.name], proto):
            raise ConfigError(f'plugin "{ref.name}" does not extend {type_name} plugin', ref.path)
        if ref.name in names:
            raise ConfigError(f'plugin "{ref.name}" already registered as "{type_name}"', ref.path)
        names.append(ref.name)
    if "*" in own.disabled:
        return names
    overrides: list[str] = []
    multi: list[str] = []
    for ref in profile.plugins["multiPoint"].enabled:
        if not implements(plugins[ref.name], proto) or ref.name in own.disabled:
            continue
        if ref.name in names:
            overrides.append(ref.name)
        elif ref.name in multi:
            raise ConfigError(f'plugin "{ref.name}" already registered as "{type_name}"', ref.path)
        else:
            multi.append(ref.name)
    head = [n for n in names if n in overrides]
    return head + multi + [n for n in names if n not in overrides]


def _score_weights(profile: ProfileConfig, plugins: Mapping[str, Plugin]) -> dict[str, int]:
    weights: dict[str, int] = {}
    refs: list[PluginRef] = [*profile.plugins["score"].enabled]
    refs += profile.plugins["multiPoint"].enabled
    for ref in refs:
        if implements(plugins[ref.name], ScorePlugin) and ref.name not in weights:
            weights[ref.name] = ref.weight or 1
    return weights


# ------------------------------------------------------------------------------ the framework


class Framework:
    """One profile's plugins, sorted into extension points, and the code that runs them."""

    def __init__(self, profile: ProfileConfig, registry: Registry, handle: FrameworkHandle) -> None:
        self.profile_name = profile.scheduler_name
        self.percentage_of_nodes_to_score = profile.percentage_of_nodes_to_score
        self.handle = handle
        plugin_handle = ProfileHandle(handle)
        self.plugins = _instantiate(profile, registry, plugin_handle)
        plugin_handle._framework = self
        lists: dict[str, list[str]] = {}
        problems: list[ConfigError] = []
        for point in _POINTS:
            try:
                lists[point] = _point_list(profile, point, self.plugins)
            except ConfigError as err:
                problems.append(err)
        if problems:
            raise ConfigError.every(problems)
        self.lists = lists
        self._check_required(profile, lists)
        get = self.plugins.__getitem__
        self.queue_sort: QueueSortPlugin = get(lists["queueSort"][0])  # type: ignore[assignment]
        self.pre_enqueue: list[PreEnqueuePlugin] = [get(n) for n in lists["preEnqueue"]]  # type: ignore[misc]
        self.pre_filter: list[PreFilterPlugin] = [get(n) for n in lists["preFilter"]]  # type: ignore[misc]
        self.filter: list[FilterPlugin] = [get(n) for n in lists["filter"]]  # type: ignore[misc]
        self.post_filter: list[PostFilterPlugin] = [get(n) for n in lists["postFilter"]]  # type: ignore[misc]
        self.pre_score: list[PreScorePlugin] = [get(n) for n in lists["preScore"]]  # type: ignore[misc]
        self.score: list[ScorePlugin] = [get(n) for n in lists["score"]]  # type: ignore[misc]
        self.reserve: list[ReservePlugin] = [get(n) for n in lists["reserve"]]  # type: ignore[misc]
        self.permit: list[PermitPlugin] = [get(n) for n in lists["permit"]]  # type: ignore[misc]
        self.pre_bind: list[PreBindPlugin] = [get(n) for n in lists["preBind"]]  # type: ignore[misc]
        self.bind: list[BindPlugin] = [get(n) for n in lists["bind"]]  # type: ignore[misc]
        self.post_bind: list[PostBindPlugin] = [get(n) for n in lists["postBind"]]  # type: ignore[misc]
        self.score_weights = _score_weights(profile, self.plugins)
        self._active_filters: dict[frozenset[str], tuple[tuple[str, FilterFn], ...]] = {}
        self._pre_filter_extensions = [
            (pl.name(), ext)
            for pl in self.pre_filter
            if (ext := pl.pre_filter_extensions()) is not None
        ]

    @staticmethod
    def _check_required(profile: ProfileConfig, lists: Mapping[str, list[str]]) -> None:
        path = f"{profile.path}.plugins"
        if not lists["queueSort"]:
            raise ConfigError("no queue sort plugin is enabled", f"{path}.queueSort")
        if len(lists["queueSort"]) > 1:
            raise ConfigError("only one queue sort plugin can be enabled", f"{path}.queueSort")
        if not lists["bind"]:
            raise ConfigError("at least one bind plugin is needed", f"{path}.bind")

    # ---- queue

    def less(self, a: QueuedPodInfo, b: QueuedPodInfo) -> bool:
        return self.queue_sort.less(a, b)

    def run_pre_enqueue_plugins(self, pod: Pod) -> Status | None:
        for pl in self.pre_enqueue:
            status = pl.pre_enqueue(pod)
            if status is not None and not status.is_success():
                return status.with_plugin(pl.name())
        return None

    # ---- scheduling cycle

    def run_pre_filter_plugins(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status | None, set[str]]:
        """The merged narrowing, the first rejection, and the plugins that narrowed."""
        result: PreFilterResult | None = None
        skip: set[str] = set()
        narrowing: set[str] = set()
        try:
            for pl in self.pre_filter:
                name = pl.name()
                res, status = pl.pre_filter(state, pod, nodes)
                if status is not None and status.code is Code.SKIP:
                    skip.add(name)
                    continue
                if status is not None and not status.is_success():
                    if status.is_rejected():
                        return None, status.with_plugin(name), narrowing
                    message = f"running PreFilter plugin {name!r}: {status.message()}"
                    return None, Status(Code.ERROR, (message,), name), narrowing
                if res is None or res.all_nodes():
                    continue
                narrowing.add(name)
                result = res if result is None else result.merge(res)
                if result.node_names is not None and not result.node_names:
                    return result, _conflict(narrowing), narrowing
            return result, None, narrowing
        finally:
            state.skip_filter_plugins = frozenset(skip)

    def active_filters(
        self, state: CycleState
    ) -> list[tuple[str, Callable[[CycleState, Pod, NodeInfo], Status | None]]]:
        """The (name, filter) pairs not skipped at PreFilter, in order (the hot loop's input);
        made once per set of skipped plugins (preemption's dry runs ask once per node)."""
        skip = state.skip_filter_plugins
        active = self._active_filters.get(skip)
        if active is None:
            active = tuple((p.name(), p.filter) for p in self.filter if p.name() not in skip)
            self._active_filters[skip] = active
        return list(active)

    def filter_key(self, state: CycleState, pod: Pod) -> object | None:
        """The key under which a node keeps this cycle's Filter verdict (``equivalence``):
        None unless every Filter plugin not skipped at PreFilter is a ``NodeLocalFilter``."""
        if not equivalence.KEEP:
            return None
        skip = state.skip_filter_plugins
        parts: list[tuple[FilterPlugin, Hashable]] = []
        for p in self.filter:
            if p.name() in skip:
                continue
            if not implements(p, NodeLocalFilter):
                return None
            parts.append((p, cast(NodeLocalFilter, p).filter_signature(state, pod)))
        return equivalence.intern_key(tuple(parts))

    def run_filter_plugins(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        """The conjunction of the Filter plugins, stopping at the first failure."""
        return run_filters(self.active_filters(state), state, pod, node_info)

    def run_filter_plugins_with_nominated_pods(
        self,
        state: CycleState,
        pod: Pod,
        node_info: NodeInfo,
        filters: Sequence[tuple[str, FilterFn]] | None = None,
    ) -> Status | None:
        """The two-pass filter (see the module docstring); ``filters`` defaults to the
        active ones."""
        if filters is None:
            filters = self.active_filters(state)
        nominated = self.handle.nominator().nominated_pods_for_node(node_info.name)
        if nominated:
            added, status = self._add_ge_nominated_pods(state, pod, node_info, nominated)
            if status is not None:
                return status
            if added is not None:
                status = run_filters(filters, added[0], pod, added[1])
                if status is not None:
                    return status
        return run_filters(filters, state, pod, node_info)

    def _add_ge_nominated_pods(
        self, state: CycleState, pod: Pod, node_info: NodeInfo, nominated: Sequence[PodInfo]
    ) -> tuple[tuple[CycleState, NodeInfo] | None, Status | None]:
        """Clones with the nominated pods of priority ≥ ``pod``'s added (None if there are
        none), or an error from an ``add_pod`` extension."""
        priority, uid = pod.priority, pod.uid
        chosen = [pi for pi in nominated if pi.pod.priority >= priority and pi.pod.uid != uid]
        if not chosen:
            return None, None
        state_out, node_out = state.clone(), node_info.clone()
        for pi in chosen:
            node_out.add_pod(pi)
            status = self.run_pre_filter_extension_add_pod(state_out, pod, pi, node_out)
            if status is not None:
                return None, status
        return (state_out, node_out), None

    def run_pre_filter_extension_add_pod(
        self, state: CycleState, pod: Pod, to_add: PodInfo, node_info: NodeInfo
    ) -> Status | None:
        """Tell every (not skipped) PreFilter plugin with extensions that ``to_add`` joined
        ``node_info``; an error names the plugin."""
        skip = state.skip_filter_plugins
        for name, ext in self._pre_filter_extensions:
            if name in skip:
                continue
            status = ext.add_pod(state, pod, to_add, node_info)
            if status is not None and not status.is_success():
                message = f"running AddPod on PreFilter plugin {name!r}: {status.message()}"
                return Status(Code.ERROR, (message,), name)
        return None

    def run_pre_filter_extension_remove_pod(
        self, state: CycleState, pod: Pod, to_remove: PodInfo, node_info: NodeInfo
    ) -> Status | None:
        """As ``run_pre_filter_extension_add_pod``, for a pod leaving ``node_info``."""
        skip = state.skip_filter_plugins
        for name, ext in self._pre_filter_extensions:
            if name in skip:
                continue
            status = ext.remove_pod(state, pod, to_remove, node_info)
            if status is not None and not status.is_success():
                message = f"running RemovePod on PreFilter plugin {name!r}: {status.message()}"
                return Status(Code.ERROR, (message,), name)
        return None

    def run_post_filter_plugins(
        self, state: CycleState, pod: Pod, diagnosis: Diagnosis
    ) -> tuple[PostFilterResult | None, Status | None]:
        """The first success wins; UnschedulableAndUnresolvable or an error stops; otherwise
        the reasons are joined and the last rejecting plugin's result is kept (a result can
        clear the pod's nomination)."""
        reasons: list[str] = []
        kept: PostFilterResult | None = None
        rejector = ""
        for pl in self.post_filter:
            result, status = pl.post_filter(state, pod, diagnosis)
            if status is None or status.is_success():
                return result, None
            if status.code is Code.UNSCHEDULABLE_AND_UNRESOLVABLE:
                return result, status.with_plugin(pl.name())
            if not status.is_rejected():
                return None, Status(Code.ERROR, status.reasons, pl.name())
            if result is not None:
                kept = result
            reasons.extend(status.reasons)
            rejector = rejector or pl.name()
        return kept, Status(Code.UNSCHEDULABLE, tuple(reasons), rejector)

    def has_post_filter_plugins(self) -> bool:
        return bool(self.post_filter)

    def run_pre_score_plugins(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> Status | None:
        skip: set[str] = set()
        for pl in self.pre_score:
            status = pl.pre_score(state, pod, nodes)
            if status is None or status.is_success():
                continue
            if status.code is Code.SKIP:
                skip.add(pl.name())
                continue
            message = f"running PreScore plugin {pl.name()!r}: {status.message()}"
            return Status(Code.ERROR, (message,), pl.name())
        state.skip_score_plugins = frozenset(skip)
        return None

    def run_score_plugins(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[list[int], Status | None]:
        """Weighted sum over the Score plugins of their normalized scores, per node."""
        totals = [0] * len(nodes)
        for pl in self.score:
            name = pl.name()
            if name in state.skip_score_plugins:
                continue
            values, status = _plugin_scores(pl, state, pod, nodes)
            if status is not None:
                return totals, status
            weight = self.score_weights[name]
            if values and min(values) >= 0 and max(values) <= MAX_NODE_SCORE:
                totals = [t + v * weight for t, v in zip(totals, values, strict=True)]
                continue
            for i, value in enumerate(values):  # some score is out of range: add up to it
                if not 0 <= value <= MAX_NODE_SCORE:
                    message = (
                        f"plugin {name!r} returns an invalid score {value}, it should in "
                        f"the range of [0, {MAX_NODE_SCORE}] after normalizing"
                    )
                    return totals, Status(Code.ERROR, (message,), name)
                totals[i] += value * weight
        return totals, None

    def run_score_plugin(
        self, name: str, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[list[int], Status | None]:
        """One Score plugin's normalized, unweighted scores per node: 0 on every node when its
        PreScore said Skip (as in ``run_score_plugins``). A checker compares these one by one."""
        pl = next((p for p in self.score if p.name() == name), None)
        if pl is None or name in state.skip_score_plugins:
            return [0] * len(nodes), None
        return _plugin_scores(pl, state, pod, nodes)

    def run_reserve_plugins_reserve(self, state: CycleState, pod: Pod, node: str) -> Status | None:
        for pl in self.reserve:
            status = pl.reserve(state, pod, node)
            if status is not None and not status.is_success():
                if status.is_rejected():
                    return status.with_plugin(pl.name())
                message = f"running Reserve plugin {pl.name()!r}: {status.message()}"
                return Status(Code.ERROR, (message,), pl.name())
        return None

    def run_reserve_plugins_unreserve(self, state: CycleState, pod: Pod, node: str) -> None:
        for pl in reversed(self.reserve):
            pl.unreserve(state, pod, node)

    def run_permit_plugins(self, state: CycleState, pod: Pod, node: str) -> Status | None:
        """None, a rejection, or Wait (the pod is then held in ``handle.waiting_pods``)."""
        waits: dict[str, float] = {}
        for pl in self.permit:
            status, timeout = pl.permit(state, pod, node)
            if status is None or status.is_success():
                continue
            if status.is_rejected():
                return status.with_plugin(pl.name())
            if status.code is Code.WAIT:
                waits[pl.name()] = min(timeout, MAX_PERMIT_TIMEOUT)
                continue
            message = f"running Permit plugin {pl.name()!r}: {status.message()}"
            return Status(Code.ERROR, (message,), pl.name())
        if not waits:
            return None
        self.handle.waiting_pods[pod.uid] = _WaitingPod(pod, waits, self.handle.clock())
        message = f"one or more plugins asked to wait and no plugin rejected pod {pod.name!r}"
        return Status(Code.WAIT, (message,))

    def wait_on_permit(self, pod: Pod, then: Callable[[Status | None], None]) -> None:
        """Call ``then`` with the Permit outcome once the pod stops waiting (at once if it
        does not wait)."""
        wp = self.handle.waiting_pods.get(pod.uid)
        if wp is None:
            then(None)
            return

        def done(status: Status | None) -> None:
            self.handle.waiting_pods.pop(pod.uid, None)
            then(status)

        wp.on_done(done)

    # ---- binding cycle

    def run_pre_bind_plugins(self, state: CycleState, pod: Pod, node: str) -> Status | None:
        for pl in self.pre_bind:
            status = pl.pre_bind(state, pod, node)
            if status is not None and not status.is_success() and status.code is not Code.SKIP:
                message = f"running PreBind plugin {pl.name()!r}: {status.message()}"
                return Status(status.code if status.is_rejected() else Code.ERROR, (message,))
        return None

    def run_bind_plugins(self, state: CycleState, pod: Pod, node: str) -> Status | None:
        for pl in self.bind:
            status = pl.bind(state, pod, node)
            if status is not None and status.code is Code.SKIP:
                continue
            if status is not None and not status.is_success():
                message = f"running Bind plugin {pl.name()!r}: {status.message()}"
                code = status.code if status.is_rejected() else Code.ERROR
                return Status(code, (message,), pl.name())
            return None
        return Status(Code.SKIP, ("all bind plugins skipped",))

    def run_post_bind_plugins(self, state: CycleState, pod: Pod, node: str) -> None:
        for pl in self.post_bind:
            pl.post_bind(state, pod, node)

    def has_score_plugins(self) -> bool:
        return bool(self.score)

    def has_filter_plugins(self) -> bool:
        return bool(self.filter)


def run_filters(
    filters: Sequence[tuple[str, FilterFn]],
    state: CycleState,
    pod: Pod,
    node_info: NodeInfo,
) -> Status | None:
    for name, fn in filters:
        status = fn(state, pod, node_info)
        if status is not None and status.code is not Code.SUCCESS:
            if not status.is_rejected():
                message = f"running {name!r} filter plugin: {status.message()}"
                return Status(Code.ERROR, (message,), name)
            return status.with_plugin(name)
    return None


def _conflict(narrowing: set[str]) -> Status:
    names = sorted(narrowing)
    if len(names) == 1:
        message = f"node(s) didn't satisfy plugin {names[0]}"
    else:
        message = f"node(s) didn't satisfy plugin(s) [{' '.join(names)}] simultaneously"
    return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (message,))


def _plugin_scores(
    pl: ScorePlugin, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
) -> tuple[list[int], Status | None]:
    """``pl``'s normalized scores, in the order of ``nodes``. ``NodeScore`` records (upstream's
    ``NodeScoreList``) are made only for a plugin with a NormalizeScore extension, the one
    reader of node names; the others' scores stay a list of ints."""
    if implements(pl, BatchScorer):  # per plugin type: a Protocol check costs microseconds
        values, status = cast(BatchScorer, pl).score_nodes(state, pod, nodes)
        if status is not None and not status.is_success():
            message = f"running Score plugin {pl.name()!r}: {status.message()}"
            return [], Status(Code.ERROR, (message,), pl.name())
    else:
        values, score = [], pl.score
        for ni in nodes:
            value, status = score(state, pod, ni)
            if status is not None and not status.is_success():
                message = f"running Score plugin {pl.name()!r}: {status.message()}"
                return values, Status(Code.ERROR, (message,), pl.name())
            values.append(value)
    ext = pl.score_extensions()
    if ext is None:
        return values, None
    scores = [NodeScore(ni.name, value) for ni, value in zip(nodes, values, strict=True)]
    status = ext.normalize_score(state, pod, scores)
    if status is not None and not status.is_success():
        message = f"running Normalize on Score plugin {pl.name()!r}: {status.message()}"
        return [ns.score for ns in scores], Status(Code.ERROR, (message,), pl.name())
    return [ns.score for ns in scores], None
