"""The exception tree of schedspec.

Every error a user can cause by bad input is one of these; the CLI turns them into a message on
stderr and exit code 2, never a traceback::

    SchedspecError                     root: anything schedspec raises on purpose
     ├── ManifestError                 schedspec.cluster: a manifest is unreadable or invalid
     ├── SpecError                     schedspec.spec: the spec language
     │    ├── SpecSyntaxError          the text does not parse (carries Diagnostics)
     │    ├── SpecCheckError           the checker found errors (carries Diagnostics)
     │    └── EvalError                a definition failed while evaluating (span + message)
     ├── LiveError                     schedspec.live: a live cluster cannot be read (kubeconfig,
     │                                 unreachable server, refused credentials, RBAC)
     └── UsageError                    the command line is wrong
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["ManifestError", "SchedspecError", "UsageError"]


class SchedspecError(Exception):
    """Root of every error schedspec raises on purpose."""


class ManifestError(SchedspecError):
    """A manifest is unreadable or invalid.

    ``where`` names the file (and line when known), ``obj`` the object (``Pod default/web-0``) and
    ``path`` the field path (``spec.containers[1].resources.requests.cpu``). The loader reports
    every problem of its input at once, as the API server does: ``errors`` holds them all (this
    one first, whose fields are the first problem's), and ``str()`` renders one line each.
    """

    def __init__(self, message: str, *, where: str = "", obj: str = "", path: str = "") -> None:
        self.message = message
        self.where = where
        self.obj = obj
        self.path = path
        self.errors: tuple[ManifestError, ...] = (self,)
        super().__init__(self.render())

    @classmethod
    def every(cls, errors: Sequence[ManifestError]) -> ManifestError:
        """One error carrying ``errors`` (at least one), in their order."""
        if len(errors) == 1:
            return errors[0]
        first = errors[0]
        out = cls(first.message, where=first.where, obj=first.obj, path=first.path)
        out.errors = tuple(errors)
        out.args = ("\n".join(e.render() for e in errors),)
        return out

    def render(self) -> str:
        parts = [p for p in (self.where, self.obj, self.path) if p]
        return ": ".join([*parts, self.message])


class UsageError(SchedspecError):
    """The command line is wrong (unknown spec, missing file, bad option value)."""
