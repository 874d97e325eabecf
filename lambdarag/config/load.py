"""Load agent-config.yml, deep-merge a domain's instance.yml over it, validate into frozen dataclasses.

Merge rules (documented in README and docs/CONFIG.md); ``LAMBDARAG__SECTION__KEY`` environment variables
(config/env.py) are merged last, over the instance file:
- mappings merge key by key, recursively;
- any other value, lists included, replaces the inherited one;
- ``key+: [...]`` appends to the inherited list ``key`` (and ``key+: {...}`` adds to a mapping
  without touching its other keys, which is what a plain mapping does anyway).
"""

from __future__ import annotations

import dataclasses
import os
import string
import types
import typing
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from lambdarag.config.env import env_settings, yaml_key
from lambdarag.config.schema import PROMPT_PLACEHOLDERS, Config
from lambdarag.errors import ConfigError

PROJECT_ROOT = Path(__file__).resolve().parents[2]
DEFAULT_CONFIG_FILE = PROJECT_ROOT / "agent-config.yml"
_PACKAGED_CONFIG_FILE = Path(__file__).resolve().parents[1] / "resources" / "agent-config.yml"
APPEND_SUFFIX = "+"


def default_config_file() -> Path:
    """agent-config.yml of the checkout, else the copy packaged with an installed wheel."""
    env = os.environ.get("LAMBDARAG_CONFIG")
    if env:
        return Path(env)
    return DEFAULT_CONFIG_FILE if DEFAULT_CONFIG_FILE.exists() else _PACKAGED_CONFIG_FILE


def read_yaml(path: Path) -> dict[str, Any]:
    """Read one YAML mapping; an empty file is an empty mapping."""
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise ConfigError(str(path), "", "file not found") from exc
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        raise ConfigError(str(path), "", f"not valid YAML: {exc}") from exc
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(str(path), "", f"top level must be a mapping, got {type(data).__name__}")
    return data


def merge(base: Mapping[str, Any], override: Mapping[str, Any]) -> dict[str, Any]:
    """Deep-merge ``override`` into a copy of ``base`` (see the module docstring for the rules)."""
    out: dict[str, Any] = dict(base)
    for key, value in override.items():
        if isinstance(key, str) and key.endswith(APPEND_SUFFIX):
            name = key[: -len(APPEND_SUFFIX)]
            out[name] = _append(out.get(name), value, name)
        elif isinstance(value, Mapping) and isinstance(out.get(key), Mapping):
            out[key] = merge(out[key], value)
        else:
            out[key] = value
    return out


def _append(current: Any, extra: Any, name: str) -> Any:
    if current is None:
        return extra
    if isinstance(current, list) and isinstance(extra, list):
        return [*current, *(x for x in extra if x not in current)]
    if isinstance(current, Mapping) and isinstance(extra, Mapping):
        return merge(current, extra)
    raise TypeError(f"cannot append {type(extra).__name__} to {type(current).__name__} at {name}")


def override_paths(override: Mapping[str, Any], prefix: str = "") -> set[str]:
    """Dotted key paths (leaves and the mappings above them) that an override sets."""
    paths: set[str] = set()
    for key, value in override.items():
        name = str(key).removesuffix(APPEND_SUFFIX)
        path = f"{prefix}.{name}" if prefix else name
        paths.add(path)
        if isinstance(value, Mapping):
            paths |= override_paths(value, path)
    return paths


def load_config(instance_file: Path | None = None, base_file: Path | None = None) -> Config:
    """Effective configuration: the base file, with the domain's instance.yml merged over it."""
    config, _ = load_config_with_sources(instance_file, base_file)
    return config


def load_config_with_sources(
    instance_file: Path | None = None, base_file: Path | None = None
) -> tuple[Config, set[str]]:
    """Like load_config, also returning the dotted key paths the instance file overrides."""
    base_path = base_file or default_config_file()
    base = read_yaml(base_path)
    build(Config, base, _Where(str(base_path), set(), ""))
    env_override, env_vars = env_settings(os.environ)
    if instance_file is None or not instance_file.exists():
        merged, paths, where = base, set(), _Where(str(base_path), set(), "", env_vars)
    else:
        override = read_yaml(instance_file)
        try:
            merged = merge(base, override)
        except TypeError as exc:
            raise ConfigError(str(instance_file), "", str(exc)) from exc
        paths = override_paths(override)
        where = _Where(str(base_path), paths, str(instance_file), env_vars)
    return build(Config, merge(merged, env_override), where), paths


def config_with(config: Config, override: Mapping[str, Any], source: str = "<tuning proposal>") -> Config:
    """``config`` with an override merged over it and validated like an instance.yml (errors name ``source``)."""
    merged = merge(to_plain(config), override)
    built: Config = build(Config, merged, _Where(source, set(), source))
    return built


@dataclasses.dataclass(frozen=True)
class _Where:
    """Which file a key path comes from, so errors name the right one."""

    base_file: str
    override: set[str]
    override_file: str
    env_vars: Mapping[str, str] = dataclasses.field(default_factory=dict)  # dotted path -> LAMBDARAG__ variable

    def file_for(self, path: str) -> str:
        below = [var for name, var in self.env_vars.items() if name.startswith(path + ".")]
        if below:  # an unknown section or key that only a variable's path holds
            return f"environment variable {below[0]}"
        parts = path.split(".")
        for i in range(len(parts), 0, -1):
            if ".".join(parts[:i]) in self.env_vars:
                return f"environment variable {self.env_vars['.'.join(parts[:i])]}"
            if ".".join(parts[:i]) in self.override:
                return self.override_file
        return self.base_file


