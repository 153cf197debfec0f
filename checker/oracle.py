"""The real kube-scheduler (k8s.io/kubernetes v1.34.2) as an in-process oracle.

``oracle/`` is a Go module whose binary, ``schedspec-oracle``, builds kube-scheduler's default
profile in-process (``pkg/scheduler/scheduler.go`` ``New`` over a fake clientset) and answers
JSON-lines requests on stdin. This module builds that binary once per machine (cached under
``$XDG_CACHE_HOME/schedspec/oracle/<hash of the Go sources>/``), starts it and speaks the protocol
(``docs/oracle.md``)::

    with Oracle() as oracle:
        oracle.version()["kubernetes"]                 # "v1.34.2"
        oracle.filter(cluster, "default/web-0")        # per node: every Filter plugin's status
        oracle.score(cluster, "default/web-0")         # per feasible node: raw/normalised/weighted
        oracle.schedule(cluster, seed=0)               # cycles to quiescence: bindings, FitErrors
        oracle.validate(pod_manifest)                  # the API server's verdict on one object

Errors (all ``OracleError``, a ``SchedspecError``: the CLI turns them into exit 2)::

    OracleError                 Go missing, build failed (with the log's tail), child crashed or
     │                          timed out (with its stderr's tail)
     └── OracleRequestError     the bridge answered {"ok": false, "error": ...}; it keeps serving

``SCHEDSPEC_ORACLE_BIN`` names a prebuilt binary (no Go needed); ``SCHEDSPEC_ORACLE_SRC`` the Go
module when schedspec is not run from its source tree.
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import hashlib
import json
import os
import selectors
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from types import TracebackType
from typing import IO, Any, TextIO

from schedspec.cluster import Cluster, load
from schedspec.errors import SchedspecError, UsageError

__all__ = [
    "Oracle",
    "OracleError",
    "OracleRequestError",
    "binary_path",
    "cluster_json",
    "ensure_binary",
    "run_oracle_command",
]

_GO_MISSING = "go not found on PATH: install Go ≥ 1.24 to use the oracle"
_TAIL = 40  # lines of a build log or of stderr shown in an error


class OracleError(SchedspecError):
    """The oracle cannot answer: Go is missing, the build failed, or the child died."""


class OracleRequestError(OracleError):
    """The oracle refused one request (malformed, or an object the real API would reject)."""


# ---------------------------------------------------------------------------------- the binary


def source_dir() -> Path:
    """The Go module ``oracle/`` (``$SCHEDSPEC_ORACLE_SRC``, else next to this package's source)."""
    env = os.environ.get("SCHEDSPEC_ORACLE_SRC")
    path = Path(env) if env else Path(__file__).resolve().parent.parent / "oracle"
    if not (path / "go.mod").is_file():
        raise OracleError(
            f"the oracle's Go sources are not at {path} (set SCHEDSPEC_ORACLE_SRC to the "
            "oracle/ directory of a schedspec checkout, or SCHEDSPEC_ORACLE_BIN to a binary)"
        )
    return path


def _sources(root: Path) -> list[Path]:
    files = [root / "go.mod", root / "go.sum", *root.rglob("*.go")]
    return sorted(f for f in files if f.is_file())


def source_hash(root: Path) -> str:
    """A digest of go.mod, go.sum and every .go file: the cache key of a build."""
    digest = hashlib.sha256()
    for f in _sources(root):
        digest.update(f.relative_to(root).as_posix().encode() + b"\0")
        digest.update(f.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def _cache_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "schedspec" / "oracle"


def binary_path() -> Path:
    """Where the binary for the current sources is (or will be) cached."""
    return _cache_root() / source_hash(source_dir()) / "schedspec-oracle"


def ensure_binary() -> Path:
    """The oracle binary, built with ``go build`` if the cache has none for these sources."""
    if prebuilt := os.environ.get("SCHEDSPEC_ORACLE_BIN"):
        if not os.access(prebuilt, os.X_OK):
            raise OracleError(f"SCHEDSPEC_ORACLE_BIN={prebuilt} is not an executable file")
        return Path(prebuilt)
    target = binary_path()
    if target.is_file():
        return target
    go = shutil.which("go")
    if go is None:
        raise OracleError(_GO_MISSING)
    target.parent.mkdir(parents=True, exist_ok=True)
    with _locked(target.parent / ".lock"):
        if not target.is_file():  # another process may have built it while we waited
            _go_build(go, source_dir(), target)
    return target


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    with open(path, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _go_build(go: str, src: Path, target: Path) -> None:
    log = target.parent / "build.log"
    tmp = target.with_name(target.name + ".tmp")
    env = {**os.environ, "GOFLAGS": "-mod=mod"}
    command = [go, "build", "-o", str(tmp), "./cmd/schedspec-oracle"]
    with open(log, "w") as out:
        done = subprocess.run(command, cwd=src, stdout=out, stderr=subprocess.STDOUT, env=env)
    if done.returncode != 0:
        tail = "\n".join(log.read_text(errors="replace").splitlines()[-_TAIL:])
        raise OracleError(
            f"building the oracle failed (go build exited {done.returncode}; log: {log}):\n{tail}"
        )
    tmp.replace(target)


# ------------------------------------------------------------------------------- the protocol


def cluster_json(cluster: Cluster) -> dict[str, Any]:
    """The request shape of a loaded cluster: plain API-shaped dicts per kind."""
    out: dict[str, Any] = {
        "nodes": list(cluster.nodes),
        "pods": list(cluster.pods),
        "pdbs": list(cluster.pdbs),
        "namespaces": list(cluster.namespaces),
        "priorityClasses": list(cluster.priority_classes),
        "services": list(cluster.of_kind("Service")),
        "replicationControllers": list(cluster.of_kind("ReplicationController")),
        "replicaSets": list(cluster.of_kind("ReplicaSet")),
        "statefulSets": list(cluster.of_kind("StatefulSet")),
    }
    if cluster.scheduler_config is not None:
        out["schedulerConfig"] = cluster.scheduler_config
    return out


class Oracle:
    """A running ``schedspec-oracle`` child; a context manager (``close()`` ends the child).

    ``timeout`` bounds each request in seconds; ``binary`` skips the build.
    """

    def __init__(self, *, binary: str | os.PathLike[str] | None = None, timeout: float = 300.0):
        if timeout <= 0:
            raise ValueError(f"timeout={timeout!r} must be positive")
        self.binary = Path(binary) if binary is not None else ensure_binary()
        self.timeout = timeout
        # Lives as long as the child (its stderr, read back when it dies); close() closes it.
        self._stderr: IO[bytes] = tempfile.TemporaryFile()  # noqa: SIM115
        try:
            self._proc = subprocess.Popen(
                [str(self.binary)],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self._stderr,
            )
        except OSError as err:
            self._stderr.close()
            raise OracleError(f"cannot start the oracle {self.binary}: {err}") from None
        self._selector = selectors.DefaultSelector()
        assert self._proc.stdout is not None
        self._selector.register(self._proc.stdout, selectors.EVENT_READ)
        self._sent = self._read = 0  # requests sent, answers read (both numbered from 1)
        self._early: dict[int, dict[str, Any]] = {}  # answers read before their caller asked
        self._unread = bytearray()  # stdout read past the last whole line

    @property
    def pid(self) -> int:
        return self._proc.pid

    def __enter__(self) -> Oracle:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        """Ends the child (EOF on stdin, then a kill if it lingers)."""
        if self._proc.poll() is None:
            with contextlib.suppress(OSError):
                assert self._proc.stdin is not None
                self._proc.stdin.close()
            try:
                self._proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()
        self._selector.close()
        for stream in (self._proc.stdin, self._proc.stdout):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()
        self._stderr.close()

    # ---- requests

    def version(self) -> dict[str, Any]:
        return self.request({"op": "version"})

    def filter(self, cluster: Cluster | dict[str, Any], pod: str) -> dict[str, Any]:
        return self.request({"op": "filter", "cluster": _as_json(cluster), "pod": pod})

    def score(self, cluster: Cluster | dict[str, Any], pod: str) -> dict[str, Any]:
        return self.request({"op": "score", "cluster": _as_json(cluster), "pod": pod})

    def schedule(
        self,
        cluster: Cluster | dict[str, Any],
        seed: int = 0,
        *,
        ties: bool = True,
        record_queue: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """Cycles to quiescence. ``record_queue`` (``{"idle": s, "horizon": s, "later": [{"at":
        s, "node": NODE}]}``) runs in virtual time and adds ``queue``: the real queue's trace
        (docs/oracle.md)."""
        request = {"op": "schedule", "cluster": _as_json(cluster), "seed": seed, "ties": ties}
        if record_queue is not None:
            request["recordQueue"] = record_queue
        return self.request(request)

    def validate(self, obj: dict[str, Any]) -> dict[str, Any]:
        """The API server's verdict on creating ``obj`` (a v1 Pod, Node or Namespace, a policy/v1
        PodDisruptionBudget or a scheduling.k8s.io/v1 PriorityClass) as ``kubectl create`` sends
        it: ``valid`` and every error (``field``, ``type``, ``detail``, ``phase``: decode, create
        or, for a status the input carries, status), after the API server's decoding, defaulting
        and create strategy; ``warnings`` as the API server would return them."""
        return self.request({"op": "validate", "object": obj})

    def score_pods(
        self, cluster: Cluster | dict[str, Any], pods: list[str]
    ) -> list[dict[str, Any]]:
        """``score`` for each of ``pods`` on one scheduler, in one request: per pod the answer a
        ``score`` of that pod alone gets, ``{"ok": false, "error": ...}`` where it would fail."""
        response = self.receive(self.send(score_pods_request(cluster, pods)))
        answers: list[dict[str, Any]] = response["answers"]
        return answers

    def request(self, body: dict[str, Any]) -> dict[str, Any]:
        """Sends one request; the response, or ``OracleRequestError`` if it says ``ok: false``."""
        return self.receive(self.send(body))

    def send(self, body: dict[str, Any]) -> int:
        """Sends one request without waiting for its answer; ``receive(ticket)`` reads it. The
        bridge answers in order and reads ahead while it works, so a caller can send the next
        request before reading an answer (the three-way campaign does)."""
        return self.send_line(json.dumps(body, separators=(",", ":")))

    def receive(self, ticket: int) -> dict[str, Any]:
        """The answer to the request ``send`` numbered ``ticket``, or ``OracleRequestError`` if
        it says ``ok: false``. Answers to earlier requests not yet received are kept for them."""
        response = self.receive_line(ticket)
        if not response.get("ok"):
            raise OracleRequestError(f"the oracle refused the request: {response.get('error')}")
        return response

    def request_line(self, line: str) -> dict[str, Any]:
        """Sends one raw line (no newline in it) and returns the response object as is."""
        return self.receive_line(self.send_line(line))

    def send_line(self, line: str) -> int:
        if "\n" in line:
            raise ValueError("line must not contain a newline")
        assert self._proc.stdin is not None
        try:
            self._proc.stdin.write(line.encode() + b"\n")
            self._proc.stdin.flush()
        except (BrokenPipeError, ValueError, OSError):
            raise self._crashed() from None
        self._sent += 1
        return self._sent

    def receive_line(self, ticket: int) -> dict[str, Any]:
        if ticket not in self._early and not self._read < ticket <= self._sent:
            raise ValueError(f"ticket={ticket!r} names no request whose answer is still to take")
        while ticket not in self._early:
            self._early[self._read + 1] = self._read_answer()
            self._read += 1
        return self._early.pop(ticket)

    def _read_answer(self) -> dict[str, Any]:
        answer = self._read_line()
        if not answer:
            raise self._crashed()
        try:
            decoded = json.loads(answer)
        except json.JSONDecodeError:
            message = f"the oracle answered something that is not JSON: {answer[:200]!r}"
            raise OracleError(message) from None
        if not isinstance(decoded, dict):
            raise OracleError(f"the oracle answered a non-object: {answer[:200]!r}")
        return decoded

    def _read_line(self) -> bytes:
        """The next line of the child's stdout (b"" at EOF), read unbuffered: a buffered reader
        could hold a second answer the selector no longer sees."""
        assert self._proc.stdout is not None
        fd = self._proc.stdout.fileno()
        deadline = time.monotonic() + self.timeout
        searched = 0
        while (end := self._unread.find(b"\n", searched)) < 0:
            searched = len(self._unread)
            if not self._selector.select(timeout=max(0.0, deadline - time.monotonic())):
                if time.monotonic() >= deadline:
                    raise OracleError(
                        f"the oracle (pid {self._proc.pid}) did not answer within "
                        f"{self.timeout:g}s" + self._stderr_tail()
                    )
                continue
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                return b""
            self._unread += chunk
        line = bytes(self._unread[: end + 1])
        del self._unread[: end + 1]
        return line

    # ---- failure reports

    def _crashed(self) -> OracleError:
        try:
            code = self._proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            code = None
        how = (
            f"was killed by signal {-code}"
            if code is not None and code < 0
            else f"exited with code {code}"
            if code is not None
            else "closed its output"
        )
        return OracleError(f"the oracle process (pid {self._proc.pid}) {how}" + self._stderr_tail())

    def _stderr_tail(self) -> str:
        try:
            self._stderr.seek(0)
            lines = self._stderr.read().decode(errors="replace").splitlines()[-_TAIL:]
        except (OSError, ValueError):
            return ""
        return ("; its stderr ends with:\n" + "\n".join(lines)) if lines else "; stderr was empty"


def _as_json(cluster: Cluster | dict[str, Any]) -> dict[str, Any]:
    return cluster_json(cluster) if isinstance(cluster, Cluster) else cluster


def score_pods_request(cluster: Cluster | dict[str, Any], pods: list[str]) -> dict[str, Any]:
    """The request of :meth:`Oracle.score_pods`: ``score`` with ``pods`` instead of ``pod``."""
    return {"op": "score", "cluster": _as_json(cluster), "pods": list(pods)}


# ------------------------------------------------------------------------------------ the CLI


def run_oracle_command(args: argparse.Namespace, out: TextIO) -> int:
    """``schedspec oracle version|filter``: the real scheduler's answer, as text or JSON."""
    cluster = load(*args.cluster) if args.oracle_command == "filter" else None
    if cluster is not None and cluster.find_pod(args.pod) is None:
        raise UsageError(f"--pod {args.pod}: no such pod in the cluster")
    with Oracle() as oracle:
        answer = oracle.version() if cluster is None else oracle.filter(cluster, args.pod)
    answer.pop("ok", None)
    if args.json:
        json.dump(answer, out, indent=2, sort_keys=True)
        print(file=out)
        return 0
    lines = version_lines(answer) if cluster is None else filter_lines(answer)
    print("\n".join(lines), file=out)
    return 0


def version_lines(answer: dict[str, Any]) -> list[str]:
    gates = answer.get("feature_gates", {})
    lines = [f"kube-scheduler {answer.get('kubernetes')} (in-process, {answer.get('go')})"]
    lines.append("feature gates relevant to scheduling:")
    lines += [f"  {name}={str(on).lower()}" for name, on in sorted(gates.items())]
    lines.append("declared out of scope:")
    lines += [f"  - {item}" for item in answer.get("declared_out_of_scope", [])]
    return lines


def filter_lines(answer: dict[str, Any]) -> list[str]:
    feasible = answer.get("feasible", [])
    nodes = answer.get("nodes", [])
    lines = [f"Pod {answer.get('pod')}: feasible on {len(feasible)}/{len(nodes)} node(s)"]
    if fit_error := answer.get("fit_error"):
        lines.append(f"  {fit_error}")
    width = max([4, *(len(n["node"]) for n in nodes)])
    for node in nodes:
        verdict = node["verdict"]
        mark = "✓" if verdict["code"] == "Success" else "✗"
        lines.append(f"  {node['node']:<{width}}  {mark} {verdict['code']}")
        for f in node["filters"]:
            if f["code"] not in ("Success", "Skip"):
                why = "; ".join(f.get("reasons") or []) or f.get("error", "")
                lines.append(f"  {'':<{width}}      {f['plugin']}: {why} [{f['code']}]")
    return lines
