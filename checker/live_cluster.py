"""A real API server on loopback for tests: etcd v3.6 + kube-apiserver v1.34.2, and the real
kube-scheduler v1.34.2 against it.

``live/`` is a Go module pinning ``k8s.io/kubernetes v1.34.2`` (staging modules replaced by their
``v0.34.2`` releases, as ``oracle/``) and etcd's own ``go.etcd.io/etcd/server/v3 v3.6.4`` (the
version kubernetes v1.34.2 pins), as ``tool`` directives. ``ensure_binaries()`` builds
``etcd``, ``kube-apiserver``, ``kube-scheduler`` and ``schedspec-pki`` (a throwaway CA, a serving
certificate for 127.0.0.1 and a service-account key pair) once per machine and caches them under
``$XDG_CACHE_HOME/schedspec/live/<hash of live/'s go.mod, go.sum and .go files>/``, like the
oracle's binary (``docs/live.md``)::

    with LiveCluster() as live:                 # etcd + kube-apiserver, ready to serve
        live.kubeconfig("admin")                # system:masters (token auth)
        live.kubeconfig("restricted")           # no RBAC rights at all until granted
        live.start_scheduler()                  # kube-scheduler, default profile, as
                                                # system:kube-scheduler, leader election off

Every child runs in its own session with ``PR_SET_PDEATHSIG`` (it dies with this process) and is
stopped by ``close()`` (SIGTERM, then SIGKILL), which also removes the data directory.

Errors (``LiveClusterError``, a ``SchedspecError``): Go missing, a failed build (the log's
tail), a child that exited or did not get ready in time (the tail of its log).
"""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import json
import os
import secrets
import shutil
import signal
import socket
import ssl
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any

import yaml

from schedspec.checker.oracle import source_hash
from schedspec.errors import SchedspecError

__all__ = [
    "BINARIES",
    "USERS",
    "Child",
    "LiveCluster",
    "LiveClusterError",
    "binary_dir",
    "ensure_binaries",
    "free_port",
    "source_dir",
]

_TAIL = 40
_VERSION = "v1.34.2"
# kube-apiserver reports this version (discovery, /version) as a release build would.
_LDFLAGS = " ".join(
    f"-X k8s.io/component-base/version.{name}={value}"
    for name, value in (("gitVersion", _VERSION), ("gitMajor", "1"), ("gitMinor", "34"))
)

BINARIES: Mapping[str, str] = {
    "etcd": "go.etcd.io/etcd/server/v3",
    "kube-apiserver": "k8s.io/kubernetes/cmd/kube-apiserver",
    "kube-scheduler": "k8s.io/kubernetes/cmd/kube-scheduler",
    "schedspec-pki": "./cmd/schedspec-pki",
}
"""Each cached binary and the Go package it is built from (in ``live/``)."""


class LiveClusterError(SchedspecError):
    """The test cluster cannot run: Go missing, a build failed, a child died or never got ready."""


# -------------------------------------------------------------------------------- the binaries


def source_dir() -> Path:
    """The Go module ``live/`` (``$SCHEDSPEC_LIVE_SRC``, else next to this package's source)."""
    env = os.environ.get("SCHEDSPEC_LIVE_SRC")
    path = Path(env) if env else Path(__file__).resolve().parent.parent / "live"
    if not (path / "go.mod").is_file():
        raise LiveClusterError(
            f"the live cluster's Go sources are not at {path} (set SCHEDSPEC_LIVE_SRC to the "
            "live/ directory of a schedspec checkout)"
        )
    return path


