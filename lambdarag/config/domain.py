"""One domain's folders and files under the knowledge base directory.

knowledge/<name>/
  instance.yml   overrides of agent-config.yml for this domain
  raw/           the operator's documents (changed by LambdaRAG only through the documents API and sync)
  processed/     extracted records and chunks
  index/         bm25/, vector/, graph/ (each a folder with a manifest)
  wiki/          compiled wiki pages
  feedback/      query_log.jsonl, missing_queries.jsonl, ratings.jsonl
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from lambdarag.config.load import PROJECT_ROOT, load_config, load_config_with_sources
from lambdarag.config.schema import Config
from lambdarag.errors import DomainError

KNOWLEDGE_DIR_ENV = "LAMBDARAG_KNOWLEDGE_DIR"
NAME_PATTERN = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")
TEMPLATE_DIR = PROJECT_ROOT / "knowledge-template"
SUBDIRS = ("raw", "processed", "index", "wiki", "feedback")


def knowledge_base_dir(base_dir: Path | str | None = None) -> Path:
    """The folder holding all domains: argument, else $LAMBDARAG_KNOWLEDGE_DIR, else the config's."""
    if base_dir is not None:
        return Path(base_dir).resolve()
    env = os.environ.get(KNOWLEDGE_DIR_ENV)
    if env:
        return Path(env).resolve()
    configured = Path(load_config().knowledge.base_dir)
    return (configured if configured.is_absolute() else PROJECT_ROOT / configured).resolve()


def validate_name(name: str) -> str:
    """Domain names: lowercase letters, digits, '-', '_', at most 64 characters."""
    if not NAME_PATTERN.fullmatch(name):  # match() would let "name\n" through ($ matches before a newline)
        raise DomainError(
            f"invalid domain name {name!r}",
            "use 1-64 lowercase letters, digits, '-' or '_', starting with a letter or digit",
        )
    return name


def domain_root(name: str, base_dir: Path | str | None = None) -> Path:
    """The domain's folder, refusing anything that resolves outside the knowledge base."""
    base = knowledge_base_dir(base_dir)
    root = (base / validate_name(name)).resolve()
    if root.parent != base:
        raise DomainError(f"domain {name!r} resolves outside {base}", "choose another name")
    return root


@dataclass(frozen=True)
class Domain:
    """A domain's name, folders and effective configuration."""

    name: str
    root: Path
    config: Config

    @property
    def instance_file(self) -> Path:
        return self.root / "instance.yml"

    @property
    def raw_dir(self) -> Path:
        return self.root / "raw"

    @property
    def processed_dir(self) -> Path:
        return self.root / "processed"

    @property
    def index_dir(self) -> Path:
        return self.root / "index"

    @property
    def wiki_dir(self) -> Path:
        return self.root / "wiki"

    @property
    def feedback_dir(self) -> Path:
        return self.root / self.config.feedback.dir


def open_domain(name: str, base_dir: Path | str | None = None, config: Config | None = None) -> Domain:
    """An existing domain with its instance.yml merged over the generic config."""
    root = domain_root(name, base_dir)
    if not root.is_dir():
        raise DomainError(f"domain {name!r} not found in {root.parent}", f"run: lambdarag init {name}")
    return Domain(name=name, root=root, config=config or load_config(root / "instance.yml"))


def domain_overrides(domain: Domain) -> set[str]:
    """Dotted key paths that the domain's instance.yml overrides."""
    return load_config_with_sources(domain.instance_file)[1]


def init_domain(name: str, base_dir: Path | str | None = None, force: bool = False) -> Domain:
    """Create a domain from knowledge-template/; with force, refresh the template files but keep raw/."""
    root = domain_root(name, base_dir)
    if root.exists() and not force:
        raise DomainError(f"domain {name!r} already exists at {root}", "pass --force to refresh its template")
    root.mkdir(parents=True, exist_ok=True)
    for sub in SUBDIRS:
        (root / sub).mkdir(exist_ok=True)
    template = TEMPLATE_DIR / "instance.yml"
    instance = root / "instance.yml"
    if template.exists() and (force or not instance.exists()):
        text = template.read_text(encoding="utf-8").replace("@NAME@", name)
        instance.write_text(text, encoding="utf-8")
    return open_domain(name, base_dir)


def ensure_domain(name: str, base_dir: Path | str | None = None) -> Domain:
    """The domain ``name``, created from knowledge-template/ first when it does not exist yet."""
    if domain_root(name, base_dir).is_dir():
        return open_domain(name, base_dir)
    return init_domain(name, base_dir)
