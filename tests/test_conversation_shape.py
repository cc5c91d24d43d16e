"""Fair play: no leak through the shape of the conversation.

What a seat receives (which messages, how many, in what order, the step and request numbers in them)
may depend only on what that seat may know. For every game with hidden information, pairs of games
are built that differ only in what seat X may not see (another seat's hand, the order of a deck) and
whose public play is the same; both run through the real match loop (arena/referee/match.py) with
in-process bots on leases (the recording lease of tests/test_secrecy.py), and every message each seat
X is sent is compared as serialized bytes. Nothing in them legitimately differs: the match id, the
bots' names and the seed are the same in both games of a pair, and tokens never reach a bot.

Where the hidden difference becomes public during the game (a card played from the other hand, a
mission revealed), the streams must be identical up to the first message that carries it.

The bots answer by a rule that depends only on what they were sent, so the same stream gives the
same answers; the seat whose secret differs plays by a rule that makes the same public choices in
both games (decline, pass, keep the differing card for last).
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable, Sequence
from datetime import timedelta
from typing import Any

import pytest

from arena import codec
from arena.games import GAMES, get_game
from arena.games.base import Game
from arena.games.ninja_burger import engine as nb
from arena.games.ninjan import engine as ninjan
from arena.games.pnrz import engine as pnrz
from arena.games.rng import derive
from arena.referee.match import Match, MatchConfig, SeatState
from arena.v1 import arena_pb2 as pb
from tests.conftest import walk
from tests.test_secrecy import RecordingLease, Tracked

Policy = Callable[[int, Any, Sequence[Any], int], int]  # (seat, observation, legal, step) -> index


class Dealt(Tracked):
    """The real game, started from a prepared state: ``initial_state`` returns it (and tracks the
    state as the referee holds it, for the recording lease)."""

    def __init__(self, game: Game, start: Any) -> None:
        super().__init__(game)
        self.start = start

    def initial_state(self, num_players: int, seed: int) -> Any:
        assert num_players == self.start.num_players, "the prepared state has another number of seats"
        self.state = self.start
        return self.state


def seeded(seat: int, observation: Any, legal: Sequence[Any], step: int) -> int:
    """Any legal action, drawn from the step and the seat: the same stream gives the same answers."""
    return derive(0, "shape", step, seat).randrange(len(legal))


async def answer(lease: RecordingLease, game: Game, seat: int, policy: Policy) -> None:
    """An in-process bot: decodes each DecisionRequest as a bot's codec would and answers by index."""
    while (message := await asyncio.wait_for(lease.outbound.get(), 60)) is not None:
        if message.WhichOneof("kind") != "decision":
            continue
        request = message.decision
        observation = codec.observation_from_proto(game, request.observation)
        legal = [codec.action_from_proto(game, a) for a in request.legal_actions]
        index = policy(seat, observation, legal, request.step)
        lease.offer(pb.Answer(request_id=request.request_id, index=index))


@dataclasses.dataclass
class Played:
    """One game as the seats saw it: every message each seat was sent (serialized, in order), the
    state the referee held when it was sent, and the final state."""

    streams: list[list[bytes]]
    states: list[list[Any]]
    end: Any


async def _play(game: Game, start: Any, policies: Sequence[Policy]) -> Played:
    dealt = Dealt(game, start)
    n = len(policies)
    leases = [RecordingLease(f"seat{seat}") for seat in range(n)]
    for seat, lease in enumerate(leases):
        lease.tracked = dealt
        lease.claimed = True  # as if its stream had joined
        lease.events_in_requests = seat % 2 == 0  # both ways of receiving events
    seats = [SeatState(seat, f"bot{seat}", lease) for seat, lease in enumerate(leases)]
    config = MatchConfig(deadline=timedelta(seconds=60), max_strikes=1)  # a strike fails the test
    match = Match(dealt, seats, start.seed, f"shape-{game.spec.name}", config)  # type: ignore[arg-type]
    bots = [
        asyncio.create_task(answer(lease, game, seat, policies[seat])) for seat, lease in enumerate(leases)
    ]
    record = await asyncio.wait_for(match.run(), 300)
    for lease in leases:
        lease.release()
    await asyncio.wait_for(asyncio.gather(*bots), 60)
    assert not any(p.strikes or p.forfeit for p in record.players), record
    return Played(
        [[data for data, _ in lease.sent] for lease in leases],
        [[state for _, state in lease.sent] for lease in leases],
        dealt.state,
    )


