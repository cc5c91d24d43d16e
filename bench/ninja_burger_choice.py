"""Ninja Burger: what the decisions ``search`` leaves to ``SharpNinja`` are worth against ``ninja``, at 2
players (measurement only): the ninja to keep, the staff meeting, the Errand trade, a check's skill.

    nice .venv/bin/python bench/ninja_burger_choice.py --deals 300 --first-seed 500000
    nice .venv/bin/python bench/ninja_burger_choice.py --phases meeting trade skill --deals 120 \
        --first-seed 600000 --playouts 50 --search-deals 50

For each seed and each seat it plays the game, ``SharpNinja`` against ``ninja``. At each of the seat's
decisions of the measured kinds with more than one legal choice it plays each choice out to the end
``--playouts`` times, with the true cards, the decks in their true order and fresh dice: that mean is
the true worth of each choice. The dice rolled in the decision's own step stay the true ones (a check's
roll follows its choice of skill at once), so there every playout, and the oracle, sees that roll.
Then it scores ways of choosing against ``SharpNinja``'s own choice (the one ``search`` makes), as
the gain in winning share per game (the gains of the seat's decisions added up; at 2 players a game
is won, lost or drawn, a draw counting half):

- ``random``: a uniformly random choice;
- ``search``: ``--search-deals`` deals of what the seat cannot see (``determinize``), each choice
  played out to the end in every deal; ``search, margin 5``: the same, overruling ``SharpNinja`` only
  when a choice looks 5 points better, as ``search`` does in its windows;
- ``oracle``: the best choice by half of the true playouts, scored on the other half (and the
  reverse). It knows the hidden cards and the order of the decks, which no seat may know: it bounds
  what any way of choosing could gain.

For the ninja to keep it also prints ``SharpNinja``'s own score (each seat makes that choice once).
"""

from __future__ import annotations

import argparse
import dataclasses
import multiprocessing
import sys
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arena.games.ninja_burger.bots.search import determinize, estimate, play_each, playout, policy_actions
from arena.games.ninja_burger.engine import GAME, Action, NinjaBurgerState, Phase
from arena.games.rng import derive, derive_seed

PHASES = {
    "ninja": Phase.CHOOSE_NINJA,
    "meeting": Phase.MEETING,
    "trade": Phase.TRADE,
    "skill": Phase.CHOOSE_SKILL,
}
WAYS = ("random", "search", "search, margin 5", "oracle")
FIELDS = ("decisions", "sharp", *WAYS)  # what a row adds up, by kind of decision
MARGIN = 0.05
_END = 10**6  # a last round no game reaches: playouts run to the end of the game


def decisions(seed: int, me: int, phases: frozenset[Phase]) -> Iterator[tuple[NinjaBurgerState, dict]]:
    """Yields each state of one game (``SharpNinja`` in ``me`` against ``ninja``) where ``me`` has a
    real choice of a kind in ``phases``, with what the policies play there."""
    state = GAME.initial_state(2, seed)
    while not GAME.is_terminal(state):
        movers = GAME.to_move(state)
        actions = policy_actions(state, movers, me)
        if me in movers and state.phase in phases and len(GAME.legal_actions(state, me)) > 1:
            yield state, actions
        state = GAME.apply_legal(state, actions)


def worth(state: NinjaBurgerState, me: int, actions: dict, choice: Action, seeds: list[int]) -> list[float]:
    """Returns ``me``'s result of playing ``choice`` in ``state`` (the others as in ``actions``), once
    per dice seed in ``seeds``."""
    after = GAME.apply_legal(state, {**actions, me: choice})
    return [estimate(playout(dataclasses.replace(after, seed=s), _END, me), me) for s in seeds]


def labels(state: NinjaBurgerState, me: int) -> tuple:
    """Returns where a decision is (the seat, and past the ninja choice its round, phase and check),
    so that its dice seeds stay the same whichever kinds are measured."""
    if state.phase is Phase.CHOOSE_NINJA:
        return (me,)
    return (me, state.round, state.phase.value, state.check_index)


