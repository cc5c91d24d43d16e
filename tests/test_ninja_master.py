"""Ninja Master: the seed's examples as scenarios with fixed dice, the decisions of issue 3, property
tests over thousands of seeded games, and the master bot's margin over random."""

from __future__ import annotations

import dataclasses
import random
from collections import Counter

import pytest

from arena.bots.common import RandomBot
from arena.games import get_game
from arena.games.base import IllegalActionError, Termination
from arena.games.ninja_master.bots import BOTS, MasterBot
from arena.games.ninja_master.engine import (
    CALLS,
    COMPONENTS,
    DICE,
    DICE_TABLE,
    GAME,
    GRABS,
    HANDS,
    MAX_TICKS,
    Call,
    CallResult,
    Colour,
    Component,
    Face,
    Grab,
    NinjaMasterState,
    Phase,
    RoundEnd,
    RoundTallied,
    Symbol,
    TickResolved,
    Wait,
    parse_face,
    summarize,
    tally,
    with_roll,
)
from tests.conftest import play_bots

ORANGE, PINK, BLUE, GREEN, PURPLE, SWORD = COMPONENTS
WAIT = Wait()


# -- helpers --------------------------------------------------------------------------------------


def roll(*codes: str) -> tuple[Face, ...]:
    """Returns 9 faces, die by die, showing exactly the faces ``codes`` (DICE_TABLE codes, any order).

    The faces are matched to dice that really have them, so every scenario is a roll that can happen.
    """
    assert len(codes) == len(DICE)
    wanted = [parse_face(c) for c in codes]

    def place(i: int, used: frozenset[int], acc: tuple) -> tuple | None:
        if i == len(wanted):
            return acc
        for die, faces in enumerate(DICE):
            if die not in used and wanted[i] in faces:
                found = place(i + 1, used | {die}, (*acc, (die, wanted[i])))
                if found is not None:
                    return found
        return None

    placed = place(0, frozenset(), ())
    assert placed is not None, f"no roll of the 9 dice shows {codes}"
    return tuple(face for _, face in sorted(placed, key=lambda p: p[0]))


def position(
    scores: tuple[int, ...], dice: tuple[Face, ...], sword: int = 0, shuriken: int = 0, seed: int = 1
) -> NinjaMasterState:
    """Returns a grab-phase position with the given VP, dice, sword holder and roller."""
    state = GAME.initial_state(len(scores), seed)
    state = dataclasses.replace(state, scores=scores, sword_holder=sword, shuriken_holder=shuriken)
    return with_roll(state, dice)


def tick(state: NinjaMasterState, *actions) -> NinjaMasterState:
    """Returns the state after one tick in which seat i plays actions[i] (checked by apply)."""
    return GAME.apply(
        state, {seat: action for seat, action in zip(GAME.to_move(state), actions, strict=True)}
    )


def tallied(state: NinjaMasterState) -> RoundTallied:
    """Returns the RoundTallied event of the step that led to ``state``."""
    (event,) = [e for e in GAME.events(state) if isinstance(e, RoundTallied)]
    return event


def line(state: NinjaMasterState, seat: int):
    """Returns seat's tally line of the round that just ended."""
    (found,) = [x for x in tallied(state).lines if x.seat == seat]
    return found


def grab(component: Component) -> Grab:
    return Grab(component)


# -- the dice -------------------------------------------------------------------------------------


def test_dice_table_is_the_issue_formula() -> None:
    colours = list(Colour)
    for k, die in enumerate(DICE):
        assert die == (
            Face(Symbol.NINJA, colours[k % 5], 1),
            Face(Symbol.NINJA, colours[(k + 1) % 5], 2),
            Face(Symbol.NINJA, colours[(k + 2) % 5], 3),
            Face(Symbol.SMOKE, colours[(k + 3) % 5]),
            Face(Symbol.SWORD),
            Face(Symbol.SHURIKEN),
        )
    assert len(DICE_TABLE) == 9