def play(game: Game, start: Any, policies: Sequence[Policy]) -> Played:
    """Plays ``start`` to the end through the real match loop, the bots answering by ``policies``."""
    return asyncio.run(_play(game, start, policies))


def carried(game: Game, data: bytes) -> list[Any]:
    """Returns the engine objects a message carries: observation, legal actions and events."""
    message = pb.RefereeMessage.FromString(data)
    kind = message.WhichOneof("kind")
    if kind == "event":
        return [codec.event_from_proto(game, message.event)]
    if kind == "decision":
        request = message.decision
        return [
            codec.observation_from_proto(game, request.observation),
            *(codec.action_from_proto(game, a) for a in request.legal_actions),
            *(codec.event_from_proto(game, e) for e in request.events),
        ]
    if kind == "result":
        return [codec.event_from_proto(game, e) for e in message.result.events]
    return []


def assert_same_while_hidden(one: Played, two: Played, seat: int, hidden: Callable[[Any], bool]) -> int:
    """Asserts that ``seat``'s streams are identical for as long as the difference between the two
    games is hidden from every seat but its holder (``hidden(state)``): up to the first message sent
    once it is not (a card played, a tile drawn by another seat, a mission revealed), which must come
    at the same place in both. Returns that place."""

    def cut(played: Played) -> int:
        states = played.states[seat]
        return next(
            (i for i, state in enumerate(states) if state is not None and not hidden(state)), len(states)
        )

    a, b = one.streams[seat], two.streams[seat]
    cut_one, cut_two = cut(one), cut(two)
    same = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))
    assert same >= min(cut_one, cut_two), (
        f"seat {seat}: message {same} differs while the difference is hidden (until message "
        f"{min(cut_one, cut_two)}): {pb.RefereeMessage.FromString(a[same]) if same < len(a) else 'end'} vs "
        f"{pb.RefereeMessage.FromString(b[same]) if same < len(b) else 'end'}"
    )
    assert cut_one == cut_two, (
        f"seat {seat}: the difference came out at message {cut_one} in one game, {cut_two}"
    )
    if cut_one == len(a):
        assert a == b, f"seat {seat}: the streams differ in length"
    return cut_one


# -- Ninja Burger ---------------------------------------------------------------------------------


def burger_pair(
    n: int,
    seed: int,
    holder: int,
    one: Callable[[nb.FortuneCard], bool],
    two: Callable[[nb.FortuneCard], bool],
) -> tuple[nb.NinjaBurgerState, nb.NinjaBurgerState]:
    """Returns two deals that differ only in ``holder``'s fortune hand: three cards for which ``one``
    holds, or three for which ``two`` holds. The other three of those six lie at the bottom of the
    fortune deck, under the same cards in the same order, so every draw is the same until the deck
    runs that low (``untouched`` checks that it did not)."""
    base = nb.GAME.initial_state(n, seed)
    deck = base.fortune_deck  # the last card is drawn first
    cards_one = tuple(c for c in deck if one(c))[:3]
    cards_two = tuple(c for c in deck if two(c))[:3]
    assert len(cards_one) == len(cards_two) == 3 and not set(cards_one) & set(cards_two)
    rest = tuple(c for c in deck if c not in cards_one + cards_two)
    old = base.hands[holder]

    def with_hand(hand: tuple, under: tuple) -> nb.NinjaBurgerState:
        hands = tuple(hand if s == holder else h for s, h in enumerate(base.hands))
        return dataclasses.replace(base, hands=hands, fortune_deck=(*old, *under, *rest))

    return with_hand(cards_one, cards_two), with_hand(cards_two, cards_one)


