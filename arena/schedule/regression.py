"""Regression tests: a new version of a submitted bot plays the version it replaces until an SPRT decides.

``arena bots submit NAME ... --test-against previous`` notes on the new version (``request``) the bot's
active version at that moment, the SPRT's hypotheses and a budget of games. The series starts when the
new version becomes active (``activated``): at once on this machine, after its smoke match passes on a
server (``arena.submissions.smoke``). By default H0 says the new version is 25 Elo weaker than the old
one (a regression), H1 that it is as strong (logistic Elo: elo0=-25, elo1=0, alpha=beta=0.05), in at
most ``DEFAULT_MAX_GAMES`` = 800 games; a test that reaches its budget decides there, by the side of the
bounds' middle its LLR lies on (``Sprt.verdict_at_budget``), so every series that is not stopped gets
a verdict. Simulated with the pair correlations the four games really show and with independent games
(``bench/regression_oc.py``, docs/ratings.md): an unchanged version gets "no regression" in 84% of
tests or more, a version 30 Elo weaker "regression" in 91% or more; the price is that an unchanged
version is called a regression in about 15% of tests (``false_alarm``), which every "regression"
verdict says. (The old default, elo0=-50 in 400 games without a decision at the budget, called a
version 30 Elo weaker a regression in only 36-74% of tests; elo0=-10 needs thousands of games.)

Bounded (issue 33). One series per bot at a time: when a version becomes a bot's active one, the
running series of the version it replaced is cancelled, and a series still waiting for a candidate
that a newer submission superseded is cancelled at that submission (``sweep``): state ``cancelled``,
verdict ``none``, a reason naming the newer version. A series that stops (cancelled or decided) takes
its games still waiting out of the queue, and a worker that takes one of its games anyway (it was
already in the job stream) acknowledges it without playing (``skip_if_stopped``), as a superseded
smoke match is. Games wait in a list of their own (``keys.REGRESSION_QUEUE``) that workers read when
no rated, tournament or smoke job waits, or one job in ``jobs.REGRESSION_SHARE`` on a stream that
is never empty (``arena.queue.jobs``), and that holds at most
``QUEUE_CAP`` games platform-wide; a series that finds it full is noted in ``keys.REGRESSION_STARVED``
and gets the room first when games leave (``feed``). Owners' SPRTs are clamped (``check``): alpha and
beta at least ``MIN_ERROR``, elo1 - elo0 at least ``MIN_WIDTH``, at most ``MAX_GAMES_LIMIT`` games,
and a test too short to tell its hypotheses apart (``least_budget``) is refused at submission.

How the games of a series are queued in pairs, recorded and scored until the SPRT decides:
``arena.schedule.series``.

Design detail, not rated: both seats are the same bot (``NAME`` and ``NAME~previous``), and the
leaderboard's tables per bot name (its latest version, its recent matches) cannot hold two versions of
one bot in one match; a regression game leaves its score in the series, not a result or a rating, as a
smoke match does.
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Callable

import redis

from arena.queue import keys
from arena.queue.connection import maybe_text, maybe_text_list, members, text_hash, text_set
from arena.queue.jobs import run_script
from arena.ratings.sprt import PENTANOMIAL, SprtParams, SprtSpecError, score_rate
from arena.schedule.series import DROP_FUNCTION, State, advance, drop_args, feed, test_of
from arena.seeds import fresh_seed
from arena.submissions.registry import Submission, SubmissionError

# The default test (issue 37): H0, 25 Elo weaker (logistic); H1, as strong; decided by 800 games at the
# latest. The window and budget are the smallest that meet "an unchanged version: no regression in >= 80%
# of tests; 30 Elo weaker: regression in >= 90%" in every simulated pair model (bench/regression_oc.py).
DEFAULT_PARAMS = SprtParams(elo0=-25.0, elo1=0.0)
DEFAULT_MAX_GAMES = 800
DEFAULT_TEXT = "elo0=-25,elo1=0,alpha=0.05,beta=0.05,max_games=800"  # as --sprt reads it (held equal)
MAX_GAMES_LIMIT = 2_000  # a budget larger than this is refused: every game is a job
MIN_ERROR = 0.01  # alpha and beta below this are refused
MIN_WIDTH = 5.0  # elo1 - elo0 below this is refused
TARGETS = ("previous",)  # what --test-against accepts


@dataclasses.dataclass(frozen=True)
class Request:
    """What a submission asks for: a test against its bot's active version, with these bounds."""

    params: SprtParams = DEFAULT_PARAMS
    max_games: int = DEFAULT_MAX_GAMES


