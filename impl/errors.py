"""Errors of the operational scheduler a user can cause by bad input.

::

    schedspec.errors.SchedspecError
     └── ConfigError        a KubeSchedulerConfiguration (or plugin args) is invalid: names
                            the field path, e.g. ``profiles[0].plugins.score.enabled[1]``

The CLI turns them into a message and exit code 2, like every ``SchedspecError``.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Callable, Iterable, Sequence

from schedspec.errors import SchedspecError

__all__ = ["ConfigError", "did_you_mean"]


class ConfigError(SchedspecError):
    """An invalid KubeSchedulerConfiguration; ``path`` is the field path inside it.

    Like the loader, the configuration's checks report every problem at once: ``errors`` holds
    them all (this one first, whose fields are the first problem's) and ``str()`` renders one
    line each. ``where`` is the file (and line) when known."""

    def __init__(self, message: str, path: str = "", *, where: str = "") -> None:
        self.message, self.path, self.where = message, path, where
        self.errors: tuple[ConfigError, ...] = (self,)
        super().__init__(self.render())

    @classmethod
    def every(cls, errors: Sequence[ConfigError]) -> ConfigError:
        """One error carrying ``errors`` (at least one; each may carry several), in order."""
        flat = [e for error in errors for e in error.errors]
        if len(flat) == 1:
            return flat[0]
        first = flat[0]
        out = cls(first.message, first.path, where=first.where)
        out.errors = tuple(flat)
        out.args = ("\n".join(e.render() for e in flat),)
        return out

    def render(self) -> str:
        where = f"{self.where}: " if self.where else ""
        path = f"{self.path}: " if self.path else ""
        return f"{where}KubeSchedulerConfiguration: {path}{self.message}"

    def under(self, prefix: str) -> ConfigError:
        """The same error(s) with ``prefix`` (e.g. ``profiles[0].pluginConfig[2].args``) in
        front of the path."""
        if len(self.errors) > 1:
            return ConfigError.every([e.under(prefix) for e in self.errors])
        if not self.path:
            return ConfigError(self.message, prefix, where=self.where)
        sep = "" if self.path.startswith("[") else "."
        return ConfigError(self.message, f"{prefix}{sep}{self.path}", where=self.where)

    def at(self, where: Callable[[str], str]) -> ConfigError:
        """The same error(s), each with ``where(path)`` as its place (``file:line``)."""
        if len(self.errors) > 1:
            return ConfigError.every([e.at(where) for e in self.errors])
        return ConfigError(self.message, self.path, where=where(self.path))


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """`` (did you mean "plugins"?)`` when ``word`` is close to one of ``choices``, else ""."""
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f" (did you mean {json.dumps(close[0])}?)" if close else ""