def untouched(state: nb.NinjaBurgerState) -> bool:
    """Returns whether the bottom six cards of the fortune deck were never drawn (nor reshuffled)."""
    return state.fortune_shuffles == 0 and len(state.fortune_deck) >= 6


def burger_passer(seat: int, observation: Any, legal: Sequence[Any], step: int) -> int:
    """Plays no card, forces no trade, skips every meeting: the same public choices whatever its hand."""
    if nb.Decline() in legal:
        return legal.index(nb.Decline())
    if nb.Attend(False) in legal:
        return legal.index(nb.Attend(False))
    return 0  # the ninja (its options are the same in both games) or the skill (public)


def burger_player(seat: int, observation: Any, legal: Sequence[Any], step: int) -> int:
    """The seeded rule, but going to one staff meeting in four (fewer draws: the deck lasts longer)."""
    if nb.Attend(True) in legal:
        return legal.index(nb.Attend(derive(0, "shape-meeting", step, seat).below(4) == 0))
    return seeded(seat, observation, legal, step)


def interesting(card: nb.FortuneCard) -> bool:
    return card.kind == nb.FortuneKind.INTERESTING_TIMES and card.immediate


def good_fortune(card: nb.FortuneCard) -> bool:
    return card.kind == nb.FortuneKind.GOOD_FORTUNE


def no_use_to_an_opponent(card: nb.FortuneCard) -> bool:
    """A card its holder can never play on another seat's mission."""
    return card.kind != nb.FortuneKind.INTERESTING_TIMES


@pytest.mark.parametrize(("n", "seed", "holder"), [(2, 3, 1), (3, 11, 2), (4, 5, 0)], ids=["2p", "3p", "4p"])
def test_burger_an_opponents_playable_fortune_card_does_not_show(n: int, seed: int, holder: int) -> None:
    """The known leak: the engine asked only the seats that held a card they could play, so whether
    another seat holds Interesting Times showed in the step numbers (and the wait). Seat ``holder``
    holds three immediate Interesting Times cards in one game and three cards it can never play on
    another's mission in the other, and never plays one: every other seat's stream is the same."""
    one, two = burger_pair(n, seed, holder, interesting, no_use_to_an_opponent)
    policies = [burger_passer if s == holder else burger_player for s in range(n)]
    first, second = play(nb.GAME, one, policies), play(nb.GAME, two, policies)
    assert untouched(first.end) and untouched(second.end), "pick another seed: the deck ran down to the swap"
    for seat in range(n):
        if seat != holder:
            assert first.streams[seat] == second.streams[seat], f"seat {seat} can tell seat {holder}'s hand"
    assert first.streams[holder] != second.streams[holder]  # its own hand shows, of course
    assert first.end.round >= 2 and first.end.honor == second.end.honor  # a game, not a round


@pytest.mark.parametrize(("n", "seed", "holder"), [(3, 2, 0), (4, 9, 3)], ids=["3p", "4p"])
def test_burger_reroll_cards_or_fines_in_another_hand_do_not_show(n: int, seed: int, holder: int) -> None:
    """Seat ``holder`` holds three reroll cards in one game, three Interesting Times fines in the
    other: it was asked after its own failed rolls only with a reroll card, in the others' windows only
    with Interesting Times. It never plays one: every other seat's stream is the same."""
    one, two = burger_pair(
        n, seed, holder, lambda c: c.effect == nb.Effect.REROLL, lambda c: c.effect == nb.Effect.FINE
    )
    policies = [burger_passer if s == holder else burger_player for s in range(n)]
    first, second = play(nb.GAME, one, policies), play(nb.GAME, two, policies)
    assert untouched(first.end) and untouched(second.end), "pick another seed: the deck ran down to the swap"
    for seat in range(n):
        if seat != holder:
            assert first.streams[seat] == second.streams[seat], f"seat {seat} can tell seat {holder}'s hand"