def parse_request(test_against: str | None, sprt: str | None, max_games: int | None = None) -> Request | None:
    """Returns the regression test a submission's options ask for (None without ``--test-against``);
    raises SubmissionError, in one line saying what to choose, for a target other than ``previous``, a
    bad ``--sprt`` text, or a test refused by ``check``. The budget is ``max_games=N`` in the ``--sprt``
    text (so a server gets it with the text) or ``max_games``."""
    if test_against is None:
        if sprt is not None or max_games is not None:
            raise SubmissionError("--sprt is for a regression test: add --test-against previous")
        return None
    if test_against not in TARGETS:
        raise SubmissionError(f"--test-against {test_against!r}: the only choice is 'previous'")
    text, budget = _budget_of(sprt, max_games)
    try:
        params = SprtParams.parse(text) if text else DEFAULT_PARAMS
    except SprtSpecError as exc:
        raise SubmissionError(f"--sprt: {exc}") from None
    wanted = Request(params, DEFAULT_MAX_GAMES if budget is None else budget)
    check(wanted)
    return wanted


def _budget_of(sprt: str | None, max_games: int | None) -> tuple[str, int | None]:
    """Returns the ``--sprt`` text without its ``max_games=N`` item, and the budget given (or None)."""
    items = [item for item in (sprt or "").split(",") if item.strip()]
    budgets = [item for item in items if item.partition("=")[0].strip() == "max_games"]
    if len(budgets) + (max_games is not None) > 1:
        raise SubmissionError("--sprt: max_games is given twice")
    for item in budgets:
        raw = item.partition("=")[2].strip()
        try:
            max_games = int(raw)
        except ValueError:
            raise SubmissionError(f"--sprt: max_games={raw!r} is not a whole number of games") from None
    rest = ",".join(item for item in items if item not in budgets)
    if sprt is not None and not rest and not budgets:
        rest = sprt  # an empty text: SprtParams.parse says what it expects
    return rest, max_games


def check(wanted: Request) -> None:
    """Raises SubmissionError, in one line saying what to choose instead, for a test an owner may not
    ask for: alpha or beta below ``MIN_ERROR``, hypotheses less than ``MIN_WIDTH`` Elo apart, a budget
    outside 2..``MAX_GAMES_LIMIT`` games, or a budget too short to tell the hypotheses apart: fewer games
    than ``least_budget``."""
    p, budget = wanted.params, wanted.max_games
    for name in ("alpha", "beta"):
        if getattr(p, name) < MIN_ERROR:
            raise SubmissionError(
                f"--sprt: {name}={getattr(p, name):g} is below {MIN_ERROR:g}: "
                f"choose alpha and beta of at least {MIN_ERROR:g} (the default is 0.05)"
            )
    if p.elo1 - p.elo0 < MIN_WIDTH:
        raise SubmissionError(
            f"--sprt: elo0={p.elo0:g} and elo1={p.elo1:g} are {p.elo1 - p.elo0:g} Elo apart: "
            f"choose hypotheses at least {MIN_WIDTH:g} Elo apart "
            f"(the default is elo0={DEFAULT_PARAMS.elo0:g},elo1={DEFAULT_PARAMS.elo1:g})"
        )
    if not 2 <= budget <= MAX_GAMES_LIMIT:
        raise SubmissionError(
            f"a regression test plays 2 to {MAX_GAMES_LIMIT:,} games, not {budget}: "
            f"choose max_games=N in that range (the default is {DEFAULT_MAX_GAMES})"
        )
    needed = least_budget(p)
    if needed <= budget:
        return
    test = f"elo0={p.elo0:g},elo1={p.elo1:g},alpha={p.alpha:g},beta={p.beta:g}"
    choices = []
    wide = _widest_needed(p, budget)
    if wide is not None:
        choices.append(f"elo0={p.elo1 - wide:g} or lower (keeping elo1={p.elo1:g})")
    if needed <= MAX_GAMES_LIMIT:
        choices.append(f"max_games={needed}")
    choose = " or ".join(choices) if choices else f"a larger max_games (at most {MAX_GAMES_LIMIT:,})"
    raise SubmissionError(
        f"--sprt: {test} cannot tell its hypotheses apart within {budget:,} games (it needs at least "
        f"{needed:,} to be right at either in 5 tests of 6): choose {choose}"
    )


