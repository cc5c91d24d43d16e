"""One rehearsal, start to end: the platform up, participants and their bots in, a ladder per game for
the given minutes while viewers read the pages, a worker added partway, then everything measured.

The timeline (``Rehearsal.run``): start the stack; register the participants and upload every bot;
wait for the smoke matches; start a ladder per game over the bots that passed; start the viewers;
every ``SAMPLE_S`` seconds sample the leaderboards, the components' CPU and memory and each worker's
job count; add a worker at ``late_minute``; halfway, some participants upload a new version with a
regression test; at the end stop the viewers and ladders, let the queue drain (bounded), read the
pages once more idle, and collect the report (``report.build``).
"""

from __future__ import annotations

import dataclasses
import re
import time
from pathlib import Path
from typing import Any

from arena.games import GAMES

from . import ledger
from .kits import kit_bots
from .order import OrderWatch
from .participants import Participants, call
from .roster import BotPlan, plan
from .stack import Stack, start_stack
from .viewers import Viewers

SAMPLE_S = 15.0
SMOKE_LIMIT_S = 600.0  # the longest wait for the smoke matches, a Go build on a cold worker included
DRAIN_LIMIT_S = 90.0  # the longest wait for the queue to empty at the end
SERVER_OPTIONS = [
    # One loopback address stands for 30 people's: the per-address limits are raised (per-account
    # quotas and every check of an upload stay as shipped, but for bots per game, left unlimited).
    "--accounts-per-hour", "1000", "--writes-per-minute", "6000", "--write-burst", "1000",
    "--bots-per-game", "0",
]  # fmt: skip
RECORDED_LINE = re.compile(r"arena: worker: \S+: recorded")


@dataclasses.dataclass
class Options:
    """The command's options."""

    minutes: float = 6.0
    participants: int = 8
    bots: int = 24
    workers: int = 2
    games: tuple[str, ...] = ("ninjan", "ninja-burger", "pnrz", "ninja-master")
    hostile: int = 2
    against: str = "local"
    late_minute: float | None = None  # default: 10, or a third of --minutes if shorter
    deadline_ms: int = 1000
    readers: int = 8
    rate: float = 10.0
    resubmit: int = 2
    languages: tuple[str, ...] = ("python", "node", "go", "cpp")
    players: tuple[int, ...] = (2,)  # the ladders' table sizes: each game gets one per size it allows

    def late_at(self) -> float:
        return self.late_minute if self.late_minute is not None else min(10.0, self.minutes / 3)


def ladder_key(game: str, players: int) -> str:
    """Returns a ladder's name in the report: its game, with ``@N`` for a table of N > 2 seats."""
    return game if players == 2 else f"{game}@{players}"