def test_burger_the_order_of_the_fortune_deck_does_not_show() -> None:
    """Two deals whose fortune decks differ in the cards that are drawn last (the same cards, each game
    holding the other's three in a hand that is never played): every other seat's stream is the same."""
    one, two = burger_pair(3, 4, 1, good_fortune, lambda c: c.effect == nb.Effect.ITEM)
    policies = [burger_passer if s == 1 else burger_player for s in range(3)]
    first, second = play(nb.GAME, one, policies), play(nb.GAME, two, policies)
    assert untouched(first.end) and untouched(second.end)
    assert first.streams[0] == second.streams[0] and first.streams[2] == second.streams[2]


ERRAND, ERRAND_TOO = [m for m in nb.mission_cards() if m.errand][:2]
DELIVERY, DELIVERY_TOO = [m for m in nb.mission_cards() if not m.errand][:2]


def test_burger_an_errand_in_another_hand_does_not_show_before_it_is_revealed() -> None:
    """Everyone attends the staff meeting; seat 0 (the most honor) holds an Errand in one game and a
    mission in the other, and forces no trade. The trades asked it only when it held an Errand, so
    seat 1, asked next (it holds an Errand too, and seat 2 has less honor), saw another step number.
    Every other seat's stream is the same until seat 0's mission is revealed."""
    n = 3
    base = nb.GAME.initial_state(n, 6)
    base = nb.GAME.apply(base, {s: nb.GAME.legal_actions(base, s)[0] for s in range(n)})
    assert base.phase is nb.Phase.MEETING
    used = (ERRAND, ERRAND_TOO, DELIVERY, DELIVERY_TOO)
    deck = tuple(m for m in (*base.missions, *base.mission_deck) if m not in used)
    pair = [
        dataclasses.replace(
            base,
            honor=(8, 6, 5),
            missions=(mine, ERRAND_TOO, DELIVERY_TOO),
            mission_deck=(other, *deck),  # the one not dealt is drawn last
            mission_discard=(),
        )
        for mine, other in ((ERRAND, DELIVERY), (DELIVERY, ERRAND))
    ]

    def attends(seat: int, observation: Any, legal: Sequence[Any], step: int) -> int:
        if nb.Attend(True) in legal:
            return legal.index(nb.Attend(True))
        return burger_passer(seat, observation, legal, step)

    policies = [attends, attends, attends]
    first, second = play(nb.GAME, pair[0], policies), play(nb.GAME, pair[1], policies)
    for seat in (1, 2):
        cut = assert_same_while_hidden(first, second, seat, lambda s: s.round == 1 and not s.revealed[0])
        assert 0 < cut < len(first.streams[seat])  # the meeting and the trades came before the reveal
        shown = carried(nb.GAME, first.streams[seat][cut])
        assert nb.MissionRevealed(0, ERRAND.id) in shown or nb.MissionRevealed(0, ERRAND.id) in walk(shown)


# -- Ninjan ---------------------------------------------------------------------------------------


def ninjan_pair(seed: int, holder: int) -> tuple[tuple[Any, Any], ninjan.Card, ninjan.Card]:
    """Returns two deals that differ in one card of ``holder``'s hand, swapped with a set-aside card
    (whose order is reversed too), and the two cards."""
    base = ninjan.GAME.initial_state(3, seed)
    mine, aside = base.hands[holder][0], base.set_aside[0]
    hand = tuple(sorted((*base.hands[holder][1:], aside)))
    hands = tuple(hand if s == holder else h for s, h in enumerate(base.hands))
    other = dataclasses.replace(base, hands=hands, set_aside=(*base.set_aside[:0:-1], mine))
    return (base, other), mine, aside


def keeps_for_last(*kept: ninjan.Card) -> Policy:
    """Commits its cards from the lowest up, ``kept`` last; any pile choice by the seeded rule."""

    def policy(seat: int, observation: Any, legal: Sequence[Any], step: int) -> int:
        if isinstance(legal[0], ninjan.PlayCard):
            order = sorted(range(len(legal)), key=lambda i: (legal[i].card in kept, legal[i].card))
            return order[0]
        return seeded(seat, observation, legal, step)

    return policy


