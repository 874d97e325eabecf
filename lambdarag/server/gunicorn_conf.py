"""Gunicorn settings for `lambdarag serve` (command-line flags override them).

gthread workers: threads share one loaded index per process and wait on the LLM concurrently;
measured 1.2-1.9x the requests of sync workers. The index's .npy files are memory-mapped, so the
page cache is shared across workers. The app is not preloaded: each worker loads the index itself,
which is what lets SIGHUP (graceful restart of the workers) pick up a rebuilt index. The code is
imported once in the master, though, so workers fork with it and boot in well under a second
(a code upgrade therefore needs a full restart, not SIGHUP).
"""

import os
from typing import Any

# Native thread pools in the workers: each of W workers × T request threads already keeps a core busy, so a pool
# of one thread per core inside every worker (OpenBLAS, an OpenMP runtime such as the local embedder's) only adds
# threads fighting over the same cores, and OpenMP's spin-waiting burns them. Set before any worker imports numpy;
# an operator's own setting wins. The local embedder also sets its query threads itself (models/embeddings.py).
for _name, _value in (("OMP_NUM_THREADS", "1"), ("OPENBLAS_NUM_THREADS", "1"), ("OMP_WAIT_POLICY", "PASSIVE")):
    os.environ.setdefault(_name, _value)

worker_class = "gthread"
preload_app = False
graceful_timeout = 30  # seconds in-flight requests get to finish on SIGHUP / SIGTERM
keepalive = 5
accesslog = "-"
errorlog = "-"
access_log_format = '%(h)s "%(r)s" %(s)s %(b)s %(L)ss pid=%(p)s'
# gunicorn >= 25.1 opens a control socket at one fixed per-user path, so two servers on one host
# (two domains, or tests) would fight over it; reload with SIGHUP or POST /admin/reload instead.
control_socket_disable = True


def on_starting(server: Any) -> None:
    """Import the request path and the channels in the master: forked workers share the modules."""
    import importlib

    from lambdarag.channels.base import CHANNEL_MODULES

    for module in ("lambdarag.pipeline.run", "lambdarag.server", "rjieba", *CHANNEL_MODULES.values()):
        try:
            importlib.import_module(module)
        except ImportError:  # a channel that cannot load here is reported by /readyz, not by the master
            continue
