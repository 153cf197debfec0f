"""Errors of the operational scheduler a user can cause by bad input.

::

    schedspec.errors.SchedspecError
     └── ConfigError        a KubeSchedulerConfiguration (or plugin args) is invalid: names
                            the field path, e.g. ``profiles[0].plugins.score.enabled[1]``

The CLI turns them into a message and exit code 2, like every ``SchedspecError``.
"""

from __future__ import annotations

from schedspec.errors import SchedspecError

__all__ = ["ConfigError"]


class ConfigError(SchedspecError):
    """An invalid KubeSchedulerConfiguration; ``path`` is the field path inside it."""

    def __init__(self, message: str, path: str = "") -> None:
        self.message, self.path = message, path
        super().__init__(self.render())

    def render(self) -> str:
        where = f"{self.path}: " if self.path else ""
        return f"KubeSchedulerConfiguration: {where}{self.message}"

    def under(self, prefix: str) -> ConfigError:
        """The same error with ``prefix`` (e.g. ``profiles[0].pluginConfig[2].args``) in front."""
        if not self.path:
            return ConfigError(self.message, prefix)
        sep = "" if self.path.startswith("[") else "."
        return ConfigError(self.message, f"{prefix}{sep}{self.path}")