def binary_dir() -> Path:
    """Where the binaries for the current sources are (or will be) cached."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "schedspec" / "live" / source_hash(source_dir())


def ensure_binaries(log: Callable[[str], None] | None = None) -> Path:
    """The directory holding every binary of ``BINARIES``, building those the cache lacks
    (``go build``, one at a time: a first build of kube-apiserver takes many minutes)."""
    target = binary_dir()
    missing = [name for name in BINARIES if not (target / name).is_file()]
    if not missing:
        return target
    go = shutil.which("go")
    if go is None:
        raise LiveClusterError("go not found on PATH: install Go ≥ 1.24 to run a live cluster")
    target.mkdir(parents=True, exist_ok=True)
    with open(target / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another process may be building the same binaries
        for name in BINARIES:
            if not (target / name).is_file():
                started = time.monotonic()
                _go_build(go, name, target)
                if log is not None:
                    log(f"built {name} in {time.monotonic() - started:.0f} s")
    return target


def _go_build(go: str, name: str, target: Path) -> None:
    log = target / f"build-{name}.log"
    tmp = target / f"{name}.tmp"
    env = {**os.environ, "GOFLAGS": "-mod=mod -buildvcs=false"}
    command = [go, "build", "-ldflags", _LDFLAGS, "-o", str(tmp), BINARIES[name]]
    with open(log, "w") as out:
        done = subprocess.run(
            command, cwd=source_dir(), stdout=out, stderr=subprocess.STDOUT, env=env
        )
    if done.returncode != 0:
        raise LiveClusterError(
            f"building {name} failed (go build exited {done.returncode}; log: {log}):\n"
            + _tail(log)
        )
    tmp.replace(target / name)


def _tail(path: Path) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-_TAIL:])
    except OSError:
        return ""


# ------------------------------------------------------------------------------- the processes


def free_port() -> int:
    """A TCP port on 127.0.0.1 free right now (the kernel's pick)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _die_with_parent() -> None:  # runs in the child between fork and exec
    os.setsid()
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


@dataclass
class Child:
    """One running binary, its log file, and how to stop it."""

    name: str
    proc: subprocess.Popen[bytes]
    log: Path

    def alive(self) -> bool:
        return self.proc.poll() is None

    def died(self) -> LiveClusterError:
        return LiveClusterError(
            f"{self.name} exited with {self.proc.returncode} (log: {self.log}):\n" + _tail(self.log)
        )

    def stop(self, grace: float = 10.0) -> None:
        if self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(grace)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


USERS: Mapping[str, tuple[str, str]] = {
    "admin": ("admin", "system:masters"),
    "scheduler": ("system:kube-scheduler", ""),
    "restricted": ("restricted", ""),
}
"""Each kubeconfig user: the token's user name and groups (``system:kube-scheduler`` gets the
bootstrap RBAC roles a real control plane gives kube-scheduler)."""


@dataclass
class LiveCluster:
    """etcd + kube-apiserver on loopback (random free ports) over a throwaway directory.

    ``users`` are the token-authenticated users, each with a kubeconfig file
    (``kubeconfig(name)``): ``admin`` is in ``system:masters``, ``scheduler`` is
    ``system:kube-scheduler`` (the bootstrap RBAC roles of a real control plane), ``restricted``
    has no rights until a test grants some. ``timings`` holds seconds per startup step.
    """

    workdir: Path | None = None
    ready_timeout: float = 90.0
    timings: dict[str, float] = field(default_factory=dict)
    children: list[Child] = field(default_factory=list)
    server: str = ""
    _own_dir: bool = False
    _tokens: dict[str, str] = field(default_factory=dict)

    def __enter__(self) -> LiveCluster:
        try:
            self.start()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(
        self, kind: type[BaseException] | None, err: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    # ---- start

    def start(self) -> None:
        started = time.monotonic()
        binaries = ensure_binaries()
        self.timings["binaries"] = time.monotonic() - started
        if self.workdir is None:
            self.workdir, self._own_dir = Path(tempfile.mkdtemp(prefix="schedspec-live-")), True
        self.workdir.mkdir(parents=True, exist_ok=True)
        pki = self.workdir / "pki"
        pki.mkdir(exist_ok=True)
        subprocess.run([str(binaries / "schedspec-pki"), str(pki)], check=True)
        self._write_tokens()
        step = time.monotonic()
        etcd_url = self._start_etcd(binaries)
        self.timings["etcd"] = time.monotonic() - step
        step = time.monotonic()
        self._start_apiserver(binaries, etcd_url)
        self.timings["apiserver"] = time.monotonic() - step
        for user in USERS:
            self._write_kubeconfig(user)
        self.timings["start"] = time.monotonic() - started - self.timings["binaries"]

    def _write_tokens(self) -> None:
        assert self.workdir is not None
        lines = []
        for user, (name, groups) in USERS.items():
            self._tokens[user] = secrets.token_hex(16)
            lines.append(f'{self._tokens[user]},{name},uid-{user},"{groups}"')
        (self.workdir / "tokens.csv").write_text("\n".join(lines) + "\n")

    def _spawn(self, name: str, argv: list[str]) -> Child:
        assert self.workdir is not None
        log = self.workdir / f"{name}.log"
        with open(log, "wb") as out:
            proc = subprocess.Popen(
                argv,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                preexec_fn=_die_with_parent,
            )
        child = Child(name, proc, log)
        self.children.append(child)
        return child

    def _start_etcd(self, binaries: Path) -> str:
        assert self.workdir is not None
        client, peer = free_port(), free_port()
        client_url, peer_url = f"http://127.0.0.1:{client}", f"http://127.0.0.1:{peer}"
        child = self._spawn(
            "etcd",
            [
                str(binaries / "etcd"),
                "--name=default",
                f"--data-dir={self.workdir / 'etcd'}",
                f"--listen-client-urls={client_url}",
                f"--advertise-client-urls={client_url}",
                f"--listen-peer-urls={peer_url}",
                f"--initial-advertise-peer-urls={peer_url}",
                f"--initial-cluster=default={peer_url}",
                "--unsafe-no-fsync",  # a throwaway store: durability buys nothing here
                "--log-level=warn",
            ],
        )
        self._wait(child, lambda: _http_ok(f"{client_url}/health", None, None))
        return client_url

    def _start_apiserver(self, binaries: Path, etcd_url: str) -> None:
        assert self.workdir is not None
        port, pki = free_port(), self.workdir / "pki"
        self.server = f"https://127.0.0.1:{port}"
        child = self._spawn(
            "kube-apiserver",
            [
                str(binaries / "kube-apiserver"),
                f"--etcd-servers={etcd_url}",
                "--bind-address=127.0.0.1",
                "--advertise-address=127.0.0.1",
                f"--secure-port={port}",
                f"--cert-dir={self.workdir / 'apiserver-certs'}",
                f"--tls-cert-file={pki / 'serving.crt'}",
                f"--tls-private-key-file={pki / 'serving.key'}",
                f"--client-ca-file={pki / 'ca.crt'}",
                f"--token-auth-file={self.workdir / 'tokens.csv'}",
                "--authorization-mode=Node,RBAC",
                "--service-account-issuer=https://kubernetes.default.svc.cluster.local",
                f"--service-account-key-file={pki / 'sa.pub'}",
                f"--service-account-signing-key-file={pki / 'sa.key'}",
                "--service-cluster-ip-range=10.96.0.0/16",
                "--profiling=false",
            ],
        )
        context = ssl.create_default_context(cafile=str(pki / "ca.crt"))
        token = self._tokens["admin"]
        self._wait(child, lambda: _http_ok(f"{self.server}/readyz", context, token))

    def _wait(self, child: Child, ready: Callable[[], bool]) -> None:
        deadline = time.monotonic() + self.ready_timeout
        while not ready():
            if not child.alive():
                raise child.died()
            if time.monotonic() > deadline:
                raise LiveClusterError(
                    f"{child.name} not ready after {self.ready_timeout:.0f} s (log: {child.log}):\n"
                    + _tail(child.log)
                )
            time.sleep(0.1)

    def _write_kubeconfig(self, user: str) -> Path:
        assert self.workdir is not None
        config = {
            "apiVersion": "v1",
            "kind": "Config",
            "clusters": [
                {
                    "name": "schedspec-test",
                    "cluster": {
                        "server": self.server,
                        "certificate-authority": str(self.workdir / "pki" / "ca.crt"),
                    },
                }
            ],
            "users": [{"name": user, "user": {"token": self._tokens[user]}}],
            "contexts": [{"name": user, "context": {"cluster": "schedspec-test", "user": user}}],
            "current-context": user,
        }
        path = self.workdir / f"{user}.kubeconfig"
        path.write_text(yaml.safe_dump(config, sort_keys=False))
        return path

    # ---- use

    def kubeconfig(self, user: str = "admin") -> Path:
        """The kubeconfig file of ``user`` (``admin``, ``scheduler`` or ``restricted``)."""
        if user not in USERS:
            raise ValueError(f"user={user!r} must be one of {sorted(USERS)}")
        assert self.workdir is not None
        return self.workdir / f"{user}.kubeconfig"

    def start_scheduler(
        self, config: Mapping[str, Any] | None = None, args: Sequence[str] = ()
    ) -> Child:
        """The real kube-scheduler in its production mode: the default profile (or ``config``, a
        ``KubeSchedulerConfiguration`` whose kubeconfig and leader election this sets; its other
        ``clientConnection`` fields, e.g. ``qps`` and ``burst``, are kept),
        default parallelism, asynchronous binding, as ``system:kube-scheduler`` with delegated
        authentication/authorization; leader election off (one replica); ``args`` are more
        flags (e.g. ``-v=2``). Returns when its ``/healthz`` answers."""
        assert self.workdir is not None
        binaries, port = binary_dir(), free_port()
        kubeconfig = str(self.kubeconfig("scheduler"))
        argv = [
            str(binaries / "kube-scheduler"),
            f"--authentication-kubeconfig={kubeconfig}",
            f"--authorization-kubeconfig={kubeconfig}",
            "--bind-address=127.0.0.1",
            f"--secure-port={port}",
            f"--cert-dir={self.workdir / 'scheduler-certs'}",
        ]
        if config is None:
            argv += [f"--kubeconfig={kubeconfig}", "--leader-elect=false"]
        else:
            written = {
                **config,
                "clientConnection": {
                    **config.get("clientConnection", {}),
                    "kubeconfig": kubeconfig,
                },
                "leaderElection": {"leaderElect": False},
            }
            path = self.workdir / "scheduler-config.yaml"
            path.write_text(json.dumps(written))
            argv.append(f"--config={path}")
        argv += args
        step = time.monotonic()
        child = self._spawn("kube-scheduler", argv)
        insecure = ssl.create_default_context()
        insecure.check_hostname, insecure.verify_mode = False, ssl.CERT_NONE  # self-signed
        self._wait(child, lambda: _http_ok(f"https://127.0.0.1:{port}/healthz", insecure, None))
        self.timings["scheduler"] = time.monotonic() - step
        return child

    # ---- stop

    def close(self) -> None:
        """Stops every child (the newest first) and removes the directory this made."""
        for child in reversed(self.children):
            child.stop()
        self.children.clear()
        if self._own_dir and self.workdir is not None:
            shutil.rmtree(self.workdir, ignore_errors=True)


def _http_ok(url: str, context: ssl.SSLContext | None, token: str | None) -> bool:
    request = urllib.request.Request(url)
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request, timeout=2, context=context) as response:
            return bool(response.status == 200)
    except (urllib.error.URLError, OSError):
        return False
