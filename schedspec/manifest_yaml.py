"""YAML and JSON manifest text → plain data, with the line of every field path.

``parse(text, source)`` reads multi-document YAML or JSON (one value or a stream of them, as kubectl
accepts; JSON that YAML cannot read, e.g. tab-indented, is read as JSON) into ``Doc`` values: the
data of one document plus the 1-based line of each field path, so that ``Doc.where(path)`` names
``file:line``. ``expand(doc)`` yields the objects of a document: itself, or the items of a
``kind: List`` (and ``PodList``-style ``*List`` kinds, whose items may omit apiVersion/kind).

Rejected with a ``ManifestError``: invalid YAML/JSON (``file:line:col: invalid YAML: …``),
non-string or duplicate mapping keys, recursive aliases, documents too large (alias expansion),
YAML values JSON has no type for (timestamps are kept as text), a document or List item that is not
a mapping.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, NoReturn

import yaml

from schedspec.errors import ManifestError

__all__ = ["Doc", "Path", "describe", "expand", "parse"]

Path = tuple[str | int, ...]


@dataclass(frozen=True)
class Doc:
    """One object (or document) with the line of every field path in its document."""

    data: Any
    source: str
    lines: Mapping[Path, int]
    prefix: Path = ()

    def where(self, path: Path = ()) -> str:
        line = self.line(path)
        return self.source if line is None else f"{self.source}:{line}"

    def line(self, path: Path = ()) -> int | None:
        """The line of ``path``, else of its nearest parent the text gives a line for."""
        full = self.prefix + path
        for end in range(len(full), -1, -1):
            line = self.lines.get(full[:end])
            if line is not None:
                return line
        return None

    def child(self, data: Any, *steps: str | int) -> Doc:
        return Doc(data, self.source, self.lines, self.prefix + steps)


_MERGE_TAG = "tag:yaml.org,2002:merge"
# libyaml's parser composes the same node tree, marks included, about nine times faster; on a
# syntax error the text is read again by PyYAML's own parser, whose messages are the ones given.
# Text with a control character, a BOM or a lone surrogate goes to PyYAML's parser only: libyaml
# reads those differently (it drops a BOM inside the stream, where PyYAML keeps or refuses it).
_FAST: type[yaml.SafeLoader] | None = getattr(yaml, "CSafeLoader", None)
_NOT_FAST = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ufeff\ud800-\udfff\ufffe\uffff]")
_MAX_NODES = 1_000_000


class _Builder:
    """Plain data from a composed YAML node tree, recording each path's line (1-based)."""

    def __init__(self, loader: yaml.SafeLoader, source: str) -> None:
        self.loader, self.source = loader, source
        self.active: set[int] = set()
        self.count = 0

    def fail(self, node: yaml.Node, message: str) -> NoReturn:
        raise ManifestError(message, where=f"{self.source}:{node.start_mark.line + 1}")

    def build(self, node: yaml.Node, path: Path, lines: dict[Path, int]) -> Any:
        lines.setdefault(path, node.start_mark.line + 1)
        self.count += 1
        if self.count > _MAX_NODES:
            self.fail(node, "document too large (alias expansion?)")
        if isinstance(node, yaml.ScalarNode):
            return self.scalar(node)
        if id(node) in self.active:
            self.fail(node, "recursive YAML alias")
        self.active.add(id(node))
        try:
            if isinstance(node, yaml.SequenceNode):
                return [self.build(n, (*path, i), lines) for i, n in enumerate(node.value)]
            assert isinstance(node, yaml.MappingNode)
            return self.mapping(node, path, lines)
        finally:
            self.active.discard(id(node))

    def scalar(self, node: yaml.ScalarNode) -> Any:
        if node.tag == "tag:yaml.org,2002:timestamp":
            return node.value  # JSON has no timestamps; Go's YAML→JSON keeps the text
        data = self.loader.construct_object(node, deep=True)
        if data is not None and not isinstance(data, str | int | float):
            self.fail(node, f"unsupported YAML value of type {type(data).__name__}")
        return data

    def mapping(self, node: yaml.MappingNode, path: Path, lines: dict[Path, int]) -> Any:
        own = {id(k) for k, _ in node.value if k.tag != _MERGE_TAG}
        self.loader.flatten_mapping(node)
        out: dict[str, Any] = {}
        seen: set[str] = set()
        for key_node, value_node in node.value:
            key = self.key(key_node)
            if id(key_node) in own:
                if key in seen:
                    self.fail(key_node, f"duplicate mapping key {json.dumps(key)}")
                seen.add(key)
            lines[(*path, key)] = key_node.start_mark.line + 1
            out[key] = self.build(value_node, (*path, key), lines)
        return out

    def key(self, node: yaml.Node) -> str:
        data = self.scalar(node) if isinstance(node, yaml.ScalarNode) else None
        if not isinstance(data, str):
            shown = json.dumps(data) if isinstance(node, yaml.ScalarNode) else "a collection"
            self.fail(node, f"mapping keys must be strings, got {shown}; quote it")
        return data