# The largest variance of a game's score (won or lost, never drawn): draws, and pairs whose games split,
# only make a pair's score vary less, so figures computed with it hold for every game.
MOST_GAME_VARIANCE = 0.25
RIGHT_SIGMAS = 1.0  # least_budget: the budget's decision is right at either hypothesis 1 sigma out (84%)


def regression_chance(params: SprtParams, max_games: int, elo: float) -> float:
    """Returns about how often a test that runs to its budget says "regression" (H0) when the new
    version is ``elo`` stronger than the old.

    Design detail, a normal approximation: near the hypotheses the LLR of ``n`` pairs is about ``n (s1
    - s0) (x - (s0 + s1) / 2) / v``, ``x`` the mean score per game, ``s0`` and ``s1`` the hypotheses'
    expected scores and ``v`` the variance of a pair's score per game, taken at its largest
    (``MOST_GAME_VARIANCE`` / 2); it says H0 when the LLR ends below the bounds' middle. Early stops at
    a bound are left out. For the default at 0 Elo it gives 15.5%, where the simulation's hardest model
    (independent games, no draws) gives 15.3% and the measured pair models less (docs/ratings.md)."""
    s0, s1 = score_rate(params.elo0), score_rate(params.elo1)
    pairs = max(1, max_games // 2)
    pair_variance = MOST_GAME_VARIANCE / 2
    threshold = (s0 + s1) / 2 + params.midpoint * pair_variance / (pairs * (s1 - s0))
    z = (threshold - score_rate(elo)) / math.sqrt(pair_variance / pairs)
    return 0.5 * math.erfc(-z / math.sqrt(2))


def false_alarm(request: Request) -> float:
    """Returns about how often the test calls an unchanged version (0 Elo) a regression: the rate
    every "regression" verdict states (``regression_chance``)."""
    return regression_chance(request.params, request.max_games, 0.0)


def least_budget(params: SprtParams) -> int:
    """Returns the fewest games (even) with which a test that runs to its budget is right at either
    hypothesis in about 5 tests of 6 (the hypotheses ``RIGHT_SIGMAS`` standard deviations from the
    middle, at the largest variance of a game): a budget below it is refused, since its verdict would
    be little better than a coin's. For the default, 776 (its budget: 800); for fishtest's window
    (elo0=-10, elo1=0, logistic here), 4,832."""
    s0, s1 = score_rate(params.elo0), score_rate(params.elo1)
    games = MOST_GAME_VARIANCE * (2 * RIGHT_SIGMAS / (s1 - s0)) ** 2
    return 2 * math.ceil(games / 2 - 1e-9)


def _widest_needed(params: SprtParams, budget: int) -> float | None:
    """Returns the least whole number of Elo between the hypotheses (elo1 kept) with which the test
    can tell them apart within ``budget`` games (``least_budget``), or None when no width up to 800
    Elo does."""
    for width in range(max(int(MIN_WIDTH), math.ceil(params.elo1 - params.elo0)), 801):
        wider = dataclasses.replace(params, elo0=params.elo1 - width)
        if least_budget(wider) <= budget:
            return float(width)
    return None


def previous(client: redis.Redis, bot: str) -> str:
    """Returns the bot's active version, the one a new version is tested against; raises
    SubmissionError when the bot has none (a first submission has nothing to regress from)."""
    version = maybe_text(client.hget(keys.bot(bot), "version"))
    if not version:
        raise SubmissionError(
            f"--test-against previous: bot {bot} has no active version to test against; "
            "submit it once without --test-against"
        )
    return version


# KEYS: the series hash, the bot's set of series. ARGV: the version, its time, then flat field/value
# pairs. Writes only if no series exists for the version.
_REQUEST = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV, 3))
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1])
return 1
"""


def request(client: redis.Redis, bot: str, new: str, old: str, wanted: Request) -> bool:
    """Notes that version ``new`` of ``bot`` is to be tested against ``old`` (its active version when
    it was submitted), in the bot's first game; returns False if the version has a series already.
    Raises SubmissionError for an unknown bot, or when ``new`` is ``old`` (nothing to test)."""
    if new == old:
        raise SubmissionError(f"bot {bot}: version {new} is the active one already; nothing to test")
    games = maybe_text(client.hget(keys.bot(bot), "games"))
    if not games:
        raise SubmissionError(f"no submitted bot {bot!r}: see 'arena bots list'")
    p = wanted.params
    fields = {
        "bot": bot,
        "game": games.split(",")[0],
        "new": new,
        "old": old,
        "elo0": repr(p.elo0),
        "elo1": repr(p.elo1),
        "alpha": repr(p.alpha),
        "beta": repr(p.beta),
        "max_games": str(wanted.max_games),
        "seed": str(fresh_seed()),
        "state": State.WAITING.value,
        "created": repr(time.time()),
        "queued": "0",
        "void": "0",
    }
    flat = [new, fields["created"], *(x for item in fields.items() for x in item)]
    return bool(run_script(client, _REQUEST, (keys.regression(new), keys.regression_series(bot)), flat))


# KEYS: series hash, bot hash. ARGV: version, waiting, running, now.
_ACTIVATED = """
if redis.call('HGET', KEYS[1], 'state') ~= ARGV[2] then return 0 end
if redis.call('HGET', KEYS[2], 'version') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'state', ARGV[3], 'started', ARGV[4])
return 1
"""


def activated(client: redis.Redis, bot: str, version: str) -> bool:
    """Called when ``version`` became the bot's active version (with a series requested or not):
    cancels the series it supersedes (``sweep``), then starts the series requested for ``version`` if
    it is waiting and the version is still the active one, queuing its first pairs; returns whether
    it started."""
    sweep(client, bot)
    args = (version, State.WAITING.value, State.RUNNING.value, repr(time.time()))
    if not run_script(client, _ACTIVATED, (keys.regression(version), keys.bot(bot)), args):
        return False
    advance(client, version)
    return True


# KEYS: series hash, bot hash, waiting list. ARGV: version, waiting, running, cancelled, now, then
# ``drop_waiting``'s job prefix, statuses and TTL. Cancels the series if a newer version superseded
# it: a waiting one whose version is neither the bot's candidate nor its active version any more (its
# smoke match will never activate it), a running one whose version is no longer the active one.
_CANCEL = (
    DROP_FUNCTION
    + """
