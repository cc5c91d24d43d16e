"""The baselines of issue 20: two short bots that the built-in bots must beat.

* ``GrabFirst`` (Ninja Master): grabs the most valuable free component each tick and calls only when
  nothing positive is left for it. ``master`` lost 41:59 to such a bot head to head.
* ``RoundSimGreedy`` (Ninjan): ``greedy``'s commits, but its take and place choices simulate the rest
  of the round with the cards already revealed. It beat ``greedy`` about 56:44.

They are test bots (not built in): they play through the SDK interface like any bot, in-process via
``tests.conftest.play_bots``.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta

from arena.games.ninja_master import engine as nm
from arena.games.ninjan import engine as nj
from arena.games.ninjan.bots import GreedyBot, pile_value, table_state
from arena.sdk import Bot


class GrabFirst(Bot):
    """Ninja Master: grab the most valuable free component, call when nothing positive is left."""

    name = "grab-first"

    def choose(
        self, observation: nm.Observation, legal_actions: Sequence[nm.Action], deadline: timedelta
    ) -> int:
        obs, roll = observation, nm.summarize(observation.dice)
        scores = {p.seat: p.score for p in obs.players}

        def value(component: nm.Component) -> float:
            if component.colour is not None:
                return roll.token_value(component.colour)
            return scores[obs.sword_holder] // 2 if roll.sword_wins else -nm.CUT_PENALTY

        grabs = [
            (value(a.component), -a.component, i)
            for i, a in enumerate(legal_actions)
            if isinstance(a, nm.Grab)
        ]
        best = max(grabs, default=None)
        if best is not None and best[0] > 0:
            return best[2]
        call = nm.Call(roll.ninja_total)
        return legal_actions.index(call) if call in legal_actions else legal_actions.index(nm.Wait())


class RoundSimGreedy(GreedyBot):
    """Ninjan: ``greedy``'s commits; a take or place choice is the one after which the rest of the
    round (the revealed cards, resolved by take-richest / place-on-poorest) leaves this seat's gain
    furthest ahead of the best other seat's."""

    name = "round-sim-greedy"

    def choose(
        self, observation: nj.Observation, legal_actions: Sequence[nj.Action], deadline: timedelta
    ) -> int:
        if isinstance(legal_actions[0], nj.PlayCard):
            return legal_actions.index(super().choose(observation, legal_actions, deadline))
        state = table_state(observation, tuple(() for _ in observation.players))
        scores = nj.GAME.scores(state)
        outcomes = []
        for i, action in enumerate(legal_actions):
            end = finish_round(nj.GAME.apply_legal(state, {observation.seat: action}))
            gains = [after - before for after, before in zip(nj.GAME.scores(end), scores, strict=True)]
            mine = gains.pop(observation.seat)
            outcomes.append((mine - max(gains), -i))
        return -max(outcomes)[1]


def finish_round(state: nj.NinjanState) -> nj.NinjanState:
    """Returns ``state`` after its round's remaining cards resolve (take the richest pile a card
    beats; place a card that beats none on the poorest pile)."""
    while state.resolving is not None:
        play = state.revealed[state.resolving]
        beaten = nj.beaten_piles(play.card, state.piles)
        if beaten:
            action: nj.Action = nj.TakePile(max(beaten, key=lambda p: (pile_value(state.piles[p]), -p)))
        else:
            action = nj.PlacePile(min(range(nj.NUM_PILES), key=lambda p: (pile_value(state.piles[p]), p)))
        state = nj.GAME.apply_legal(state, {play.seat: action})
    return state