def test_the_roll_is_a_seeded_chance_step() -> None:
    state = GAME.initial_state(3, 42)
    assert GAME.phase(state) is Phase.ROLL and GAME.to_move(state) == ()
    rolled = GAME.apply(state, {})
    assert GAME.apply(state, {}) == rolled
    assert len(rolled.dice) == 9 and all(face in DICE[k] for k, face in enumerate(rolled.dice))
    assert GAME.to_move(rolled) == (0, 1, 2)
    assert len({GAME.apply(GAME.initial_state(3, s), {}).dice for s in range(20)}) > 15


def test_setup_three_vp_and_one_random_seat_gets_sword_and_shuriken() -> None:
    firsts = set()
    for seed in range(40):
        state = GAME.initial_state(4, seed)
        assert state.scores == (3, 3, 3, 3)
        assert state.sword_holder == state.shuriken_holder
        firsts.add(state.sword_holder)
    assert firsts == {0, 1, 2, 3}


# -- capturing a ninja (the seed's smoke examples) ------------------------------------------------


@pytest.mark.parametrize(
    ("codes", "component", "expected"),
    [
        # Orange 1, rolled 2 orange smoke symbols: no penalty.
        (("O1", "~O", "~O", "X", "X", "*", "*", "X", "*"), ORANGE, 1),
        # Pink 3 with exactly 1 pink smoke: a matching penalty, -3.
        (("K3", "~K", "X", "X", "*", "*", "X", "*", "G1"), PINK, -3),
        # Green 0: no green ninja symbols rolled: no VP.
        (("O1", "K1", "~G", "X", "*", "X", "*", "X", "*"), GREEN, 0),
        # Purple 3, no smoke: +3 ("doubles": the number of ninja symbols is the VP).
        (("U3", "X", "*", "X", "*", "X", "*", "X", "*"), PURPLE, 3),
        # Blue 1 + 3 (two blue faces add up), no blue smoke: +4.
        (("B1", "B3", "X", "*", "X", "*", "X", "*", "X"), BLUE, 4),
        # Only smoke of that colour: no VP.
        (("~O", "~O", "X", "*", "X", "*", "X", "*", "X"), ORANGE, 0),
    ],
)
def test_a_captured_ninja_scores_its_symbols_and_smoke(codes, component, expected) -> None:
    state = position((5, 5, 5), roll(*codes), sword=2, shuriken=2)
    state = tick(state, grab(component), WAIT, WAIT)
    state = tick(state, WAIT, WAIT, Call(summarize(state.dice).ninja_total))
    assert line(state, 0).ninjas == expected
    assert state.scores[0] == max(0, 5 + expected)


# -- capturing the sword (the seed's sword examples) ----------------------------------------------


def _sword_round(codes, thief_grabs: bool = True, holder_grabs: bool = False):
    # Seat 0 holds the sword with 10 VP, seat 1 tries to steal it, seat 2 rolled.
    state = position((10, 4, 4), roll(*codes), sword=0, shuriken=2)
    state = tick(
        state, grab(SWORD) if holder_grabs else WAIT, grab(SWORD) if thief_grabs else WAIT, grab(ORANGE)
    )
    return tick(state, *(Call(summarize(state.dice).ninja_total) if s != 2 else WAIT for s in range(3)))


def test_two_swords_no_shuriken_the_sword_is_stolen() -> None:
    state = _sword_round(("X", "X", "K1", "K1", "B1", "B1", "G1", "G1", "O1"))
    event = tallied(state)
    assert event.thief == 1 and (event.swords, event.shurikens) == (2, 0)
    assert line(state, 1).sword == 5 and line(state, 0).sword == -5


def test_three_swords_one_shuriken_the_sword_is_stolen() -> None:
    state = _sword_round(("X", "X", "X", "*", "K1", "B1", "G1", "G1", "O1"))
    assert tallied(state).thief == 1
    assert line(state, 1).sword == 5 and line(state, 0).sword == -5


def test_two_swords_two_shurikens_the_grabber_cuts_itself() -> None:
    state = _sword_round(("X", "X", "*", "*", "K1", "B1", "G1", "G1", "O1"))
    assert tallied(state).thief is None
    assert line(state, 1).sword == -3 and line(state, 0).sword == 0


