"""schedspec: a formal-spec-driven verification toolkit for the Kubernetes scheduler.

The subpackages live in the repository's top-level folders: ``schedspec.spec`` (spec/, the language
and the specs), ``schedspec.impl`` (impl/, the operational scheduler) and ``schedspec.checker``
(checker/, cross-validation). ``schedspec.cluster`` reads Kubernetes manifests for all of them.
"""

from __future__ import annotations

from schedspec.errors import ManifestError, SchedspecError, UsageError

__all__ = ["ManifestError", "SchedspecError", "UsageError", "__version__"]

__version__ = "0.1.0"
