"""The priority expander's ConfigMap, read as cluster-autoscaler 1.34 reads it.

``cluster-autoscaler-priority-expander`` in CA's ``--namespace`` (default ``kube-system``), key
``priorities``: a YAML mapping of integer priorities to lists of Go (RE2) regular expressions,
matched unanchored against node group names; the highest priority with a matching rule wins
(``expander/priority``). Errors use CA's words (``Can't parse YAML with priorities in the
configmap: …``, ``Can't compile regexp rule for priority <p> and rule <re>: …``) and name the
ConfigMap and ``data.priorities``; CA would instead log them and never scale up.

Rules are compiled with Python's ``re``, whose syntax is close to RE2's: what Python rejects is
rejected, and so are the forms RE2 rejects but Python accepts — backreferences (``\\1``,
``(?P=n)``), lookarounds (``(?=``, ``(?!``, ``(?<=``, ``(?<!``), conditionals, atomic groups and
possessive quantifiers. A few RE2 forms Python lacks (``\\z``, ``\\pL``, ``\\Q…\\E``, flags
after the start such as ``a(?i)b``) are rejected too: write them the Python way. Stricter than
CA: a priority listed twice (CA keeps one of the lists) and a rule that is null or not a scalar.
"""

from __future__ import annotations

import importlib
import json
import re
import warnings
from collections.abc import Iterator
from typing import Any

import yaml

from schedspec.cluster import Cluster, object_key
from schedspec.errors import UsageError

__all__ = ["PRIORITY_CONFIG_MAP", "expander_priorities", "re2_problem"]

PRIORITY_CONFIG_MAP = "cluster-autoscaler-priority-expander"


def expander_priorities(cluster: Cluster, namespace: str) -> dict[int, tuple[str, ...]]:
    """The priorities of the ConfigMap ``cluster-autoscaler-priority-expander`` in ``namespace``
    (CA's ``--namespace``), highest first; ``UsageError`` when it is absent, ``ManifestError`` at
    ``data.priorities`` when it is wrong."""
    ns = namespace
    wanted = ("ConfigMap", f"{ns}/{PRIORITY_CONFIG_MAP}")
    cm = next((o for o in cluster.others if (o["kind"], object_key(o)) == wanted), None)
    if cm is None:
        raise UsageError(
            "--expander priority: Priority expander config map "
            f"{PRIORITY_CONFIG_MAP} not found: no ConfigMap {ns}/{PRIORITY_CONFIG_MAP} in the "
            "input; without it the priority expander returns no option and CA never scales up"
        )
    data = cm.get("data") or {}
    path = ("data", "priorities")
    if "priorities" not in data:
        message = "Wrong configmap for priority expander, doesn't contain priorities key"
        raise cluster.object_error(cm, ("data",), message)
    if data["priorities"] == "":
        message = f"priority configuration in {PRIORITY_CONFIG_MAP} configmap is empty"
        raise cluster.object_error(cm, path, f"{message}; please provide valid configuration")
    try:
        priorities = _priority_yaml(data["priorities"])
    except ValueError as err:
        message = f"Can't parse YAML with priorities in the configmap: {err}"
        raise cluster.object_error(cm, path, message) from None
    for priority, rules in priorities.items():
        for rule in rules:
            if problem := re2_problem(rule):
                message = f"Can't compile regexp rule for priority {priority} and rule {rule}"
                raise cluster.object_error(cm, path, f"{message}: {problem}")
    return dict(sorted(priorities.items(), reverse=True))


def _priority_yaml(text: str) -> dict[int, tuple[str, ...]]:
    """A YAML mapping of integers to lists of strings (Go's ``map[int][]string``: a scalar item
    is taken as written, ``- 10`` as "10"); ValueError saying what is wrong and on which line."""
    loader = yaml.SafeLoader(text)
    try:
        root = loader.get_single_node()
        out: dict[int, tuple[str, ...]] = {}
        if root is None:
            return out
        if not isinstance(root, yaml.MappingNode):
            raise ValueError(f"line {root.start_mark.line + 1}: expected a mapping of priorities")
        for key_node, value_node in root.value:
            key = _priority_key(loader, key_node)
            if key in out:
                line = key_node.start_mark.line + 1
                raise ValueError(f"line {line}: priority {key} is listed twice (CA uses one list)")
            out[key] = _rules(value_node, key)
        return out
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        at = f"line {mark.line + 1}: " if mark is not None else ""
        raise ValueError(f"{at}{getattr(err, 'problem', None) or err}") from None
    finally:
        loader.dispose()


def _priority_key(loader: yaml.SafeLoader, node: yaml.Node) -> int:
    key = loader.construct_object(node) if isinstance(node, yaml.ScalarNode) else None
    if isinstance(key, bool) or not isinstance(key, int) or not -(2**63) <= key < 2**63:
        shown = json.dumps(node.value) if isinstance(node, yaml.ScalarNode) else "a collection"
        raise ValueError(f"line {node.start_mark.line + 1}: priority {shown} is not an integer")
    return key


def _rules(node: yaml.Node, priority: int) -> tuple[str, ...]:
    line = node.start_mark.line + 1
    if isinstance(node, yaml.ScalarNode) and node.tag == "tag:yaml.org,2002:null":
        return ()
    if not isinstance(node, yaml.SequenceNode):
        raise ValueError(f"line {line}: priority {priority} must list regexes (- rule)")
    rules = []
    for item in node.value:
        if not isinstance(item, yaml.ScalarNode) or item.tag == "tag:yaml.org,2002:null":
            where = item.start_mark.line + 1
            raise ValueError(f"line {where}: a rule of priority {priority} must be a string")
        rules.append(item.value)
    return tuple(rules)


_sre_parser: Any = importlib.import_module("re._parser")  # Python's own regex parser (3.11+)
_NOT_RE2 = {
    "ASSERT": "lookaround assertions",
    "ASSERT_NOT": "lookaround assertions",
    "GROUPREF": "backreferences",
    "GROUPREF_EXISTS": "conditional groups",
    "ATOMIC_GROUP": "atomic groups",
    "POSSESSIVE_REPEAT": "possessive quantifiers",
}


def re2_problem(rule: str) -> str | None:
    """Why Go's RE2 (as approximated here) rejects ``rule``, or None."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = _sre_parser.parse(rule)
            re.compile(rule)
    except re.error as err:
        return f"error parsing regexp: {err}"
    except (RecursionError, OverflowError):
        return "error parsing regexp: expression nests too deeply"
    for op in _ops(tree):
        if op in _NOT_RE2:
            return f"error parsing regexp: {_NOT_RE2[op]} are not supported by Go's RE2 syntax"
    return None


def _ops(node: Any) -> Iterator[str]:
    """The names of the operators of a parsed Python regex, nested ones included."""
    if isinstance(node, _sre_parser.SubPattern):
        for op, arg in node:
            yield str(op)
            yield from _ops(arg)
    elif isinstance(node, list | tuple):
        for item in node:
            yield from _ops(item)