def test_the_holder_defends_its_sword_for_no_vp() -> None:
    state = _sword_round(
        ("X", "X", "K1", "K1", "B1", "B1", "G1", "G1", "O1"), thief_grabs=False, holder_grabs=True
    )
    assert tallied(state).thief is None and line(state, 0).sword == 0


def test_the_holder_cuts_itself_too_when_swords_do_not_outnumber_shurikens() -> None:
    state = _sword_round(
        ("X", "*", "K1", "K1", "B1", "B1", "G1", "G1", "O1"), thief_grabs=False, holder_grabs=True
    )
    assert line(state, 0).sword == -3


def test_the_shuriken_holder_scores_one_vp_per_shuriken() -> None:
    state = position((5, 5, 5), roll("*", "*", "X", "K1", "B1", "G1", "G1", "O1", "O1"), sword=0, shuriken=2)
    state = tick(state, grab(BLUE), WAIT, WAIT)
    state = tick(state, Call(6), WAIT, WAIT)
    assert line(state, 2).shuriken == 2 and state.scores[2] == 7


# -- the seed's tally example --------------------------------------------------------------------

# Orange 1, pink 3 with one pink smoke, purple 3; 5 swords, no shuriken. 7 ninja symbols in all.
TALLY_DICE = ("O1", "K3", "~K", "U3", "X", "X", "X", "X", "X")


def test_tally_example_full_handed_call_thief_plus_four_holder_minus_two() -> None:
    """The seed's example played as a real round through the engine (``initial_state`` with seed 7,
    the example's VP and its dice as the round's roll, then checked ``apply`` tick by tick): the
    thief (seat 1, 5 VP) steals the sword from its holder (seat 0, 13 VP), grabs pink with its other
    hand and then, both hands full, calls the right number; the holder grabs orange and purple.
    The tally is the seed's: +4 for the thief, -2 for the old holder."""
    state = position((13, 5, 4), roll(*TALLY_DICE), sword=0, shuriken=2, seed=7)
    state = tick(state, grab(ORANGE), grab(SWORD), WAIT)
    state = tick(state, grab(PURPLE), grab(PINK), WAIT)
    assert state.held_by(1) == (PINK, SWORD) and state.held_by(0) == (ORANGE, PURPLE)
    assert GAME.phase(state) is Phase.GRAB  # nobody has called: the round goes on
    assert GAME.legal_actions(state, 1) == (WAIT, *CALLS)  # full hands: no grab, but every call
    state = tick(state, WAIT, Call(7), WAIT)
    (ticked,) = [e for e in GAME.events(state) if isinstance(e, TickResolved)]
    assert ticked.calls == (CallResult(1, 7, True),) and ticked.call_winner == 1
    event = tallied(state)
    assert event.ended_by is RoundEnd.CALL and event.thief == 1 and event.ninja_total == 7
    assert event.lines[0].seat == 1  # the thief tallies first
    thief, holder = line(state, 1), line(state, 0)
    assert (thief.sword, thief.ninjas, thief.call) == (6, -3, 1)  # Stole sword (6) + Pink (-3) + Called (+1)
    assert thief.after - thief.before == 4
    assert (holder.sword, holder.ninjas, holder.call) == (-6, 1 + 3, 0)  # Lost sword (-6) + Orange + Purple
    assert holder.after - holder.before == -2
    assert state.scores == (11, 9, 4) and state.sword_holder == 0