def searched(state: NinjaBurgerState, me: int, legal: tuple, deals: int) -> list[float]:
    """Returns each choice's mean result over ``deals`` determinized deals played out to the end."""
    obs = GAME.observe(state, me)
    draw = derive(state.seed, "choice-bench-search", *labels(state, me))
    totals = [0.0] * len(legal)
    for _ in range(deals):
        results = play_each(determinize(obs, draw), legal, me, _END)
        totals = [t + r for t, r in zip(totals, results, strict=True)]
    return [t / deals for t in totals]


def measure(task: tuple[int, int, tuple[str, ...], int, int]) -> dict[str, dict[str, float]]:
    """Returns, by kind of decision, the gain of each way of choosing over ``SharpNinja`` in one game,
    and its number of decisions (for the ninja, also ``SharpNinja``'s score)."""
    seed, me, kinds, playouts, deals = task
    rows: dict[str, dict[str, float]] = {}
    for state, actions in decisions(seed, me, frozenset(PHASES[k] for k in kinds)):
        legal = GAME.legal_actions(state, me)
        seeds = [derive_seed(seed, "choice-bench", *labels(state, me), r) for r in range(playouts)]
        truth = [worth(state, me, actions, choice, seeds) for choice in legal]
        mean = [sum(t) / len(t) for t in truth]
        usual = legal.index(actions[me])
        found = searched(state, me, legal, deals)
        best = found.index(max(found))
        trusted = best if found[best] > found[usual] + MARGIN else usual
        half = playouts // 2
        first = [sum(t[:half]) / half for t in truth]
        second = [sum(t[half:]) / (playouts - half) for t in truth]
        oracle = (second[first.index(max(first))] + first[second.index(max(second))]) / 2
        kind = next(k for k, p in PHASES.items() if p is state.phase)
        row = rows.setdefault(kind, dict.fromkeys(FIELDS, 0.0))
        row["decisions"] += 1
        row["sharp"] += mean[usual]
        row["random"] += sum(mean) / len(mean) - mean[usual]
        row["search"] += mean[best] - mean[usual]
        row["search, margin 5"] += mean[trusted] - mean[usual]
        row["oracle"] += oracle - mean[usual]
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--phases", nargs="+", choices=tuple(PHASES), default=["ninja"])
    parser.add_argument("--deals", type=int, default=100, help="seeds, each played from both seats")
    parser.add_argument("--first-seed", type=int, default=500000)
    parser.add_argument("--playouts", type=int, default=100, help="true playouts per choice")
    parser.add_argument("--search-deals", type=int, default=100, help="the search's deals per choice")
    parser.add_argument("--processes", type=int, default=2)
    args = parser.parse_args()
    games = [(s, me) for s in range(args.first_seed, args.first_seed + args.deals) for me in (0, 1)]
    tasks = [(s, me, tuple(args.phases), args.playouts, args.search_deals) for s, me in games]
    totals: dict[str, dict[str, float]] = {}
    with multiprocessing.Pool(args.processes) as pool:
        for done, rows in enumerate(pool.imap_unordered(measure, tasks), 1):
            for kind, row in rows.items():
                total = totals.setdefault(kind, dict.fromkeys(FIELDS, 0.0))
                for key, value in row.items():
                    total[key] += value
            if done % 20 == 0:
                print(f"{done}/{len(tasks)} games", file=sys.stderr, flush=True)
    print(f"2 players, seeds {args.first_seed}+, {len(games)} games against ninja; gain per game:")
    print("| decision | decisions | " + " | ".join(WAYS) + " |\n|---|---|" + "---|" * len(WAYS))
    for kind in args.phases:
        total = totals.get(kind, dict.fromkeys(FIELDS, 0.0))
        cells = " | ".join(f"{100 * total[way] / len(games):+.1f}" for way in WAYS)
        print(f"| {kind} | {int(total['decisions'])} | {cells} |")
    if "ninja" in totals:
        print(f"SharpNinja's choice of ninja scores {totals['ninja']['sharp'] / len(games):.3f}")


if __name__ == "__main__":
    main()