local state = redis.call('HGET', KEYS[1], 'state')
local bot = redis.call('HMGET', KEYS[2], 'candidate', 'version')
local candidate, active = bot[1], bot[2]
local reason
if state == ARGV[2] then
  if not (candidate or active) or candidate == ARGV[1] or active == ARGV[1] then return 0 end
  reason = 'superseded: version ' .. (candidate or active) .. ' was submitted before ' .. ARGV[1]
    .. ' became active'
elseif state == ARGV[3] then
  if not active or active == ARGV[1] then return 0 end
  reason = 'superseded: version ' .. active .. ' replaced ' .. ARGV[1] .. ' before the test decided'
else
  return 0
end
redis.call('HSET', KEYS[1], 'state', ARGV[4], 'verdict', 'none', 'reason', reason, 'finished', ARGV[5])
drop_waiting(KEYS[1], ARGV[1], KEYS[3], ARGV[6], ARGV[7], ARGV[8], ARGV[9])
return 1
"""
)


_LIVE = (State.WAITING, State.RUNNING)


def sweep(client: redis.Redis, bot: str) -> list[str]:
    """Cancels the bot's series that a newer version superseded (``_CANCEL`` says which), taking their
    waiting games out of the queue, and gives the room to series waiting for it (``feed``); returns
    the versions whose series it cancelled. Safe to call at any time, from anywhere: each series is
    judged on the bot's state at that moment, in one script."""
    cancelled = []
    index = keys.regression_series(bot)
    # Every version the bot has had, and those in its set of series: a series requested before the set
    # existed is found too (and joins the set when cancelled, so the newest series lists it).
    had = text_set(client.smembers(keys.bot_versions(bot)))
    versions = sorted(had | set(members(client.zrange(index, 0, -1))))
    with client.pipeline(transaction=False) as pipe:
        for version in versions:
            pipe.hget(keys.regression(version), "state")
        live = [v for v, state in zip(versions, pipe.execute(), strict=True) if state in _LIVE]
    for version in live:  # judged again in the script: this read only skips the series that are over
        states = (State.WAITING.value, State.RUNNING.value, State.CANCELLED.value)
        args = (version, *states, repr(time.time()), *drop_args(version)[1:])
        series_keys = (keys.regression(version), keys.bot(bot), keys.REGRESSION_QUEUE)
        if run_script(client, _CANCEL, series_keys, args):
            fields = text_hash(client.hgetall(keys.regression(version)))  # counts are frozen: no game counts
            client.hset(keys.regression(version), "llr", repr(test_of(fields).llr))
            client.zadd(index, {version: float(fields["created"])}, nx=True)
            cancelled.append(version)
    if cancelled:
        feed(client)
    return cancelled