def test_tally_example_by_the_tally_function_alone() -> None:
    """The same example given straight to ``tally`` (the position after the grabs, the call result)."""
    state = position((13, 5, 4), roll(*TALLY_DICE), sword=0, shuriken=2)
    holders = {SWORD: 1, PINK: 1, ORANGE: 0, PURPLE: 0}
    state = dataclasses.replace(state, holders=tuple(holders.get(c) for c in COMPONENTS))
    thief, lines, scores = tally(state, (CallResult(1, 7, True),), 1)
    by_seat = {x.seat: x for x in lines}
    assert thief == 1 and lines[0].seat == 1  # the thief tallies first
    assert (by_seat[1].sword, by_seat[1].ninjas, by_seat[1].call) == (6, -3, 1)
    assert scores[1] - 5 == 6 - 3 + 1 == 4
    assert (by_seat[0].sword, by_seat[0].ninjas) == (-6, 1 + 3)
    assert scores[0] - 13 == -6 + 1 + 3 == -2


def test_tally_example_played_tick_by_tick() -> None:
    """The same dice, the thief calling with a free hand: it steals (tick 1) and calls (tick 2)
    while the holder grabs purple. The holder's -2 is the seed's; the thief, without pink, +6 +1 = +7."""
    state = position((13, 5, 4), roll(*TALLY_DICE), sword=0, shuriken=2)
    state = tick(state, grab(ORANGE), grab(SWORD), WAIT)
    assert Call(7) in GAME.legal_actions(state, 1)
    state = tick(state, grab(PURPLE), Call(7), WAIT)
    event = tallied(state)
    assert event.ended_by is RoundEnd.CALL and event.thief == 1 and event.ninja_total == 7
    assert event.lines[0].seat == 1
    assert state.scores[:2] == (13 - 2, 5 + 7)


# -- calling -------------------------------------------------------------------------------------

SIMPLE = ("O1", "K1", "B1", "G1", "U1", "X", "X", "X", "X")  # 5 ninjas, one of each colour; no shuriken


def test_no_call_before_a_capture_and_calls_with_full_hands() -> None:
    state = position((3, 3), roll(*SIMPLE))
    assert not any(isinstance(a, Call) for a in GAME.legal_actions(state, 0))
    with pytest.raises(IllegalActionError):
        tick(state, Call(5), WAIT)
    state = tick(state, grab(ORANGE), WAIT)
    assert Call(0) in GAME.legal_actions(state, 0) and Call(27) in GAME.legal_actions(state, 1)
    state = tick(state, grab(PINK), WAIT)
    # Both hands full: no more grabs, but calling is voice, not hands.
    assert GAME.legal_actions(state, 0) == (WAIT, *CALLS)
    assert GAME.legal_actions(state, 1) == (WAIT, *(GRABS[c] for c in (BLUE, GREEN, PURPLE, SWORD)), *CALLS)
    with pytest.raises(IllegalActionError):
        tick(state, grab(BLUE), WAIT)
    state = tick(state, Call(5), WAIT)
    assert tallied(state).ended_by is RoundEnd.CALL
    assert line(state, 0).call == 1 and state.scores[0] == 3 + 1 + 1 + 1
    assert len(CALLS) == 28


def test_apply_and_apply_legal_agree_on_listed_actions_and_equal_copies() -> None:
    state = tick(position((3, 3), roll(*SIMPLE)), grab(ORANGE), WAIT)
    listed = {0: CALLS[5], 1: GRABS[PINK]}  # the very objects legal_actions lists (what the driver applies)
    copies = {0: Call(5), 1: Grab(PINK)}  # equal, not identical
    assert GAME.apply(state, listed) == GAME.apply(state, copies) == GAME.apply_legal(state, listed)
    full = tick(state, grab(PINK), WAIT)  # seat 0's hands are full: it may still call
    listed = {0: CALLS[5], 1: GRABS[BLUE]}
    assert (
        GAME.apply(full, listed)
        == GAME.apply(full, {0: Call(5), 1: Grab(BLUE)})
        == GAME.apply_legal(full, listed)
    )
    for bad in ({0: GRABS[ORANGE], 1: WAIT}, {0: WAIT}, {0: WAIT, 1: WAIT, 2: WAIT}):
        with pytest.raises(IllegalActionError):
            GAME.apply(state, bad)
    for bad in ({0: GRABS[BLUE], 1: WAIT}, {0: WAIT, 1: GRABS[PINK]}):  # full hands; a held component
        with pytest.raises(IllegalActionError):
            GAME.apply(full, bad)