class Rehearsal:
    """One run's state, kept for the report."""

    def __init__(self, options: Options, folder: Path) -> None:
        self.options = options
        self.folder = folder
        self.missing: dict[str, str] = {}  # kit language -> why it was left out
        self.plans: list[BotPlan] = plan(list(options.games), options.bots, options.hostile)
        kit_languages = [lang for lang in options.languages if lang != "python"]
        self.plans += kit_bots(list(options.games), kit_languages, self.missing, options.against == "compose")
        self.stack: Stack | None = None
        self.people: Participants | None = None
        self.viewers: Viewers | None = None
        self.order = OrderWatch(
            list(options.games), {p.name for p in self.plans if p.kind == "honest" and p.language == "python"}
        )
        self.ladders: dict[str, dict[str, Any]] = {}
        self.samples: list[dict[str, Any]] = []
        self.timeline: dict[str, float] = {}
        self.late_worker: int | None = None
        self.resubmitted: list[str] = []
        self.idle: dict[str, list[float]] = {}
        self.end: dict[str, Any] = {}

    def say(self, text: str) -> None:
        print(f"[rehearsal {time.strftime('%H:%M:%S')}] {text}", flush=True)

    def run(self) -> None:
        """Runs the whole rehearsal; the stack is stopped whatever happens."""
        o = self.options
        self.stack = start_stack(o.against, self.folder, o.workers, SERVER_OPTIONS)
        try:
            self._prepare()
            self._play()
            self._wind_down()
        finally:
            self.end["usage"] = self.stack.usage()
            self.stack.refresh_logs()
            self.end["stopped_at"] = {
                log.stem: log.stat().st_size for log in (self.folder / "logs").glob("*.log")
            }
            self.stack.stop()

    def _prepare(self) -> None:
        assert self.stack is not None
        self.timeline["started"] = time.monotonic()
        self.people = Participants(self.stack.url, self.stack.organiser, self.options.participants)
        self.people.register()
        self.say(f"{len(self.people.tokens)} accounts; uploading {len(self.plans)} bots")
        self.people.submit_all(self.plans)
        pending = self.people.wait_smoke(SMOKE_LIMIT_S)
        self.timeline["smoke_done"] = time.monotonic()
        self.say(f"smoke matches done ({pending} still pending)")
        for n, (game, players) in enumerate(self.tables()):
            bots, key = self.people.passed(game), ladder_key(game, players)
            if len(bots) < players:
                self.ladders[key] = {"error": f"only {len(bots)} bot(s) passed"}
                continue
            answer = self.people.start_ladder(
                game, bots, players, seed=1000 + n, ahead=4, deadline_ms=self.options.deadline_ms
            )
            self.ladders[key] = answer.body if answer.status in (200, 201) else {"error": answer.body}
        self.say(
            f"ladders: {', '.join(f'{g}: {len(self.people.passed(g))} bots' for g in self.options.games)}"
        )

    def tables(self) -> list[tuple[str, int]]:
        """Returns (game, table size) of every ladder: each game at each ``--players`` size it allows."""
        return [
            (game, players)
            for game in self.options.games
            for players in self.options.players
            if GAMES[game].spec.min_players <= players <= GAMES[game].spec.max_players
        ]

    def _play(self) -> None:
        assert self.stack is not None and self.people is not None
        o = self.options
        self.viewers = Viewers(self.stack.url, list(o.games), o.readers, o.rate)
        self.end["redis_bytes_start"] = ledger.redis_memory(self.stack.redis_client())
        start = self.timeline["ladder"] = time.monotonic()
        self.samples.append(self._sample(0.0))
        self.viewers.start()
        end = start + o.minutes * 60
        while (now := time.monotonic()) < end:
            time.sleep(min(SAMPLE_S, max(0.0, end - now)))
            minute = (time.monotonic() - start) / 60
            if self.late_worker is None and minute >= o.late_at():
                self.late_worker = self.stack.add_worker()
                self.timeline["late_worker"] = time.monotonic()
                self.say(f"worker-{self.late_worker} added at minute {minute:.1f}")
            if not self.resubmitted and minute >= o.minutes / 2 and o.resubmit:
                self.resubmitted = self._resubmit()
            self.samples.append(self._sample(minute))
            self.say(f"minute {minute:.1f}: {self.samples[-1]['recorded']} recorded")
        self.viewers.stop()
        self.timeline["ladder_end"] = time.monotonic()

    def _resubmit(self) -> list[str]:
        """Some participants upload a new version of an honest bot with a regression test."""
        assert self.people is not None
        names = [
            p.name
            for p in self.plans
            if p.kind == "honest" and self.people.submissions[p.name].smoke == "passed"
        ]
        chosen = names[: self.options.resubmit]
        self.people.resubmit(chosen)
        self.say(f"new versions (regression tests) of {', '.join(chosen)}")
        return chosen

    def _sample(self, minute: float) -> dict[str, Any]:
        """Reads each game's leaderboard (the order's curve), the components' usage and job counts."""
        assert self.stack is not None
        recorded = 0
        for game in self.options.games:
            board = call("GET", f"{self.stack.url}/api/v1/games/{game}/leaderboard").body
            self.order.sample(game, minute, board)
            recorded += int(board.get("matches", 0) or 0)
        return {
            "t": time.monotonic(),
            "minute": round(minute, 2),
            "recorded": recorded,
            "usage": self.stack.usage(),
            "jobs": self.jobs_per_worker(),
        }

    def jobs_per_worker(self) -> dict[str, int]:
        """Returns each worker's count of recorded jobs, from its log's lines."""
        assert self.stack is not None
        self.stack.refresh_logs()
        counts = {}
        for log in sorted((self.folder / "logs").glob("worker-*.log")):
            counts[log.stem] = len(RECORDED_LINE.findall(log.read_text(errors="replace")))
        return counts

    def _wind_down(self) -> None:
        """Stops the ladders, lets the queue drain, reads the pages idle, keeps the final state."""
        assert self.stack is not None and self.people is not None and self.viewers is not None
        self.end["ladders"] = self.people.stop_ladders()
        client = self.stack.redis_client()
        deadline = time.monotonic() + DRAIN_LIMIT_S
        while self._in_flight(client) and time.monotonic() < deadline:
            time.sleep(2)
        self.timeline["drained"] = time.monotonic()
        self.people.poll_smoke()
        self.idle = self.viewers.idle_sample()
        self.samples.append(self._sample((time.monotonic() - self.timeline["ladder"]) / 60))
        self.end["ledger"] = {
            key: ledger.ladder_ledger(client, info["id"], key.partition("@")[0])
            for key, info in self.ladders.items()
            if "id" in info
        }
        self.end["dead"] = ledger.dead_letters(client)
        self.end["redis_bytes"] = ledger.redis_memory(client)
        self.end["regression"] = self.people.regression_states(self.resubmitted)
        self.end["job_bots"] = {mid: ledger.job_bots(client, mid) for mid in ledger.scan_jobs(client, "")}
        self.end["board"] = {
            g: call("GET", f"{self.stack.url}/api/v1/games/{g}/leaderboard").body for g in self.options.games
        }

    def _in_flight(self, client: Any) -> int:
        return sum(
            1
            for info in self.ladders.values()
            if "id" in info
            for mid in ledger.scan_jobs(client, info["id"])
            if client.hget(f"arena:job:{mid}", "status") in ("queued", "running")
        )