def status(client: redis.Redis, version: str) -> dict | None:
    """Returns the regression series of ``version`` as ``arena bots show --json`` and the web page
    show it, or None when none was requested: state (waiting, running, done, cancelled), verdict
    ("H0", "H1", "none" or None while it runs; "none" when cancelled), reason, llr, lower, upper,
    elo0, elo1, alpha, beta, games, max_games, wins, draws, losses (of the new version), pentanomial,
    bot, game, new, old, ``false_alarm`` (about how often this test calls an unchanged version a
    regression), ``verdict_text`` (the verdict in words, None while it runs), and ``superseded``: the
    bot's series requested before this one and cancelled
    (new, old, games, reason), newest first, at most ``SHOWN_CANCELLED``."""
    fields = text_hash(client.hgetall(keys.regression(version)))
    if not fields:
        return None
    test = test_of(fields)
    p = test.params
    verdict, llr = fields.get("verdict") or None, float(fields.get("llr", test.llr))
    alarm = false_alarm(Request(p, int(fields["max_games"])))
    return {
        "state": fields["state"],
        "verdict": verdict,
        "verdict_text": verdict_text(verdict, p.lower < llr < p.upper, alarm),
        "false_alarm": round(alarm, 3),
        "reason": fields.get("reason", ""),
        "llr": round(llr, 4),
        "lower": round(p.lower, 4),
        "upper": round(p.upper, 4),
        **{"elo0": p.elo0, "elo1": p.elo1, "alpha": p.alpha, "beta": p.beta},
        "games": test.games,
        "max_games": int(fields["max_games"]),
        **{k: int(fields.get(k, 0)) for k in ("wins", "draws", "losses")},
        "pentanomial": list(test.counts),
        **{k: fields[k] for k in ("bot", "game", "new", "old")},
        "superseded": _cancelled_before(client, fields),
    }


SHOWN_CANCELLED = 5  # earlier cancelled series a series' status lists


def _cancelled_before(client: redis.Redis, fields: dict[str, str]) -> list[dict]:
    """Returns the bot's series requested before the one of ``fields`` that were cancelled, newest
    first (new, old, games, reason), at most ``SHOWN_CANCELLED``."""
    index = keys.regression_series(fields["bot"])
    found = []
    earlier = members(client.zrevrangebyscore(index, f"({fields['created']}", "-inf", start=0, num=20))
    for version in earlier:
        other = text_hash(client.hgetall(keys.regression(version)))
        if other.get("state") == State.CANCELLED:
            games = 2 * sum(int(other.get(f"p{k}", 0)) for k in range(PENTANOMIAL))
            found.append(
                {"new": other["new"], "old": other["old"], "games": games, "reason": other["reason"]}
            )
            if len(found) == SHOWN_CANCELLED:
                break
    return found