def test_a_call_ends_the_round_but_that_ticks_grabs_resolve() -> None:
    state = position((3, 3, 3), roll(*SIMPLE), shuriken=2)
    state = tick(state, grab(ORANGE), WAIT, WAIT)
    state = tick(state, Call(5), grab(PINK), grab(BLUE))
    event = tallied(state)
    assert event.ended_by is RoundEnd.CALL
    assert (line(state, 1).ninjas, line(state, 2).ninjas) == (1, 1)
    assert line(state, 0).call == 1 and state.scores[0] == 3 + 1 + 1
    assert GAME.phase(state) is Phase.ROLL and state.round == 2


def test_a_wrong_call_costs_three_and_correct_callers_draw_for_the_point() -> None:
    winners = set()
    for seed in range(30):
        state = position((9, 9, 9, 9), roll(*SIMPLE), shuriken=3, seed=seed)
        state = tick(state, grab(ORANGE), WAIT, WAIT, WAIT)
        state = tick(state, Call(5), Call(5), Call(6), WAIT)
        (ticked,) = [e for e in GAME.events(state) if isinstance(e, TickResolved)]
        assert ticked.call_winner in (0, 1)
        winners.add(ticked.call_winner)
        assert line(state, 2).call == -3 and state.scores[2] == 6
        assert sorted((line(state, 0).call, line(state, 1).call)) == [0, 1]
    assert winners == {0, 1}


# -- ticks, contention, the end of the grab phase -------------------------------------------------


def test_a_contested_grab_goes_to_one_grabber_by_a_seeded_lottery() -> None:
    wins = {0: 0, 1: 0}
    for seed in range(200):
        state = position((3, 3, 3), roll(*SIMPLE), seed=seed)
        after = tick(state, grab(BLUE), grab(BLUE), WAIT)
        assert after == tick(state, grab(BLUE), grab(BLUE), WAIT)  # the lottery is seeded
        (event,) = GAME.events(after)
        (result,) = event.grabs
        assert result.grabbers == (0, 1) and after.holders[BLUE - 1] == result.winner
        loser = 1 - result.winner
        assert after.held_by(loser) == () and Grab(PINK) in GAME.legal_actions(after, loser)
        wins[result.winner] += 1
    assert 60 < wins[0] < 140


def test_no_player_holds_more_than_two_components() -> None:
    state = position((3, 3), roll(*SIMPLE))
    state = tick(state, grab(ORANGE), grab(PINK))
    state = tick(state, grab(BLUE), grab(GREEN))
    # Both hands full on both sides: no grab is possible, purple and the sword stay free.
    assert state.free() == (PURPLE, SWORD)
    assert GAME.legal_actions(state, 0) == GAME.legal_actions(state, 1) == (WAIT, *CALLS)
    with pytest.raises(IllegalActionError):
        tick(state, grab(PURPLE), WAIT)


def test_when_no_grab_is_possible_the_round_waits_for_a_call() -> None:
    """A round ends with a call: with every component held, the seats (all with full hands) may
    still call, and the round goes on until one does; nobody calling, the tick guard ends it."""
    state = position((3, 3, 3), roll(*SIMPLE), sword=0, shuriken=2)
    state = tick(state, grab(ORANGE), grab(PINK), grab(BLUE))
    state = tick(state, grab(GREEN), grab(PURPLE), grab(SWORD))
    assert state.free() == () and GAME.phase(state) is Phase.GRAB and state.tick == 2
    assert all(GAME.legal_actions(state, s) == (WAIT, *CALLS) for s in range(3))
    called = tick(tick(state, WAIT, WAIT, WAIT), WAIT, Call(5), WAIT)
    assert tallied(called).ended_by is RoundEnd.CALL and line(called, 1).call == 1
    for _ in range(MAX_TICKS - 2):
        state = tick(state, WAIT, WAIT, WAIT)
    assert tallied(state).ended_by is RoundEnd.TICK_LIMIT and state.round == 2
    assert all(x.call == 0 for x in tallied(state).lines)


