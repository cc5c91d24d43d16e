"""The collusion report of a game, read from Redis: what ``arena collusion GAME`` and the organiser's
endpoint show (the statistics are pure: ``arena.ratings.collusion``).

What it reads, all of it already kept: the game's results in recording order (``keys.results``:
match id, each seat's bot, version and rank), each bot's ``account`` (a field of its hash at
``keys.bot``; a bot without one, a built-in included, is its own group ``bot:NAME``), and for each
match with a stored log (``arena.referee.botlog``: a tournament's or the ladder's match keeps one)
the think time of every decision, matched to the state it was taken in by re-running the replay
(``arena.referee.replay.recorded_steps``). From that state, a game's entry of ``HIDDEN`` says the
public situation of the decision (its stratum) and a few numbers describing what the deciding seat
alone could see; a game without an entry gets only its ``results`` and ``sync`` tests.

Design detail, the numbers are the game's, written here rather than in the game: they describe what a
signal would carry (for Ninjan, per suit: how many cards, their total, the highest), which is a
question about collusion, not about the rules; a new game adds one entry.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from typing import Any

import redis

from arena.games import get_game
from arena.games.base import Game
from arena.games.play import Driver
from arena.queue import keys
from arena.queue import store as queue_store
from arena.queue.connection import maybe_text_list
from arena.ratings import collusion
from arena.ratings.pairs import player_id
from arena.referee import botlog
from arena.referee.replay import ReplayError, opening, parse_lines, recorded_steps
from arena.storage import replays

Hidden = Callable[[Any, int], tuple[str, tuple[float, ...]]]  # (state, seat) -> (stratum, numbers)


def ninjan_hidden(state: Any, seat: int) -> tuple[str, tuple[float, ...]]:
    """Returns a Ninjan decision's stratum (phase, round and number of legal actions: what everybody
    sees of it) and the deciding seat's hand, described per suit: cards held (two suits: the third
    follows from the hand's size, which is public), total value and highest value (-7 without a card
    of the suit)."""
    from arena.games.ninjan.engine import GAME

    count = [0, 0, 0, 0]
    total = [0, 0, 0, 0]
    high = [-7, -7, -7, -7]
    for card in state.hands[seat]:
        suit, value = int(card.suit), card.value
        count[suit] += 1
        total[suit] += value
        high[suit] = max(high[suit], value)
    numbers = (count[1], count[2], total[1], total[2], total[3], high[1], high[2], high[3])
    choices = len(GAME.legal_actions(state, seat))
    return f"{GAME.phase(state).name.lower()}-{state.round}-{choices}", tuple(map(float, numbers))


HIDDEN: dict[str, Hidden] = {"ninjan": ninjan_hidden}


def group_of(bot: str, account: str | None) -> str:
    """Returns the group a bot is tested in: its account, or ``bot:NAME`` without one."""
    return account if account else f"bot:{bot}"


def accounts(client: redis.Redis, bots: Sequence[str]) -> dict[str, str]:
    """Returns each bot's group (``group_of`` its hash's ``account`` field), read in one round trip."""
    names = sorted(set(bots))
    with client.pipeline(transaction=False) as pipe:
        for name in names:
            pipe.hget(keys.bot(name), "account")
        found = maybe_text_list(pipe.execute())
    return {name: group_of(name, account) for name, account in zip(names, found, strict=True)}


def decisions_of(game: Game, replay_text: str | None, log_text: str | None) -> tuple[collusion.Decision, ...]:
    """Returns a match's decisions with their think times (from its stored log), each with its stratum
    and hidden numbers where the replay re-runs and the game has a ``HIDDEN`` entry; () without a log."""
    if log_text is None:
        return ()
    try:
        log = botlog.parse_match_log(log_text, "stored log")
    except botlog.MatchLogError:
        return ()
    hidden = HIDDEN.get(game.spec.name)
    before: dict[int, Any] = {}
    if hidden is not None and replay_text is not None:
        with contextlib.suppress(ReplayError, KeyError, ValueError, TypeError):
            lines = parse_lines(replay_text)
            header, replayed = opening(lines)
            driver = Driver(replayed, replayed.initial_state(len(header["players"]), header["seed"]))
            state = driver.state
            for step in recorded_steps(replayed, driver, lines, check_actions=False):
                if step.decisions:
                    before[step.number] = state
                state = step.state
    out = []
    for t in log.think:
        if not t.answered:
            continue
        state = before.get(t.step)
        if hidden is not None and state is not None:
            stratum, numbers = hidden(state, t.seat)
        else:
            stratum, numbers = "any", ()
        out.append(collusion.Decision(t.seat, t.step, stratum, t.ms, numbers))
    return tuple(out)


def tables(client: redis.Redis, game_name: str, last: int | None = None) -> list[collusion.Table]:
    """Returns the game's recorded matches (the ``last`` ones, or all) as the statistics read them."""
    game = get_game(game_name)
    results = list(queue_store.iter_results(client, game.spec.name))
    if last is not None:
        results = results[-last:] if last > 0 else []
    groups = accounts(client, [p["bot"] for m in results for p in m["players"]])
    store = replays.store_for(client)
    out = []
    for match in results:
        match_id = match["match_id"]
        seats = tuple(
            collusion.Seat(player_id(p["bot"], p.get("version", "")), groups[p["bot"]], int(p["rank"]))
            for p in match["players"]
        )
        log = store.get(match_id, botlog.STORE_KIND)
        replay = queue_store.replay_text(client, match_id) if log is not None else None
        log_text = None if log is None else log.decode("utf-8", errors="replace")
        out.append(collusion.Table(match_id, seats, decisions_of(game, replay, log_text)))
    return out


def report(
    client: redis.Redis, game_name: str, alpha: float = collusion.FLAG_ALPHA, last: int | None = None
) -> collusion.Report:
    """Returns the collusion report of a game's recorded matches."""
    return collusion.analyse(tables(client, game_name, last), alpha)