@pytest.mark.parametrize("seed", [1, 2])
def test_ninjan_another_hand_and_the_set_aside_cards_do_not_show(seed: int) -> None:
    """Seat 0 holds one card or another (the other one set aside, unseen), and plays it last: the
    other seats' streams are the same until the last round's cards are revealed."""
    (one, two), mine, aside = ninjan_pair(seed, 0)
    policies = [keeps_for_last(mine, aside), seeded, seeded]
    first, second = play(ninjan.GAME, one, policies), play(ninjan.GAME, two, policies)

    def hidden(state: ninjan.NinjanState) -> bool:
        return {mine, aside} <= {*state.hands[0], *state.set_aside}

    for seat in (1, 2):
        cut = assert_same_while_hidden(first, second, seat, hidden)
        shown = carried(ninjan.GAME, first.streams[seat][cut])
        assert shown[0].round == ninjan.ROUNDS and mine in walk(shown)  # the last round's reveal


# -- PNRZ -----------------------------------------------------------------------------------------


def pnrz_pair(seed: int, holder: int) -> tuple[tuple[Any, Any], set[pnrz.Tile]]:
    """Returns two dealt tables (factions chosen) that differ in one game tile of ``holder``'s hand,
    swapped with the last tile of the draw pile, and the two tiles."""
    game = pnrz.GAME
    state = game.initial_state(3, seed)
    while state.phase is pnrz.Phase.CHOOSE:
        state = game.apply(state, {s: game.legal_actions(state, s)[0] for s in game.to_move(state)})
    mine = next(t for t in state.hands[holder] if pnrz.TILES[t].base is None)
    last = state.pile[-1]
    hand = tuple(sorted(last if t == mine else t for t in state.hands[holder]))
    hands = tuple(hand if s == holder else h for s, h in enumerate(state.hands))
    other = dataclasses.replace(state, hands=hands, pile=(*state.pile[:-1], mine))
    return (state, other), {pnrz.TILES[mine], pnrz.TILES[last]}


def pnrz_keeper(secret: set[pnrz.Tile]) -> Policy:
    """Plays its other tiles first (the lowest id), moves a base when that is all it can do without the
    secret tile, places at the first legal spot, skips extra actions: the same public play in both."""
    ids = {t.id for t in secret}

    def policy(seat: int, observation: Any, legal: Sequence[Any], step: int) -> int:
        def rank(action: Any) -> tuple:
            if isinstance(action, pnrz.SelectTile):
                return (1, action.tile_id) if action.tile_id in ids else (0, action.tile_id)
            if isinstance(action, pnrz.SkipAction):
                return (-1,)
            return (0.5, 0)

        return min(range(len(legal)), key=lambda i: rank(legal[i]))

    return policy


@pytest.mark.parametrize("seed", [1, 3])
def test_pnrz_another_hand_and_the_pile_order_do_not_show(seed: int) -> None:
    """Seat 0 holds one tile or another (the other one last in the pile) and keeps it for last: the
    other seats' streams are the same until the tile is seen (drawn by them or played)."""
    (one, two), secret = pnrz_pair(seed, 0)
    policies = [pnrz_keeper(secret), seeded, seeded]
    first, second = play(pnrz.GAME, one, policies), play(pnrz.GAME, two, policies)
    ids = {tile.id for tile in secret}

    def hidden(state: pnrz.PnrzState) -> bool:
        return ids <= {*state.hands[0], *state.pile}

    for seat in (1, 2):
        cut = assert_same_while_hidden(first, second, seat, hidden)
        assert cut > 30  # most of the game: the last tile of the pile is drawn at its end


# -- every game -----------------------------------------------------------------------------------


COVERED = {"ninja-burger", "ninjan", "pnrz"}


def test_every_game_with_hidden_information_is_covered() -> None:
    """Ninja Master hides nothing (dice, holders and scores are public; a tick's sealed choices are the
    commit order that tests/test_secrecy.py checks), so no pair of its games can differ unseen."""
    hidden = {name for name, game in GAMES.items() if not game.spec.perfect_information}
    assert hidden == COVERED
    assert get_game("ninja-master").spec.perfect_information