def test_the_tick_guard_ends_a_round_without_a_call_after_six_ticks() -> None:
    state = position((3, 3), roll(*SIMPLE))
    for _ in range(MAX_TICKS - 1):
        state = tick(state, WAIT, WAIT)
        assert GAME.phase(state) is Phase.GRAB
    state = tick(state, WAIT, WAIT)
    assert tallied(state).ended_by is RoundEnd.TICK_LIMIT and state.round == 2


def test_sword_to_the_most_vp_shuriken_clockwise() -> None:
    state = position((3, 3, 3), roll(*SIMPLE), sword=0, shuriken=2)
    state = tick(state, WAIT, grab(PURPLE), WAIT)
    state = tick(state, WAIT, Call(5), WAIT)
    event = tallied(state)
    assert state.scores == (3, 5, 3) and event.sword_draw == ()
    assert state.sword_holder == event.sword_holder == 1
    assert state.shuriken_holder == event.shuriken_holder == 0


def test_sword_tie_is_a_seeded_draw_among_the_tied() -> None:
    seen = set()
    for seed in range(30):
        dice = roll("O1", "K1", "B1", "G1", "U1", "X", "X", "*", "*")
        state = position((3, 3, 3), dice, sword=0, shuriken=2, seed=seed)
        state = tick(state, WAIT, grab(PURPLE), WAIT)
        state = tick(state, WAIT, Call(5), WAIT)  # seat 1: +1 +1; seat 2, the roller: 2 shurikens
        assert state.scores == (3, 5, 5) and tallied(state).sword_draw == (1, 2)
        seen.add(state.sword_holder)
    assert seen == {1, 2}


# -- the end: 20 VP, the tie play-off, the floor -------------------------------------------------


def test_the_game_ends_as_soon_as_a_player_has_twenty() -> None:
    state = position((18, 10, 3), roll(*SIMPLE), sword=1, shuriken=2)
    state = tick(state, grab(ORANGE), WAIT, WAIT)
    state = tick(state, Call(5), WAIT, WAIT)
    assert GAME.is_terminal(state) and state.scores == (20, 10, 3)
    assert GAME.ranks(state) == (1, 2, 3) and GAME.termination(state) == "normal"
    assert tallied(state).game_over and GAME.to_move(state) == ()


def test_a_tie_at_the_top_is_played_off_among_the_tied() -> None:
    state = position((18, 18, 5), roll("O2", "K2", "X", "X", "X", "X", "X", "*", "G1"), sword=0, shuriken=2)
    state = tick(state, grab(ORANGE), grab(PINK), WAIT)
    state = tick(state, WAIT, WAIT, Call(5))
    assert state.scores == (20, 20, 5 + 1 + 1) and not GAME.is_terminal(state)
    event = tallied(state)
    assert event.contenders == (0, 1) and not event.game_over and event.sword_draw == (0, 1)
    assert state.shuriken_holder == 0  # the next contending seat clockwise from seat 2
    state = GAME.apply(state, {})  # the play-off round's roll: only the tied players take part
    assert GAME.to_move(state) == (0, 1) and GAME.legal_actions(state, 2) == ()
    assert GAME.observe(state, 2).playoff and not GAME.observe(state, 2).players[2].contending
    state = with_roll(state, roll(*SIMPLE))  # fix the dice: seat 1 grabs blue, seat 0 calls wrongly
    state = tick(state, WAIT, grab(BLUE))
    state = tick(state, Call(9), WAIT)
    assert GAME.is_terminal(state) and tallied(state).game_over
    assert state.scores == (17, 21, 7) and GAME.ranks(state) == (2, 1, 3)


def _playoff(scores=(20, 20, 19)) -> NinjaMasterState:
    state = position(scores, roll(*SIMPLE), sword=0, shuriken=1)
    return dataclasses.replace(state, contenders=(0, 1), depth=(1, 1, 0))


