"""Safe YAML for podium.yaml and front matter: no tags, no aliases, no duplicate keys.

``yaml.SafeLoader`` already refuses ``!!python/...`` tags; on top of it this
loader refuses aliases (so an alias bomb cannot expand) and duplicate keys.
Values keep YAML's types: callers check them (``version: 1.10`` is a float, and
is refused where a string is expected, with a hint to quote it).
"""

from __future__ import annotations

import yaml


class YamlError(ValueError):
    """Bad YAML; the message carries line and column."""


class YamlFloat(float):
    """A float that remembers how it was written (``1.10`` is not ``1.1`` as a version)."""

    text: str

    def __repr__(self) -> str:
        return self.text


class _StrictLoader(yaml.SafeLoader):
    def compose_node(self, parent, index):
        if self.check_event(yaml.AliasEvent):
            mark = self.peek_event().start_mark
            raise yaml.MarkedYAMLError(problem="aliases (*name) are not allowed", problem_mark=mark)
        return super().compose_node(parent, index)

    def construct_mapping(self, node, deep=False):
        seen = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=True)
            if isinstance(key, (list, dict)):
                raise yaml.MarkedYAMLError(problem="a key must be a plain value", problem_mark=key_node.start_mark)
            if key in seen:
                raise yaml.MarkedYAMLError(problem=f"duplicate key {key!r}", problem_mark=key_node.start_mark)
            seen.add(key)
        return super().construct_mapping(node, deep=deep)

    def construct_yaml_float(self, node):
        value = YamlFloat(super().construct_yaml_float(node))
        value.text = node.value
        return value


_StrictLoader.add_constructor("tag:yaml.org,2002:float", _StrictLoader.construct_yaml_float)


def parse_yaml(text: str) -> object:
    """The value in ``text``; raises YamlError naming line and column."""
    try:
        return yaml.load(text, Loader=_StrictLoader)  # noqa: S506 - a SafeLoader subclass
    except yaml.MarkedYAMLError as err:
        mark = err.problem_mark or err.context_mark
        where = f"line {mark.line + 1} column {mark.column + 1}: " if mark else ""
        raise YamlError(f"{where}{err.problem or err.context}") from None
    except yaml.YAMLError as err:
        raise YamlError(str(err)) from None
