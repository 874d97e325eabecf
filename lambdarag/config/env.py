"""Settings from environment variables: ``LAMBDARAG__SECTION__KEY=value`` overrides ``section.key``.

The path is the variable's name after the prefix, split at double underscores and lowercased
(``LAMBDARAG__RETRIEVAL__CHANNELS__VECTOR__ENABLED=false`` sets ``retrieval.channels.vector.enabled``).
A setting whose schema type is a string takes the value as written; any other is read as a YAML value
(``true``, ``1024``, ``[a, b]``, ``{报销: 1.5}``). These override agent-config.yml and the domain's
instance.yml alike, which is what a container deployment configures itself with (docker-compose.yml).
Secrets still come only from the variables the ``*_env`` keys name.
"""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Mapping
from typing import Any

import yaml

from lambdarag.config.schema import Config

ENV_PREFIX = "LAMBDARAG__"
ENV_SEPARATOR = "__"


def env_name(path: str) -> str:
    """The environment variable that overrides a dotted setting path."""
    return ENV_PREFIX + ENV_SEPARATOR.join(part.upper() for part in path.split("."))


def env_settings(environ: Mapping[str, str]) -> tuple[dict[str, Any], dict[str, str]]:
    """A nested override mapping from the ``LAMBDARAG__*`` variables, and each dotted path's variable."""
    override: dict[str, Any] = {}
    names: dict[str, str] = {}
    for var in sorted(environ):
        if not var.startswith(ENV_PREFIX) or len(var) == len(ENV_PREFIX):
            continue
        parts = [p.lower() for p in var[len(ENV_PREFIX):].split(ENV_SEPARATOR)]
        node = override
        for part in parts[:-1]:
            child = node.get(part)
            if not isinstance(child, dict):  # LAMBDARAG__A=1 and LAMBDARAG__A__B=2: the deeper one wins
                child = node[part] = {}
            node = child
        node[parts[-1]] = _value(parts, environ[var])
        names[".".join(parts)] = var
    return override, names


def _value(parts: list[str], raw: str) -> Any:
    if setting_type(".".join(parts)) is str:
        return raw
    try:
        return yaml.safe_load(raw) if raw.strip() else raw
    except yaml.YAMLError:
        return raw  # validation then names the variable and the value it could not use


def yaml_key(fld: dataclasses.Field[Any]) -> str:
    """The YAML key of a field: its name, or metadata "key" where the YAML word is a Python keyword (sync.from)."""
    return str(fld.metadata.get("key", fld.name))


def setting_type(path: str) -> Any:
    """The schema type at a dotted path of YAML keys (None where the path leaves the schema)."""
    tp: Any = Config
    for part in path.split("."):
        if isinstance(tp, type) and dataclasses.is_dataclass(tp):
            names = {yaml_key(f): f.name for f in dataclasses.fields(tp)}
            tp = typing.get_type_hints(tp).get(names.get(part, ""))
        elif typing.get_origin(tp) in (Mapping, dict):
            tp = typing.get_args(tp)[1]
        else:
            return None
    return tp