def test_the_play_off_ends_when_one_of_the_tied_leads() -> None:
    state = tick(_playoff(), grab(ORANGE), WAIT)
    state = tick(state, WAIT, Call(6))
    assert GAME.is_terminal(state) and state.scores == (21, 17, 19) and GAME.ranks(state) == (1, 2, 3)
    state = tick(_playoff(), WAIT, grab(ORANGE))
    state = tick(state, Call(9), WAIT)
    assert GAME.is_terminal(state) and state.scores == (17, 21, 19) and GAME.ranks(state) == (2, 1, 3)


def test_the_play_off_goes_on_while_tied_and_its_winner_ranks_first() -> None:
    state = tick(_playoff(), grab(ORANGE), grab(PINK))
    state = tick(state, Call(9), Call(8))
    assert not GAME.is_terminal(state) and state.scores == (18, 18, 19)  # still tied: another round
    assert state.contenders == (0, 1) and state.shuriken_holder == 0
    state = with_roll(GAME.apply(state, {}), roll(*SIMPLE))
    state = tick(state, grab(ORANGE), WAIT)
    state = tick(state, WAIT, Call(9))
    # Seat 0 wins the play-off with 19 VP; seat 2, outside it, also has 19 but ranks behind both.
    assert GAME.is_terminal(state) and state.scores == (19, 15, 19)
    assert GAME.ranks(state) == (1, 2, 3) and GAME.termination(state) == "normal"


def test_no_result_is_below_zero() -> None:
    state = position((2, 1, 3), roll("K3", "~K", "O1", "X", "*", "X", "*", "X", "*"), sword=2, shuriken=2)
    state = tick(state, grab(PINK), grab(ORANGE), WAIT)
    state = tick(state, WAIT, Call(20), WAIT)
    assert line(state, 0).ninjas == -3 and line(state, 1).call == -3
    assert state.scores[:2] == (0, 0)
    # A holder at 3 VP loses 1 to the thief and holds pink (-3): 3 - 1 - 3 is floored at 0.
    dice = roll("X", "X", "X", "K3", "~K", "O1", "B1", "B1", "G1")
    state = position((3, 0, 0), dice, sword=0, shuriken=2)
    state = tick(state, grab(PINK), grab(SWORD), WAIT)
    state = tick(state, WAIT, WAIT, Call(7))
    assert (line(state, 0).sword, line(state, 0).ninjas, line(state, 0).after) == (-1, -3, 0)
    assert state.scores == (0, 1, 1)


# -- observation, secrecy, render ----------------------------------------------------------------


def test_everything_is_public_and_the_seed_is_not_observed() -> None:
    state = GAME.apply(GAME.initial_state(3, 12345), {})
    obs = GAME.observe(state, 1)
    assert obs.dice == state.dice and len(obs.components) == 6
    assert GAME.hidden_from(state, 1) == frozenset()
    assert "12345" not in repr(obs) and "12345" not in repr(GAME.events(state))
    assert "round 1" in GAME.render(state) and "\n" not in GAME.render(state)


def test_registered_with_its_bots() -> None:
    from arena.bots import builtin_bots

    assert get_game("ninja-master") is GAME
    assert set(builtin_bots("ninja-master")) == set(BOTS) >= {"random", "master"}


# -- properties over thousands of seeded games ---------------------------------------------------


def _policy(rng: random.Random, tame: bool, state: NinjaMasterState, seat: int):
    legal = GAME.legal_actions(state, seat)
    if not tame:
        return rng.choice(legal)
    # "Tame" random play: calls rarely (so the games reach 20 VP and play-offs), right half the time.
    if rng.random() < 0.15 and Call(0) in legal:
        return Call(summarize(state.dice).ninja_total) if rng.random() < 0.5 else rng.choice(CALLS)
    return rng.choice([a for a in legal if not isinstance(a, Call)])


