"""The load test's short version (scripts/load_test.py; RELIABILITY.md has the 60-second run): a real gunicorn with
4 workers, 8 clients for 10 s mixing asks, session follow-ups and searches, and one rebuild + SIGHUP +
POST /admin/reload under that load. The script's own checks must all pass (it exits 1 otherwise)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_short_load_with_a_rebuild_and_both_reloads(tmp_path: Path) -> None:
    report_file = tmp_path / "report.json"
    cmd = [sys.executable, str(ROOT / "scripts" / "load_test.py"), "--clients", "8", "--duration", "10",
           "--reload-at", "0.1", "--json", str(report_file), "--keep", str(tmp_path / "work")]
    done = subprocess.run(cmd, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    report = json.loads(report_file.read_text(encoding="utf-8"))
    checks = report["checks"]
    assert report["ok"] and report["failures"] == 0 and set(report["status"]) == {"200"}
    assert report["requests"] > 100 and {"ask", "follow-up", "search"} <= set(report["latency"])
    assert all(row["p50_ms"] <= row["p95_ms"] <= row["p99_ms"] for row in report["latency"].values())
    cycle = checks["reloads"]["cycles"][0]
    assert cycle["build_exit"] == 0 and cycle["sighup_workers_replaced"] and cycle["admin_reload_status"] == 200
    assert checks["sessions"]["sessions_answered_by_several_workers"] > 0 and not checks["sessions"]["broken"]
    log = checks["query_log"]
    assert log["lines"] == log["answered_asks"] and log["torn"] == 0 and log["rotated_files"] >= 1
    assert checks["access_log"]["sent"] == checks["access_log"]["logged"]
    assert len(checks["rebuilt_index"]["workers"]) == 4  # four new workers, each on the rebuilt index
