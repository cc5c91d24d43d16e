"""The rehearsal's report: one JSON object (every figure, with what it was measured on) and a table.

Each bot's verdict is checked against what the roster says the platform owes it (``Expect``): an
honest or hostile bot rated, a broken one refused at upload or failed at its smoke match with words
naming its fault.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from . import calibrate, errors
from .run import Rehearsal
from .viewers import KINDS, percentiles


def verdicts(r: Rehearsal) -> list[dict[str, Any]]:
    """Returns each bot's verdict: what it met, what it should have, and whether they agree."""
    assert r.people is not None
    rated = {
        row["bot"]: int(row.get("games", 0))
        for b in r.end.get("board", {}).values()
        for row in b.get("rows", [])
    }
    out = []
    for p in r.plans:
        sub = r.people.submissions[p.name]
        met = {"status": sub.status, "error": sub.error, "smoke": sub.smoke, "reason": sub.reason[:300]}
        if p.expect.outcome == "rated":
            ok = sub.smoke == "passed" and rated.get(p.name, 0) > 0
        elif p.expect.outcome == "refused":
            ok = sub.status == p.expect.status and any(w.lower() in sub.error.lower() for w in p.expect.words)
        else:
            ok = sub.smoke == "failed" and any(w.lower() in sub.reason.lower() for w in p.expect.words)
        out.append({"bot": p.name, "game": p.game, "kind": p.kind, "expect": p.expect.outcome,
                    "games": rated.get(p.name, 0), **met, "ok": ok})  # fmt: skip
    return out


def throughput(r: Rehearsal) -> dict[str, Any]:
    """Returns matches per minute and per worker CPU-second over the ladder's time, and the workers'
    jobs (the late one's first minute apart)."""
    first, last = r.samples[0], r.samples[-1]
    minutes = (r.timeline["ladder_end"] - r.timeline["ladder"]) / 60
    recorded = last["recorded"] - first["recorded"]

    def spent(prefix: str, field: str = "cpu_s") -> float:
        return sum(
            u[field] - first["usage"].get(name, {}).get(field, 0.0)
            for name, u in r.end["usage"].items()
            if name.startswith(prefix)
        )

    cgroups = any("cgroup_cpu_s" in u for name, u in r.end["usage"].items() if name.startswith("worker"))
    # Compose: a worker container's cgroup holds all it ran. /proc cannot count its bots there: their
    # sandbox's processes are handed to the container's init (docker-init) and their CPU goes with them.
    worker_cpu = spent("worker", "cgroup_cpu_s") if cgroups else spent("worker")
    platform = spent("worker", "own_cpu_s") + spent("server") + spent("redis")
    late = f"worker-{r.late_worker}" if r.late_worker is not None else None
    late_first_minute = None
    if late is not None:
        after = [s for s in r.samples if s["t"] >= r.timeline["late_worker"] + 60] or r.samples[-1:]
        late_first_minute = {
            "jobs": after[0]["jobs"].get(late, 0),
            "seconds": round(after[0]["t"] - r.timeline["late_worker"]),
            "all_workers": sum(after[0]["jobs"].values())
            - sum(_before(r, r.timeline["late_worker"]).values()),
        }
    return {
        "ladder_minutes": round(minutes, 2),
        "recorded": recorded,
        "per_minute": round(recorded / minutes, 2) if minutes else None,
        "worker_cpu_s": round(worker_cpu, 1),
        "per_worker_cpu_s": round(recorded / worker_cpu, 4) if worker_cpu else None,
        "server_cpu_s": round(spent("server"), 1),
        "redis_cpu_s": round(spent("redis"), 1),
        # the platform's share: workers' own CPU (referee, recording), the server's and Redis's, of all
        # (with the bots'); a bot's start and idle time count as the bot's
        "platform_share": round(platform / (worker_cpu + spent("server") + spent("redis")), 3)
        if worker_cpu
        else None,
        "cpu_source": "the worker containers' cgroups (everything each ran)"
        if cgroups
        else "/proc (psutil: each worker's own, waited children's and live descendants' CPU)",
        "jobs_per_worker": last["jobs"],
        "late_worker": late,
        "late_worker_jobs_first_minute": late_first_minute,
    }


def _before(r: Rehearsal, t: float) -> dict[str, int]:
    """Returns the workers' job counts of the last sample before time ``t``."""
    earlier = [s for s in r.samples if s["t"] <= t]
    return earlier[-1]["jobs"] if earlier else {}


def memory(r: Rehearsal) -> dict[str, Any]:
    """Returns RSS at the ladder's start and the end per component, and the bot pool's size."""
    last = r.end["usage"]
    out = {}
    for name, end in last.items():
        seen = [s["usage"][name] for s in r.samples if s["usage"].get(name, {}).get("rss_mb")]
        start = seen[0] if seen else {}
        out[name] = {
            "rss_growth_pct_per_hour": growth(r, name),
            "rss_start_mb": round(start.get("rss_mb", 0.0), 1),
            "rss_end_mb": round(end["rss_mb"], 1),
            "bot_processes_end": end["bot_processes"],
            "bot_rss_end_mb": round(end["bot_rss_mb"], 1),
            "rss_curve": curve(r, name),
        }
    return out