def check_step(before: NinjaMasterState | None, state: NinjaMasterState) -> None:
    """Ninja Master's invariants, checked by the conformance suite at every step of its playouts:
    scores never go below zero, nobody holds more than two components, only free components are
    grabbed (each by one of its grabbers), and a round ends with a call or by the tick guard."""
    assert all(score >= 0 for score in state.scores)
    assert all(len(state.held_by(s)) <= HANDS for s in range(len(state.scores)))
    if before is None:
        return
    for event in state.last_events:
        if isinstance(event, TickResolved):
            for result in event.grabs:
                assert before.holders[result.component - 1] is None
                assert result.winner in result.grabbers
            assert len({g.winner for g in event.grabs}) == len(event.grabs)
        if isinstance(event, RoundTallied):
            assert event.ended_by in (RoundEnd.CALL, RoundEnd.TICK_LIMIT)
            assert (event.ended_by is RoundEnd.CALL) == any(x.call for x in event.lines)
            assert event.ended_by is RoundEnd.CALL or before.tick + 1 == MAX_TICKS


def check_end(state: NinjaMasterState) -> None:
    assert min(GAME.ranks(state)) == 1


def test_tame_play_ends_by_the_rules_with_play_offs() -> None:
    """With play that calls rarely, games reach 20 VP (mostly without the round guard) and tie
    play-offs happen: the end of the game is exercised, not only its first rounds."""
    endings: Counter[str] = Counter()
    playoffs = 0
    for game_no in range(300):
        rng = random.Random(game_no)
        state = GAME.initial_state(2 + game_no % 4, game_no)
        while not GAME.is_terminal(state):
            state = GAME.apply_legal(state, {s: _policy(rng, True, state, s) for s in GAME.to_move(state)})
        endings[GAME.termination(state)] += 1
        playoffs += state.playoff
    assert endings[Termination.NORMAL] > 0.45 * 300 and playoffs > 0, (endings, playoffs)


def test_replays_reproduce_exactly() -> None:
    for seed in range(20):
        rng = random.Random(seed)
        state = GAME.initial_state(4, seed)
        record, trajectory = [], [state]
        while not GAME.is_terminal(state):
            actions = {s: _policy(rng, True, state, s) for s in GAME.to_move(state)}
            record.append(actions)
            state = GAME.apply(state, actions)
            trajectory.append(state)
        replayed = GAME.initial_state(4, seed)
        for actions, expected in zip(record, trajectory[1:], strict=True):
            replayed = GAME.apply(replayed, actions)
            assert replayed == expected and GAME.events(replayed) == GAME.events(expected)


# -- the master bot -------------------------------------------------------------------------------


def test_master_beats_random_by_a_clear_margin() -> None:
    games, wins = 60, 0
    for g in range(games):
        seat = g % 3
        bots = [RandomBot(), RandomBot(), RandomBot()]
        bots[seat] = MasterBot()
        state = play_bots(GAME, bots, seed=1000 + g)
        ranks = GAME.ranks(state)
        wins += ranks[seat] == 1 and ranks.count(1) == 1
    assert wins >= 0.8 * games, f"master won {wins} of {games}"


def test_master_calls_with_full_hands() -> None:
    state = position((3, 3, 3), roll(*SIMPLE), sword=1, shuriken=2)
    state = tick(state, grab(ORANGE), WAIT, WAIT)
    state = tick(state, grab(PINK), WAIT, WAIT)
    legal = GAME.legal_actions(state, 0)
    assert legal == (WAIT, *CALLS)
    assert MasterBot().choose(GAME.observe(state, 0), legal, None) == Call(5)


def test_master_only_ever_calls_the_right_number() -> None:
    for g in range(20):
        bots = [MasterBot(), MasterBot(), MasterBot(), RandomBot()]
        state = GAME.initial_state(4, g)
        while not GAME.is_terminal(state):
            actions = {}
            for seat in GAME.to_move(state):
                legal = GAME.legal_actions(state, seat)
                choice = bots[seat].choose(GAME.observe(state, seat), legal, None)
                actions[seat] = legal[choice] if isinstance(choice, int) else choice
                if seat < 3 and isinstance(actions[seat], Call):
                    assert actions[seat].number == summarize(state.dice).ninja_total
            state = GAME.apply(state, actions)