def for_bot(client: redis.Redis, candidate: str, version: str, bot: str = "") -> dict | None:
    """Returns the regression series of a bot's newest version that has one (its candidate's, else
    its active version's), or None. Given the ``bot``'s name, a bot whose newest version has no series
    shows its latest series if a newer version cancelled it (so its owner sees why it stopped)."""
    for wanted in (candidate, version):
        found = status(client, wanted) if wanted else None
        if found is not None:
            return found
    latest = members(client.zrange(keys.regression_series(bot), -1, -1)) if bot else []
    found = status(client, latest[0]) if latest else None
    return found if found is not None and found["state"] == State.CANCELLED else None


def verdict_text(verdict: str | None, at_budget: bool, alarm: float) -> str | None:
    """Returns a verdict in words (None while the test runs): a "regression" says how often the test
    calls an unchanged version one (``alarm``), and a verdict the budget forced says so."""
    if verdict is None:
        return None
    if verdict == "none":
        return "no verdict"
    how = verdict + (
        f": the budget ran out with the LLR {'above' if verdict == 'H1' else 'below'} the bounds' middle"
        if at_budget
        else " accepted"
    )
    if verdict == "H1":
        return f"no regression ({how})"
    rate = f"{alarm:.0%}" if alarm >= 0.005 else "under 1%"
    return f"a regression ({how}; an unchanged version gets this verdict in about {rate} of tests)"


def format_lines(state: dict) -> list[str]:
    """Returns the lines of ``arena bots show`` about a regression series (``status``)."""
    hypotheses = f"H0: elo {state['elo0']:g}, H1: elo {state['elo1']:g}"
    bounds = f"{hypotheses}, alpha {state['alpha']:g}, beta {state['beta']:g}"
    head = f"regression: {state['new']} against {state['old']} in {state['game']} ({bounds})"
    earlier = [
        f"  earlier test cancelled: {c['new']} against {c['old']} after {c['games']} games ({c['reason']})"
        for c in state.get("superseded", ())
    ]
    if state["state"] == State.WAITING:
        return [head, "  waiting: starts when this version becomes active (its smoke match passes)", *earlier]
    verdict = "cancelled" if state["state"] == State.CANCELLED else state["verdict_text"] or "running"
    counts = f"W/D/L {state['wins']}/{state['draws']}/{state['losses']}"
    llr = f"LLR {state['llr']:.2f} ({state['lower']:.2f}, {state['upper']:.2f})"
    lines = [
        head,
        f"  {verdict}: {state['games']} of at most {state['max_games']} games, {counts}, {llr}",
        f"  pairs scoring 0, 0.5, 1, 1.5, 2: {', '.join(map(str, state['pentanomial']))}",
    ]
    return lines + ([f"  stopped: {state['reason']}"] if state["reason"] else []) + earlier


def submit_tested(
    client: redis.Redis, bot: str, wanted: Request | None, store: Callable[[], tuple[Submission, str | None]]
) -> tuple[Submission, str | None]:
    """Returns what ``store`` (a call of ``submissions.submit``) returns; with ``wanted``, the new
    version is first checked to have a version to regress from (the bot's active one, noted before the
    store), then its series is requested, and started at once if the version is active already (no
    smoke match on this machine; on a server it starts when the smoke match passes). With or without
    ``wanted``, the series the new version supersedes are cancelled (``sweep``): at once when it is
    active, else those still waiting for a candidate it replaced (the active version's series runs on
    until the new one passes its smoke match)."""
    old = previous(client, bot) if wanted is not None else ""
    found, secret = store()
    new = found.candidate or found.version
    if wanted is not None:
        request(client, bot, new, old, wanted)
    if found.candidate:
        sweep(client, bot)
    else:
        activated(client, bot, new)
    return found, secret


def for_name(client: redis.Redis, bot: str, game: str) -> dict | None:
    """Returns the regression series of a submitted bot's newest version (``for_bot``) when it is
    played in ``game``, or None (a built-in or unknown bot has none)."""
    candidate, version = maybe_text_list(client.hmget(keys.bot(bot), ["candidate", "version"]))
    found = for_bot(client, candidate or "", version or "", bot)
    return found if found is not None and found["game"] == game else None