def curve(r: Rehearsal, name: str, points: int = 13) -> list[tuple[float, float]]:
    """Returns a component's RSS (MB) at about ``points`` evenly spaced samples, by ladder minute: the
    shape tells a cache filling up (it flattens) from a leak (it does not)."""
    seen = [
        (s["minute"], s["usage"][name]["rss_mb"]) for s in r.samples if s["usage"].get(name, {}).get("rss_mb")
    ]
    step = max(1, len(seen) // (points - 1))
    return [(minute, round(rss, 1)) for minute, rss in seen[::step] + seen[-1:]]


def growth(r: Rehearsal, name: str) -> float | None:
    """Returns a component's RSS growth in % per hour between its first sample after its warm-up and
    its last; None with too short a span. The warm-up is the first 10 minutes of the ladder (a third
    of a shorter run: the late worker's minute) and as long again of the component's own life, so the
    late worker's caches filling as it starts count as its warm-up, not as growth."""
    warm = r.timeline["ladder"] + r.options.late_at() * 60
    if r.stack is not None and name in r.stack.components():  # the component's own first minutes
        warm = max(warm, r.stack.started.get(r.stack.components()[name].pid, 0.0) + r.options.late_at() * 60)
    seen = [
        (s["t"], s["usage"][name]["rss_mb"]) for s in r.samples if s["t"] >= warm and s["usage"].get(name)
    ]
    seen = [(t, rss) for t, rss in seen if rss]
    if len(seen) < 2 or seen[-1][0] - seen[0][0] < 60:
        return None
    (t0, first), (t1, last) = seen[0], seen[-1]
    return round((last - first) / first * 100 * 3600 / (t1 - t0), 1)


def folder_bytes(folder: Path) -> int:
    """Returns the bytes of the files under ``folder``."""
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def build(r: Rehearsal) -> dict[str, Any]:
    """Returns the whole report of a finished rehearsal."""
    assert r.people is not None and r.viewers is not None
    led = r.end.get("ledger", {})
    recorded = sum(g["recorded"] for g in led.values())
    suspects = {p.name for p in r.plans if p.kind != "honest"}
    smoke_of = {s.smoke_id: [s.plan.name] for s in r.people.submissions.values() if s.smoke_id}
    jobs = {**r.end.get("job_bots", {}), **smoke_of}
    lines = errors.classify(
        errors.error_lines(r.folder / "logs", r.end.get("stopped_at")),
        suspects,
        lambda mid: jobs.get(mid, []),
    )
    replay_bytes = folder_bytes(r.folder / "replays")
    grown = r.end.get("redis_bytes", 0) - r.end.get("redis_bytes_start", 0)
    intended = {p.name: p.intended for p in r.plans}
    subs = r.people.submissions.values()
    report: dict[str, Any] = {
        "options": {k: v for k, v in vars(r.options).items()},
        "machine": {
            "cores": _cores(),
            "note": (
                "each worker container a quarter of the server's CPU weight (compose.yaml's cpu_shares)"
                if r.options.against == "compose"
                else "workers niced 5 below the server"
            )
            + "; the whole run under the caller's nice",
        },
        "accounts": {"created": len(r.people.tokens), "refused": r.people.refused_accounts},
        "submissions": {
            "accepted": sum(s.status in (200, 201) for s in subs),
            "refused": {s.plan.name: f"{s.status} {s.error}" for s in subs if s.status not in (200, 201)},
            "smoke_passed": sum(s.smoke == "passed" for s in subs),
            "smoke_failed": {s.plan.name: s.reason[:300] for s in subs if s.smoke == "failed"},
        },
        "verdicts": verdicts(r),
        "ladders": r.ladders,
        "ledger": led,
        "lost": sum(g["lost"] for g in led.values()),
        "doubled": sum(len(g["doubled"]) for g in led.values()),
        "dead_letters": r.end.get("dead", {}),
        "throughput": throughput(r),
        "order": r.order.report(intended),
        "pages": {
            "load": {k: percentiles(r.viewers.times.get(k, [])) for k in KINDS},
            "idle": {k: percentiles(r.idle.get(k, [])) for k in KINDS},
            "failures": r.viewers.failures[:50],
            "failure_count": len(r.viewers.failures),
        },
        "storage": {
            "redis_bytes": r.end.get("redis_bytes"),
            "replay_store_bytes": replay_bytes,
            "redis_bytes_ladder_start": r.end.get("redis_bytes_start"),
            "redis_bytes_per_match": round(grown / recorded) if recorded else None,  # the ladder's growth
            "replay_bytes_per_match": round(replay_bytes / recorded) if recorded else None,
        },
        "memory": memory(r),
        "regression": r.end.get("regression", {}),
        "errors": {
            "explained": len(lines["explained"]),
            "unexplained": sum(e["phase"] == "run" for e in lines["unexplained"]),
            "unexplained_at_shutdown": sum(e["phase"] == "shutdown" for e in lines["unexplained"]),
            "unexplained_lines": lines["unexplained"][:100],
            "explained_lines": lines["explained"][:100],
        },
        "languages": {  # bots per language, or why a kit was left out
            lang: r.missing.get(lang) or f"{sum(p.language == lang for p in r.plans)} bots"
            for lang in ("python", "node", "go", "cpp")
        },
        "not_built": ["per-worker cgroup CPU on a local run (read from /proc; compose: both)"],
    }
    report["order_calibrated"] = calibrated_order(report)
    return report


def calibrated_order(report: dict[str, Any]) -> dict[str, Any]:
    """Returns each game's Kendall distance from the stored calibration (``calibrate.score``), or why
    there is none."""
    if not calibrate.CALIBRATION.exists():
        return {"why": f"no {calibrate.CALIBRATION.name}: run python -m bench.rehearsal.calibrate"}
    return calibrate.score(report, json.loads(calibrate.CALIBRATION.read_text()))


def _cores() -> int:
    try:
        return int(subprocess.run(["nproc"], capture_output=True, text=True).stdout.strip())
    except (OSError, ValueError):
        return 0


def _late(t: dict[str, Any]) -> str:
    first = t["late_worker_jobs_first_minute"]
    if not first:
        return "no late worker"
    return f"{first['jobs']} of {first['all_workers']} in {first['seconds']} s"


def table(report: dict[str, Any]) -> str:
    """Returns the report's headline figures as a plain-text table."""
    t, p, s = report["throughput"], report["pages"], report["storage"]
    rows = [
        (
            "submissions accepted / refused",
            f"{report['submissions']['accepted']} / {len(report['submissions']['refused'])}",
        ),
        ("smoke matches passed", report["submissions"]["smoke_passed"]),
        (
            "bots meeting their expected verdict",
            f"{sum(v['ok'] for v in report['verdicts'])} / {len(report['verdicts'])}",
        ),
        ("matches recorded (ladders)", t["recorded"]),
        ("matches per minute", t["per_minute"]),
        ("matches per worker CPU-second", t["per_worker_cpu_s"]),
        ("platform's share of the CPU (workers' own, server, Redis)", t["platform_share"]),
        ("lost / doubled", f"{report['lost']} / {report['doubled']}"),
        ("dead letters", sum(report["dead_letters"].values())),
        ("jobs per worker", ", ".join(f"{k}: {v}" for k, v in t["jobs_per_worker"].items())),
        (f"late worker ({t['late_worker']}) jobs in its first minute (of all workers')", _late(t)),
    ]
    for game, o in report["order"].items():
        k = o["kendall"]
        figures = f"{o['confident_minute']} / {o['min_neighbour_los']} / {k['distance']} ({k['pairs']})"
        rows.append((f"{game}: confident at minute / min LOS / Kendall (pairs)", figures))
        if o.get("confident_minute") is None and "minutes_to_confident" in o:
            eta = o["minutes_to_confident"]
            rows.append(
                (
                    f"{game}: minutes to confident, extrapolated (slowest pair, its LOS)",
                    f"{eta['minutes']} ({eta['bound_by']}, {eta['los']})",
                )
            )
    for game, c in report.get("order_calibrated", {}).items():
        if isinstance(c, dict) and c.get("distance") is not None:
            figures = f"{c['distance']} ({c['pairs']} pairs, {c['games_per_pair']} games per pair)"
            rows.append((f"{game}: Kendall from the calibration (gap >= 50 Elo, clear at 95%)", figures))
    for kind in ("leaderboard", "bot", "replay"):
        load, idle = p["load"][kind], p["idle"][kind]
        rows.append(
            (
                f"{kind} page p50/p95 ms: load | idle",
                f"{load['p50_ms']}/{load['p95_ms']} | {idle['p50_ms']}/{idle['p95_ms']}",
            )
        )
    rows += [
        ("viewer requests failed", p["failure_count"]),
        (
            "Redis bytes / replay bytes per match",
            f"{s['redis_bytes_per_match']} / {s['replay_bytes_per_match']}",
        ),
    ]
    for name, m in report["memory"].items():
        figures = (
            f"{m['rss_start_mb']} -> {m['rss_end_mb']} ({m['bot_processes_end']}, {m['bot_rss_end_mb']})"
        )
        rows.append((f"{name} RSS MB start -> end (bots: procs, MB)", figures))
        rows.append((f"{name} RSS growth after warm-up, % per hour", m["rss_growth_pct_per_hour"]))
    e = report["errors"]
    figures = f"{e['explained']} / {e['unexplained']} (+ {e['unexplained_at_shutdown']})"
    rows.append(("error lines explained / unexplained (+ at shutdown)", figures))
    width = max(len(str(k)) for k, _ in rows)
    return "\n".join(f"{k:<{width}}  {v}" for k, v in rows)
