"""`lambdarag serve`: run gunicorn (gthread workers) with the app factory for one domain."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from lambdarag.commands.domains import add_domain_args
from lambdarag.config.domain import KNOWLEDGE_DIR_ENV, open_domain
from lambdarag.errors import DomainError

DOMAIN_ENV = "LAMBDARAG_DOMAIN"  # the same name lambdarag.server reads; kept here so serve imports no Flask
APP = "lambdarag.server:create_app()"


def register(sub: Any) -> None:
    p = sub.add_parser("serve", help="serve a domain over HTTP (gunicorn, gthread workers)")
    add_domain_args(p, required=False)  # default: $LAMBDARAG_DOMAIN (the container's CMD passes none)
    p.add_argument("--host", default=None, help="interface to bind (default: server.host)")
    p.add_argument("--port", type=int, default=None, help="TCP port (default: $PORT, else server.port)")
    p.add_argument("--workers", type=int, default=None, help="worker processes (default: server.workers)")
    p.add_argument("--threads", type=int, default=None, help="threads per worker (default: server.threads)")
    p.set_defaults(handler=cmd_serve)


def gunicorn_argv(args: argparse.Namespace, server: Any) -> list[str]:
    """The gunicorn command line for these arguments over the domain's server config."""
    port = args.port or int(os.environ.get("PORT") or server.port)
    return [
        sys.executable, "-m", "gunicorn",
        "--config", "python:lambdarag.server.gunicorn_conf",
        "--bind", f"{args.host or server.host}:{port}",
        "--workers", str(args.workers or server.workers),
        "--threads", str(args.threads or server.threads),
        "--timeout", str(server.timeout_s),
        APP,
    ]


def cmd_serve(args: argparse.Namespace) -> int:
    name = args.domain or os.environ.get(DOMAIN_ENV, "")
    if not name:
        raise DomainError("no domain to serve", f"pass --domain NAME or set {DOMAIN_ENV}=NAME")
    domain = open_domain(name, args.base_dir)  # fail here with one line, not in every worker
    env = dict(os.environ, **{DOMAIN_ENV: domain.name, KNOWLEDGE_DIR_ENV: str(domain.root.parent)})
    argv = gunicorn_argv(args, domain.config.server)
    print(f"serving domain {domain.name} on http://{argv[argv.index('--bind') + 1]}/", file=sys.stderr)
    sys.stdout.flush()
    os.execve(sys.executable, argv, env)
    return 0  # not reached: gunicorn replaces this process