def build(cls: type[Any], data: Any, where: _Where, path: str = "") -> Any:
    """Validate ``data`` against dataclass ``cls`` and return the frozen instance."""
    if not isinstance(data, Mapping):
        raise _err(where, path, f"expected a mapping, got {data!r}")
    hints = typing.get_type_hints(cls)
    fields = {yaml_key(f): f for f in dataclasses.fields(cls)}
    for key in data:
        if key not in fields:
            raise _err(where, _join(path, str(key)), f"unknown key (known: {', '.join(fields)})")
    values: dict[str, Any] = {}
    for key, fld in fields.items():
        sub = _join(path, key)
        if key not in data:
            raise _err(where, sub, "missing required key")
        values[fld.name] = _convert(hints[fld.name], data[key], where, sub, fld.metadata)
    if cls.__name__ in ("PromptsConfig", "ReaderPrompts"):
        _check_prompts(values, where, path)
    return cls(**values)


def _convert(tp: Any, value: Any, where: _Where, path: str, meta: Mapping[str, Any]) -> Any:
    origin = typing.get_origin(tp)
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        return build(tp, value, where, path)
    if origin in (Mapping, dict):
        return _convert_mapping(tp, value, where, path, meta)
    if origin is tuple:
        if not isinstance(value, list):
            raise _err(where, path, f"expected a list, got {value!r}")
        item_tp = typing.get_args(tp)[0]
        return tuple(_convert(item_tp, v, where, f"{path}[{i}]", meta) for i, v in enumerate(value))
    if origin is types.UnionType:
        raise _err(where, path, "unsupported schema type")
    return _convert_scalar(tp, value, where, path, meta)


def _convert_mapping(tp: Any, value: Any, where: _Where, path: str, meta: Mapping[str, Any]) -> Any:
    if not isinstance(value, Mapping):
        raise _err(where, path, f"expected a mapping, got {value!r}")
    _, val_tp = typing.get_args(tp)
    allowed = meta.get("keys")
    out: dict[str, Any] = {}
    for key, item in value.items():
        if not isinstance(key, str):
            raise _err(where, path, f"keys must be strings, got {key!r}")
        if allowed and key not in allowed:
            raise _err(where, _join(path, key), f"unknown key (known: {', '.join(allowed)})")
        out[key] = _convert(val_tp, item, where, _join(path, key), meta)
    if allowed and meta.get("all_keys"):
        missing = [k for k in allowed if k not in out]
        if missing:
            raise _err(where, path, f"missing keys: {', '.join(missing)}")
    return types.MappingProxyType(out)


def _convert_scalar(tp: Any, value: Any, where: _Where, path: str, meta: Mapping[str, Any]) -> Any:
    if tp is bool:
        if not isinstance(value, bool):
            raise _err(where, path, f"expected true or false, got {value!r}")
        return value
    if tp is int and (isinstance(value, bool) or not isinstance(value, int)):
        raise _err(where, path, f"expected an integer, got {value!r}")
    if tp is float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise _err(where, path, f"expected a number, got {value!r}")
        value = float(value)
    if tp is str and not isinstance(value, str):
        raise _err(where, path, f"expected a string, got {value!r}")
    _check_meta(value, where, path, meta)
    return value


def _check_meta(value: Any, where: _Where, path: str, meta: Mapping[str, Any]) -> None:
    lo, hi = meta.get("range", (None, None))
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        raise _err(where, path, f"value {value!r} out of range [{lo}, {hi if hi is not None else '∞'}]")
    choices = meta.get("choices")
    if choices and value not in choices:
        raise _err(where, path, f"value {value!r} is not one of: {', '.join(choices)}")


def _check_prompts(values: Mapping[str, Any], where: _Where, path: str) -> None:
    for name, required in PROMPT_PLACEHOLDERS.items():
        if name not in values:
            continue  # ReaderPrompts holds only the reader's prompts
        sub = _join(path, name)
        try:
            found = {f for _, f, _, _ in string.Formatter().parse(values[name]) if f is not None}
        except ValueError as exc:
            raise _err(where, sub, f"bad template {values[name]!r}: {exc}") from exc
        missing = required - found
        unknown = found - required
        if missing:
            raise _err(where, sub, f"template lacks placeholder(s) {sorted(missing)}: {values[name]!r}")
        if unknown:
            raise _err(where, sub, f"template has unknown placeholder(s) {sorted(unknown)}: {values[name]!r}")


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _err(where: _Where, path: str, message: str) -> ConfigError:
    return ConfigError(where.file_for(path), path, message)


def secret(env_name: str) -> str | None:
    """The value of a secret's environment variable; secrets never come from YAML."""
    value = os.environ.get(env_name, "")
    return value or None


def to_plain(obj: Any) -> Any:
    """Config objects as plain YAML-able data (for printing)."""
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {yaml_key(f): to_plain(getattr(obj, f.name)) for f in dataclasses.fields(obj)}
    if isinstance(obj, Mapping):
        return {k: to_plain(v) for k, v in obj.items()}
    if isinstance(obj, tuple):
        return [to_plain(v) for v in obj]
    return obj