def parse(text: str, source: str) -> list[Doc]:
    try:
        return _parse_yaml(text, source)
    except yaml.YAMLError as err:
        if source.endswith(".json") or text.lstrip("\ufeff \t\r\n").startswith("{"):
            return _parse_json(text, source)
        raise _yaml_error(err, source) from None
    except RecursionError:
        raise ManifestError("invalid YAML: nesting too deep", where=source) from None


def _parse_yaml(text: str, source: str) -> list[Doc]:
    if _FAST is not None and not _NOT_FAST.search(text):
        try:
            return _compose(_FAST(text), source)
        except yaml.YAMLError:
            pass
    return _compose(yaml.SafeLoader(text), source)


def _compose(loader: yaml.SafeLoader, source: str) -> list[Doc]:
    try:
        docs = []
        while loader.check_node():
            node = loader.get_node()
            assert node is not None  # check_node() said there is one
            lines: dict[Path, int] = {}
            data = _Builder(loader, source).build(node, (), lines)
            docs.append(Doc(data, source, lines))
        return docs
    finally:
        loader.dispose()


def _yaml_error(err: yaml.YAMLError, source: str) -> ManifestError:
    if isinstance(err, yaml.reader.ReaderError):
        return ManifestError(f"invalid YAML: {err.reason} #x{err.character:04x}", where=source)
    mark = getattr(err, "problem_mark", None)
    problem = getattr(err, "problem", None) or str(err)
    where = f"{source}:{mark.line + 1}:{mark.column + 1}" if mark else source
    return ManifestError(f"invalid YAML: {problem}", where=where)


def _parse_json(text: str, source: str) -> list[Doc]:
    """One JSON value, or several in a row (a JSON stream, as kubectl accepts)."""
    decoder = json.JSONDecoder(object_pairs_hook=_json_object)
    docs, pos, text = [], 0, text.removeprefix("\ufeff")
    try:
        while (pos := _skip_whitespace(text, pos)) < len(text):
            data, pos = decoder.raw_decode(text, pos)
            docs.append(Doc(data, source, {}))
    except json.JSONDecodeError as err:
        where = f"{source}:{err.lineno}:{err.colno}"
        raise ManifestError(f"invalid JSON: {err.msg}", where=where) from None
    except (ValueError, RecursionError) as err:
        raise ManifestError(f"invalid JSON: {err}", where=source) from None
    return docs


def _skip_whitespace(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] in " \t\r\n":
        pos += 1
    return pos


def _json_object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, item in pairs:
        if key in out:
            raise ValueError(f"duplicate key {json.dumps(key)}")
        out[key] = item
    return out


def expand(doc: Doc) -> Iterator[Doc]:
    """The objects of one document: itself, or the items of a (typed) List."""
    data = doc.data
    if data is None:
        return
    if not isinstance(data, dict):
        raise ManifestError(
            f"a manifest must be a mapping, got {describe(data)}", where=doc.where()
        )
    kind = data.get("kind")
    if not (isinstance(kind, str) and kind.endswith("List")):
        yield doc
        return
    items = data.get("items") or []
    if not isinstance(items, list):
        where = doc.where(("items",))
        raise ManifestError(f"must be a list, got {describe(items)}", where=where, path="items")
    for i, item in enumerate(items):
        if not isinstance(item, dict):
            where, path = doc.where(("items", i)), f"items[{i}]"
            raise ManifestError(f"must be a mapping, got {describe(item)}", where=where, path=path)
        if kind != "List" and "kind" not in item:
            item = {"apiVersion": data.get("apiVersion"), "kind": kind[:-4], **item}
        yield from expand(doc.child(item, "items", i))


def describe(data: Any) -> str:
    """How ``data`` is shown in messages: "a mapping", "a list", or its JSON."""
    if isinstance(data, dict):
        return "a mapping"
    if isinstance(data, list):
        return "a list"
    return json.dumps(data, ensure_ascii=False)
