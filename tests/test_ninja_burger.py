"""Ninja Burger rules, one test per step of the seed text, then properties over many seeded games.

Scenario tests build a table at the staff meeting of round 1 (after the ninja choice), put the cards
they need in place, and play a short line. With the fortune deck emptied nobody draws at the meeting,
so the only fortune cards in play are the ones a test deals.
"""

from __future__ import annotations

import dataclasses
import random
from collections import Counter

import pytest

from arena.bots.common import RandomBot
from arena.games import get_game
from arena.games.base import IllegalActionError
from arena.games.ninja_burger.bots import BOTS
from arena.games.ninja_burger.bots.ninja import NinjaBot, cdf
from arena.games.ninja_burger.engine import (
    GAME,
    ROUND_CAP,
    Ability,
    Attend,
    Check,
    CheckRolled,
    ChooseNinja,
    ChooseSkill,
    ChooseSkills,
    Decline,
    Effect,
    ForceTrade,
    FortuneCard,
    FortuneKind,
    FortunePlayed,
    MeetingHeld,
    MissionCard,
    MissionEnded,
    MissionRevealed,
    MissionsTraded,
    NinjaBurgerState,
    NinjaCard,
    NinjasChosen,
    Phase,
    PlayFortune,
    RoundStarted,
    Skill,
    check_passes,
    check_total,
    fortune_cards,
    mission_cards,
    ninja_cards,
    roll_3d6,
)
from tests.conftest import play_bots, random_playout, walk

# -- builders -------------------------------------------------------------------------------------


def ninja(
    value: int = 10, skill: Skill = Skill.STEALTH, other: int = 8, ability=None, ability_skill=None, id=101
):
    """Returns a test ninja with one listed skill."""
    return NinjaCard(id, f"Test Ninja {id}", (skill,), (value,), other, ability, ability_skill)


def mission(
    *checks: tuple,
    reward: tuple[int, int] = (2, 0),
    penalty: tuple[int, int] = (1, 0),
    errand: bool = False,
    id: int = 901,
) -> MissionCard:
    """Returns a test mission; each check is (skill or tuple of skills, modifier)."""
    built = tuple(Check(s if isinstance(s, tuple) else (s,), m) for s, m in checks)
    return MissionCard(id, f"Test Mission {id}", errand, built, *reward, *penalty)


def fortune(
    effect: Effect, value: int = 0, skill=None, price: int = 0, single_use=False, immediate=True, id=801
):
    kind = {
        Effect.ITEM: FortuneKind.NINJA_STUFF,
        Effect.PENALTY: FortuneKind.INTERESTING_TIMES,
        Effect.EXTRA_CHECK: FortuneKind.INTERESTING_TIMES,
        Effect.FINE: FortuneKind.INTERESTING_TIMES,
        Effect.REROLL: FortuneKind.GOOD_FORTUNE,
        Effect.BONUS: FortuneKind.GOOD_FORTUNE,
    }[effect]
    return FortuneCard(id, f"Test Card {id}", kind, effect, skill, value, price, single_use, immediate)


EASY = mission((Skill.STEALTH, 20), reward=(0, 0), penalty=(0, 0), id=950)  # always passes


def at_meeting(n: int = 2, seed: int = 1, **fields) -> NinjaBurgerState:
    """Returns round 1 at the staff meeting with ``fields`` replaced; the fortune deck is empty."""
    state = GAME.initial_state(n, seed)
    state = GAME.apply(state, {s: GAME.legal_actions(state, s)[0] for s in range(n)})
    assert state.phase is Phase.MEETING
    fields.setdefault("fortune_deck", ())
    fields.setdefault("hands", ((),) * n)
    fields.setdefault("missions", (EASY,) * n)
    return dataclasses.replace(state, **fields)


def meet(state: NinjaBurgerState, *attend: bool) -> NinjaBurgerState:
    """Returns the state after the meeting decisions (nobody attends by default)."""
    attend = attend or (False,) * state.num_players
    return GAME.apply(state, {s: Attend(a) for s, a in enumerate(attend)})


def salary_paid(state: NinjaBurgerState, seat: int) -> int:
    """Returns the salary paid to ``seat`` by a round that started in the last step."""
    return sum(e.salaries[seat] for e in events_of(state, RoundStarted))


def events_of(state: NinjaBurgerState, kind: type, seat: int | None = None) -> list:
    return [e for e in state.last_events if isinstance(e, kind) and (seat is None or e.seat == seat)]


# -- Step 1: the deal and the choice of ninja -----------------------------------------------------


@pytest.mark.parametrize("n", range(2, 7))
def test_deal_three_ninjas_three_fortune_cards_six_honor(n: int) -> None:
    state = GAME.initial_state(n, 7)
    assert all(len(options) == 3 for options in state.ninja_options)
    assert len({c.id for o in state.ninja_options for c in o}) == 3 * n
    assert len(state.ninja_deck) == len(ninja_cards()) - 3 * n
    assert all(len(hand) == 3 for hand in state.hands)
    assert state.honor == (6,) * n and state.money == (0,) * n
    assert GAME.to_move(state) == tuple(range(n))  # a simultaneous choice
    for seat in range(n):
        assert GAME.legal_actions(state, seat) == tuple(
            ChooseNinja(c.id) for c in sorted(state.ninja_options[seat], key=lambda c: c.id)
        )
        assert all(
            o not in GAME.observe(state, seat).ninja_options for o in state.ninja_options[(seat + 1) % n]
        )


def test_each_player_keeps_one_ninja_and_discards_the_others() -> None:
    state = GAME.initial_state(3, 5)
    picks = {s: GAME.legal_actions(state, s)[-1] for s in range(3)}
    after = GAME.apply(state, picks)
    assert tuple(c.id for c in after.ninjas) == tuple(picks[s].ninja for s in range(3))
    assert len(after.ninja_discard) == 6 and not any(after.ninja_options)
    assert events_of(after, NinjasChosen)[0].ninjas == after.ninjas
    assert after.phase is Phase.MEETING and after.round == 1
    assert all(p.ninja == c.id for p, c in zip(GAME.observe(after, 0).players, after.ninjas, strict=True))


@pytest.mark.parametrize("seed", range(5))
def test_six_players_are_dealt_three_distinct_ninjas_each_and_keep_one(seed: int) -> None:
    """Step 1, "Deal each player three ninja cards", at the largest table too: 6 x 3 = 18 cards."""
    state = GAME.initial_state(6, seed)
    dealt = [c.id for options in state.ninja_options for c in options]
    assert all(len(options) == 3 for options in state.ninja_options) and len(set(dealt)) == 18
    picks = {s: GAME.legal_actions(state, s)[seed % 3] for s in range(6)}
    after = GAME.apply(state, picks)
    assert [c.id for c in after.ninjas] == [picks[s].ninja for s in range(6)]
    assert all(after.ninjas[s] in state.ninja_options[s] for s in range(6))
    assert len(after.ninja_discard) == 12 and not set(after.ninja_discard) & set(after.ninjas)


# -- Step 2: salary and the $50 for the one player with the most honor ------------------------------


def _first_round(n: int, honor: tuple[int, ...], ninjas=None) -> NinjaBurgerState:
    state = dataclasses.replace(GAME.initial_state(n, 3), honor=honor)
    ninjas = ninjas or tuple(ninja(id=120 + s) for s in range(n))
    state = dataclasses.replace(state, ninja_options=tuple((c,) for c in ninjas))
    return GAME.apply(state, {s: GAME.legal_actions(state, s)[0] for s in range(n)})


def test_salary_and_the_leader_bonus() -> None:
    state = _first_round(3, (7, 6, 6))
    assert state.money == (150, 100, 100)
    assert events_of(state, RoundStarted)[0] == RoundStarted(1, 0, (150, 100, 100))


def test_no_leader_bonus_on_a_tie_for_the_most_honor() -> None:
    state = _first_round(3, (7, 7, 6))
    assert state.money == (100, 100, 100)
    assert events_of(state, RoundStarted)[0].leader is None


def test_salary_ability_pays_fifty_more() -> None:
    rich = ninja(ability=Ability.SALARY, id=111)
    state = _first_round(2, (6, 6), ninjas=(rich, ninja(id=112)))
    assert state.money == (150, 100)


# -- Steps 3 and 4: mission cards, the meeting, the Errand trade -----------------------------------


def test_a_mission_card_each_and_a_simultaneous_meeting_choice() -> None:
    state = _first_round(4, (6, 6, 6, 6))
    assert all(m is not None for m in state.missions)
    assert len(state.mission_deck) == 56 - 4
    assert GAME.to_move(state) == (0, 1, 2, 3)
    assert GAME.legal_actions(state, 2) == (Attend(False), Attend(True))
    obs = GAME.observe(state, 0)
    assert obs.mission == state.missions[0]
    assert all(p.mission is None for p in obs.players)  # no mission is revealed yet


def test_attendees_draw_one_fortune_card() -> None:
    state = _first_round(3, (6, 6, 6))
    before = [len(h) for h in state.hands]
    after = meet(state, True, False, True)
    assert events_of(after, MeetingHeld)[0].attendees == (0, 2)
    # cards may have been played since, so count draws through conservation of the deck
    assert len(state.fortune_deck) - len(after.fortune_deck) == 2
    assert sum(before) == 9


BOB, SUZY = 0, 1
ERRAND = mission((Skill.STEALTH, 20), reward=(0, 50), penalty=(0, 0), errand=True, id=960)
DELIVERY = mission((Skill.STEALTH, 20), reward=(1, 0), penalty=(1, 0), id=961)


def test_bob_forces_suzy_to_take_his_errand() -> None:
    """The seed's example: Bob has 5 honor and an Errand, Suzy 4 and a different mission."""
    state = at_meeting(2, honor=(5, 4), missions=(ERRAND, DELIVERY))
    state = meet(state, True, True)
    assert state.phase is Phase.TRADE
    assert GAME.to_move(state) == (BOB,)  # Suzy is never asked: she cannot refuse
    assert GAME.legal_actions(state, BOB) == (ForceTrade(SUZY), Decline())
    state = GAME.apply(state, {BOB: ForceTrade(SUZY)})
    assert events_of(state, MissionsTraded) == [MissionsTraded(BOB, SUZY)]
    revealed = {e.seat: e.mission for e in events_of(state, MissionRevealed)}
    assert revealed == {BOB: DELIVERY.id, SUZY: ERRAND.id}


def test_bob_may_keep_his_errand() -> None:
    state = meet(at_meeting(2, honor=(5, 4), missions=(ERRAND, DELIVERY)), True, True)
    state = GAME.apply(state, {BOB: Decline()})
    assert {e.seat: e.mission for e in events_of(state, MissionRevealed)} == {
        BOB: ERRAND.id,
        SUZY: DELIVERY.id,
    }


@pytest.mark.parametrize(
    ("honor", "attend"),
    [((5, 4), (True, False)), ((5, 4), (False, True)), ((4, 4), (True, True)), ((4, 5), (True, True))],
)
def test_no_trade_unless_both_attend_and_the_target_has_less_honor(honor, attend) -> None:
    state = meet(at_meeting(2, honor=honor, missions=(ERRAND, DELIVERY)), *attend)
    if state.phase is Phase.TRADE:  # an attendee above another is asked, Errand or not (that is hidden)
        (seat,) = GAME.to_move(state)
        assert seat == SUZY and GAME.legal_actions(state, seat) == (Decline(),)
        state = GAME.apply(state, {seat: Decline()})
    assert not events_of(state, MissionsTraded) and state.phase is not Phase.TRADE
    # each mission revealed so far is its holder's own (with equal honor the seeded roll-off decides
    # who goes first, and the Delivery's checks may wait for a fortune window)
    revealed = {e.seat: e.mission for e in events_of(state, MissionRevealed)}
    assert revealed and revealed.items() <= {BOB: ERRAND.id, SUZY: DELIVERY.id}.items()


def test_every_attendee_above_another_attendee_is_asked_errand_or_not() -> None:
    """Who is asked in the trades is public (attendance, honor): holding an Errand, which is hidden,
    decides only whether there is anything to force."""
    state = at_meeting(3, honor=(5, 7, 3), missions=(DELIVERY, ERRAND, EASY))
    state = meet(state, True, False, True)
    assert GAME.to_move(state) == (0,)  # seat 1 did not attend; seat 2 has nobody below it
    assert GAME.legal_actions(state, 0) == (Decline(),)
    state = GAME.apply(state, {0: Decline()})
    assert state.phase is not Phase.TRADE and not events_of(state, MissionsTraded)


def test_errand_holders_act_from_the_highest_honor_down() -> None:
    errand2 = dataclasses.replace(ERRAND, id=962)
    state = at_meeting(3, honor=(5, 7, 3), missions=(ERRAND, errand2, DELIVERY))
    state = meet(state, True, True, True)
    assert GAME.to_move(state) == (1,)  # 7 honor acts first, and may choose among 0 and 2
    assert GAME.legal_actions(state, 1) == (ForceTrade(0), ForceTrade(2), Decline())
    state = GAME.apply(state, {1: ForceTrade(0)})
    assert GAME.to_move(state) == (0,)  # seat 0 now holds two... one Errand: it may pass it to seat 2
    assert GAME.legal_actions(state, 0) == (ForceTrade(2), Decline())


# -- Step 5: mission order and skill checks -------------------------------------------------------


def test_missions_go_from_the_most_honor_down_with_a_seeded_roll_off() -> None:
    state = meet(at_meeting(4, honor=(6, 9, 7, 6)))
    order = events_of(state, MeetingHeld)[0].order
    assert order[:2] == (1, 2) and set(order[2:]) == {0, 3}
    firsts = {
        events_of(meet(at_meeting(4, seed=s, honor=(6,) * 4)), MeetingHeld)[0].order[0] for s in range(40)
    }
    assert firsts == {0, 1, 2, 3}  # ties are broken by the seeded roll-off, not by seat


def _single_check(seed: int, value: int, modifier: int = 0, items=(), ability=None, other=8):
    """Seat 0 (7 honor, first to go) attempts one Stealth check with ``modifier``."""
    hero = ninja(value, ability=ability, ability_skill=Skill.STEALTH if ability else None, other=other)
    test = mission((Skill.STEALTH, modifier), reward=(2, 50), penalty=(1, 30))
    state = at_meeting(2, seed=seed, honor=(7, 6), ninjas=(hero, ninja(id=102)), missions=(test, EASY))
    return meet(dataclasses.replace(state, items=(tuple(items), ())))


@pytest.mark.parametrize(("delta", "passed"), [(0, True), (1, True), (-1, False)])
def test_a_roll_passes_at_or_below_the_skill_and_fails_above(delta: int, passed: bool) -> None:
    for seed in range(5):
        dice = roll_3d6(seed, 1, 0, 0)
        state = _single_check(seed, value=sum(dice) + delta)  # the total is the dice: skill - total = delta
        (roll,) = events_of(state, CheckRolled, 0)
        assert roll.dice == dice and roll.total == sum(dice) and roll.passed is passed
        assert events_of(state, MissionEnded, 0)[0].success is passed


@pytest.mark.parametrize(("delta", "passed"), [(0, True), (1, True), (-1, False)])
def test_modifiers_and_item_bonuses_are_added_to_the_roll(delta: int, passed: bool) -> None:
    boots = fortune(Effect.ITEM, value=3, skill=Skill.STEALTH, price=100, immediate=False, id=820)
    seed = 11
    dice = roll_3d6(seed, 1, 0, 0)
    total = sum(dice) + 2 - 3  # a -2 check (harder) and +3 boots
    state = _single_check(seed, value=total + delta, modifier=-2, items=(boots,))
    (roll,) = events_of(state, CheckRolled, 0)
    assert roll.total == total == check_total(dice, -2, 3) and roll.passed is passed
    assert check_passes(dice, -2, 3, total + delta) is passed


def test_an_unlisted_skill_uses_other_stuff() -> None:
    assert ninja(15, Skill.STEALTH, other=7).skill(Skill.DRIVING) == 7
    assert ninja(15, Skill.STEALTH, other=7).skill(Skill.STEALTH) == 15


def test_a_choice_check_asks_for_the_skill_right_before_its_roll() -> None:
    choice = mission(
        ((Skill.STEALTH, Skill.DRIVING), 20), (Skill.ANIMALS, 20), ((Skill.SWIMMING, Skill.CLIMBING), 20)
    )
    state = meet(at_meeting(2, honor=(7, 6), missions=(choice, EASY)))
    assert state.phase is Phase.CHOOSE_SKILL and GAME.to_move(state) == (0,)
    assert GAME.legal_actions(state, 0) == (ChooseSkill(Skill.STEALTH), ChooseSkill(Skill.DRIVING))
    assert not events_of(state, CheckRolled) and GAME.observe(state, 1).plan == ()
    state = GAME.apply(state, {0: ChooseSkill(Skill.DRIVING)})
    rolls = events_of(state, CheckRolled, 0)
    assert [r.skill for r in rolls] == [Skill.DRIVING, Skill.ANIMALS]  # one-skill checks need no choice
    assert state.phase is Phase.CHOOSE_SKILL and state.check_index == 2
    assert GAME.legal_actions(state, 0) == (ChooseSkill(Skill.CLIMBING), ChooseSkill(Skill.SWIMMING))
    assert GAME.observe(state, 1).plan == (Skill.DRIVING, Skill.ANIMALS)
    state = GAME.apply(state, {0: ChooseSkill(Skill.CLIMBING)})
    assert [r.skill for r in events_of(state, CheckRolled, 0)] == [Skill.CLIMBING]
    assert events_of(state, MissionEnded, 0)[0].success


def test_the_skill_is_chosen_after_the_fortune_window() -> None:
    """Cards are played before the choice, so an item bought in the window can decide the skill."""
    trip = fortune(Effect.PENALTY, value=2, id=845)
    hook = fortune(Effect.ITEM, value=2, skill=Skill.CLIMBING, price=50, id=833)
    choice = mission(((Skill.STEALTH, Skill.CLIMBING), 0))
    state = _window(hands=((hook,), (trip,)), active_mission=choice)
    assert GAME.to_move(state) == (1,) and state.phase is Phase.WINDOW  # the opponent first
    state = GAME.apply(state, {1: PlayFortune(845)})
    assert GAME.to_move(state) == (0,) and state.phase is Phase.WINDOW  # then the active player
    state = GAME.apply(state, {0: PlayFortune(833)})
    assert state.phase is Phase.CHOOSE_SKILL and not events_of(state, CheckRolled)
    state = GAME.apply(state, {0: ChooseSkill(Skill.CLIMBING)})
    (roll,) = events_of(state, CheckRolled, 0)
    assert roll.skill is Skill.CLIMBING and roll.total == sum(roll.dice) + 2 - 2  # penalty, then hook


def test_a_reroll_keeps_the_chosen_skill() -> None:
    again = fortune(Effect.REROLL, id=852)
    choice = mission(((Skill.STEALTH, Skill.CLIMBING), -30))  # the roll always fails
    state = _window(hands=((again,), ()), active_mission=choice)
    state = GAME.apply(state, {0: Decline()})  # its window: a reroll card cannot be played there
    state = GAME.apply(state, {0: ChooseSkill(Skill.CLIMBING)})
    assert state.phase is Phase.REROLL
    state = GAME.apply(state, {0: PlayFortune(852)})
    assert [r.skill for r in events_of(state, CheckRolled, 0)] == [Skill.CLIMBING]


def test_the_retired_per_mission_choice_is_never_legal() -> None:
    choice = mission(((Skill.STEALTH, Skill.DRIVING), 20))
    state = meet(at_meeting(2, honor=(7, 6), missions=(choice, EASY)))
    with pytest.raises(IllegalActionError):
        GAME.apply(state, {0: ChooseSkills((Skill.STEALTH,))})


def test_a_failed_check_skips_the_remaining_checks() -> None:
    hopeless = mission((Skill.STEALTH, -30), (Skill.STEALTH, 20))
    state = meet(at_meeting(2, honor=(7, 6), missions=(hopeless, EASY)))
    assert [r.check for r in events_of(state, CheckRolled, 0)] == [0]


# -- Step 7: rewards and penalties ---------------------------------------------------------------


def test_success_gives_the_reward() -> None:
    dice = roll_3d6(2, 1, 0, 0)
    state = _single_check(2, value=sum(dice))
    assert events_of(state, MissionEnded, 0) == [MissionEnded(0, 901, True, 2, 50)]
    assert state.honor[0] == 9


def test_failure_takes_the_penalty() -> None:
    dice = roll_3d6(2, 1, 0, 0)
    state = _single_check(2, value=sum(dice) - 1)
    assert events_of(state, MissionEnded, 0) == [MissionEnded(0, 901, False, -1, -30)]
    assert state.honor[0] == 6


def test_money_and_honor_never_go_below_zero() -> None:
    broke = mission((Skill.STEALTH, -30), penalty=(3, 500))
    state = at_meeting(2, honor=(2, 1), money=(120, 0), missions=(broke, EASY))
    state = meet(state)
    assert events_of(state, MissionEnded, 0) == [MissionEnded(0, 901, False, -2, -120)]
    assert state.money[0] == 0 and state.honor[0] == 0


# -- Step 6: fortune cards -----------------------------------------------------------------------


HARD = mission((Skill.STEALTH, 0), (Skill.CLIMBING, 0), reward=(2, 0), penalty=(1, 0))


def _window(seed=4, hands=((), ()), money=(100, 100), active_mission=HARD, value=10):
    hero = ninja(value, id=103)
    state = at_meeting(
        2,
        seed=seed,
        honor=(7, 6),
        ninjas=(hero, ninja(id=104)),
        missions=(active_mission, EASY),
        hands=hands,
        money=money,
    )
    return meet(state)


def test_ninja_stuff_is_bought_with_money_and_helps_checks_in_its_skill() -> None:
    hook = fortune(Effect.ITEM, value=2, skill=Skill.STEALTH, price=80, immediate=False, id=830)
    state = _window(hands=((hook,), ()))
    assert state.phase is Phase.WINDOW and GAME.to_move(state) == (0,)
    assert GAME.legal_actions(state, 0) == (PlayFortune(830), Decline())
    state = GAME.apply(state, {0: PlayFortune(830)})
    assert events_of(state, FortunePlayed) == [FortunePlayed(0, 830, 0)]
    roll = events_of(state, CheckRolled, 0)[0]
    assert roll.total == sum(roll.dice) - 2
    assert hook in state.items[0] and state.money[0] == 100 - 80 + salary_paid(state, 0)


def test_ninja_stuff_cannot_be_bought_without_the_money() -> None:
    hook = fortune(Effect.ITEM, value=2, skill=Skill.STEALTH, price=180, id=831)
    state = _window(hands=((hook,), ()))
    assert GAME.to_move(state) == (0,) and GAME.legal_actions(state, 0) == (Decline(),)  # asked: a hand
    assert hook in state.hands[0]


def test_a_single_use_item_is_spent_on_its_first_check() -> None:
    bombs = fortune(Effect.ITEM, value=4, skill=Skill.STEALTH, price=50, single_use=True, id=832)
    state = GAME.apply(_window(hands=((bombs,), ()), value=30), {0: PlayFortune(832)})
    assert bombs not in state.items[0] and bombs in state.fortune_discard


def test_interesting_times_penalty_is_played_by_an_opponent() -> None:
    trip = fortune(Effect.PENALTY, value=3, id=840)
    state = _window(hands=((), (trip,)))
    assert GAME.to_move(state) == (1,) and GAME.legal_actions(state, 1) == (PlayFortune(840), Decline())
    assert GAME.observe(state, 1).active == 0
    state = GAME.apply(state, {1: PlayFortune(840)})
    roll = events_of(state, CheckRolled, 0)[0]
    assert roll.total == sum(roll.dice) + 3


def test_interesting_times_adds_an_extra_check() -> None:
    dog = fortune(Effect.EXTRA_CHECK, value=-1, skill=Skill.ANIMALS, immediate=False, id=841)
    state = _window(
        hands=((), (dog,)), value=30
    )  # stealth 30 passes everything... but Animals is Other Stuff
    state = GAME.apply(state, {1: PlayFortune(841)})
    rolls = events_of(state, CheckRolled, 0)
    assert [r.skill for r in rolls][:2] == [Skill.STEALTH, Skill.CLIMBING]
    assert rolls[-1].skill == Skill.ANIMALS or not rolls[-1].passed
    if rolls[-1].skill == Skill.ANIMALS:
        assert rolls[-1].total == sum(rolls[-1].dice) + 1 and rolls[-1].target == 8


def test_interesting_times_fine_takes_money_but_never_below_zero() -> None:
    ticket = fortune(Effect.FINE, value=100, id=842)
    state = GAME.apply(_window(hands=((), (ticket,)), money=(60, 100)), {1: PlayFortune(842)})
    assert state.money[0] == salary_paid(state, 0)  # 60 - 100 is 0, then the next round's salary


def test_interesting_times_is_never_played_on_an_errand() -> None:
    trip = fortune(Effect.PENALTY, value=3, id=843)
    errand = dataclasses.replace(HARD, errand=True)
    state = _window(hands=((), (trip,)), active_mission=errand)
    assert events_of(state, CheckRolled, 0) and trip in state.hands[1]


def test_cards_not_marked_immediate_wait_for_a_missions_first_check() -> None:
    late = fortune(Effect.PENALTY, value=3, immediate=False, id=844)
    state = GAME.apply(_window(hands=((), (late,)), value=30), {1: Decline()})
    assert [r.check for r in events_of(state, CheckRolled, 0)] == [0]
    assert GAME.to_move(state) == (1,) and GAME.legal_actions(state, 1) == (Decline(),)  # second check
    assert late in state.hands[1]


def test_good_fortune_bonus_helps_the_current_check() -> None:
    focus = fortune(Effect.BONUS, value=4, id=850)
    state = GAME.apply(_window(hands=((focus,), ())), {0: PlayFortune(850)})
    rolls = events_of(state, CheckRolled, 0)
    assert rolls[0].total == sum(rolls[0].dice) - 4
    if len(rolls) > 1:
        assert rolls[1].total == sum(rolls[1].dice)  # only that check


def test_good_fortune_reroll_after_a_failed_roll() -> None:
    again = fortune(Effect.REROLL, id=851)
    seed = next(s for s in range(100) if sum(roll_3d6(s, 1, 0, 0)) > 10)
    state = _window(seed=seed, hands=((again,), ()))
    assert state.phase is Phase.WINDOW and GAME.legal_actions(state, 0) == (Decline(),)
    state = GAME.apply(state, {0: Decline()})
    assert state.phase is Phase.REROLL and GAME.legal_actions(state, 0) == (PlayFortune(851), Decline())
    rerolled = GAME.apply(state, {0: PlayFortune(851)})
    rolls = events_of(rerolled, CheckRolled, 0)
    assert rolls[0].dice == roll_3d6(seed, 1, 0, 1) and again in rerolled.fortune_discard
    declined = GAME.apply(state, {0: Decline()})
    assert events_of(declined, MissionEnded, 0)[0].success is False


def test_a_failed_roll_asks_any_active_player_with_a_hand() -> None:
    """Whether the active player holds a reroll card is hidden: a hand of any card is asked, and may
    only decline; an empty hand (its size is public) is not asked."""
    focus = fortune(Effect.BONUS, value=1, immediate=False, id=853)
    seed = next(s for s in range(100) if sum(roll_3d6(s, 1, 0, 0)) > 11)
    state = GAME.apply(_window(seed=seed, hands=((focus,), ())), {0: Decline()})
    assert state.phase is Phase.REROLL and GAME.legal_actions(state, 0) == (Decline(),)
    assert events_of(GAME.apply(state, {0: Decline()}), MissionEnded, 0)[0].success is False
    assert events_of(_window(seed=seed), MissionEnded, 0)[0].success is False  # empty hand: not asked


# -- ninja abilities ------------------------------------------------------------------------------


def test_never_fails_passes_without_a_roll() -> None:
    state = _single_check(3, value=3, modifier=-3, ability=Ability.NEVER_FAILS)
    assert events_of(state, CheckRolled, 0)[0].dice == () and events_of(state, MissionEnded, 0)[0].success


def test_plus_two_adds_to_the_skill() -> None:
    assert ninja(10, ability=Ability.PLUS_TWO, ability_skill=Skill.STEALTH).skill(Skill.STEALTH) == 12


def test_reroll_ability_rerolls_a_failed_check_once_per_mission() -> None:
    seed = next(s for s in range(200) if sum(roll_3d6(s, 1, 0, 0)) > 9)
    state = _single_check(seed, value=sum(roll_3d6(seed, 1, 0, 0)) - 1, ability=Ability.REROLL)
    rolls = events_of(state, CheckRolled, 0)
    assert len(rolls) == 2 and rolls[1].dice == roll_3d6(seed, 1, 0, 1)


# -- Step 9: the end ------------------------------------------------------------------------------


@pytest.mark.parametrize(("others", "ends"), [((11, 11, 10), True), ((11, 10, 10), False)])
def test_the_game_ends_at_ten_times_the_players(others, ends) -> None:
    """The seed's 4-player example: 40 honor or more ends the game."""
    win = mission((Skill.STEALTH, 20), reward=(2, 0))
    state = meet(at_meeting(4, honor=(6, *others), missions=(win, EASY, EASY, EASY)))
    assert sum(state.honor) == (40 if ends else 39)
    assert GAME.is_terminal(state) is ends
    if ends:
        assert GAME.termination(state) == "normal" and GAME.ranks(state) == (4, 1, 1, 3)


@pytest.mark.parametrize(("others", "ends"), [((4, 4, 4), True), ((5, 4, 4), False)])
def test_the_game_ends_at_four_times_the_players(others, ends) -> None:
    """The seed's 4-player example: 16 honor or less ends the game."""
    lose = mission((Skill.STEALTH, -30), penalty=(2, 0))
    state = meet(at_meeting(4, honor=(6, *others), missions=(lose, EASY, EASY, EASY)))
    if ends:
        assert GAME.is_terminal(state) and sum(state.honor) == 16
    else:
        assert not GAME.is_terminal(state) and sum(state.honor) == 17


def test_ties_share_the_rank() -> None:
    state = dataclasses.replace(at_meeting(4), honor=(9, 9, 4, 2))
    assert GAME.ranks(state) == (1, 1, 3, 4)


def test_the_sixty_round_cap_ends_the_game_and_says_so() -> None:
    state = meet(at_meeting(2, round=60, honor=(7, 6)))
    assert GAME.is_terminal(state) and GAME.termination(state) == "round_cap"
    assert GAME.scores(state) == (7, 6)


# -- the card set ---------------------------------------------------------------------------------


def test_the_card_set_follows_the_issue() -> None:
    ninjas, missions, fortunes = ninja_cards(), mission_cards(), fortune_cards()
    assert len(ninjas) == 18 and len(missions) == 56 and len(fortunes) == 72
    for card in ninjas:
        assert 3 <= len(card.skills) <= 5 and 7 <= card.other_stuff <= 9
        assert all(6 <= v <= 16 for v in card.values) and Skill.OTHER_STUFF not in card.skills
    assert sum(m.errand for m in missions) == 12
    for card in missions:
        assert 2 <= len(card.checks) <= 3 and all(-3 <= c.modifier <= 2 for c in card.checks)
        if not card.errand:
            assert 1 <= card.reward_honor <= 3
        else:
            assert card.reward_honor <= 1
    assert Counter(c.kind for c in fortunes) == {k: 24 for k in FortuneKind}
    assert len({c.id for c in (*ninjas,)}) == 18 and len({c.id for c in fortunes}) == 72


def test_most_fortune_cards_are_not_immediate() -> None:
    """Step 1: "Some fortune cards may be played immediately, most may not" (22 of the 72 are)."""
    fortunes = fortune_cards()
    assert sum(c.immediate for c in fortunes) / len(fortunes) < 0.5
    # every kind has an immediate card, so any non-empty hand may hold one playable in any window
    assert {c.kind for c in fortunes if c.immediate} == set(FortuneKind)


def test_every_reroll_card_is_immediate() -> None:
    """A reroll answers a failed roll, which can come at any check, not only a mission's first."""
    rerolls = [c for c in fortune_cards() if c.effect == Effect.REROLL]
    assert len(rerolls) == 12 and all(c.immediate for c in rerolls)


def test_no_ninja_is_clearly_best() -> None:
    from arena.games.ninja_burger.bots.ninja import average_values

    values = sorted(average_values(card)[0] for card in ninja_cards())
    assert values[-1] - values[0] < 0.5


# -- properties over many seeded games ------------------------------------------------------------


def _conserved(state: NinjaBurgerState) -> None:
    """Every card of the three decks is in exactly one place."""
    ninjas = [*state.ninja_deck, *state.ninja_discard, *(c for o in state.ninja_options for c in o)]
    ninjas += [c for c in state.ninjas if c is not None]
    assert sorted(c.id for c in ninjas) == sorted(c.id for c in ninja_cards())
    missions = [*state.mission_deck, *state.mission_discard, *(m for m in state.missions if m is not None)]
    assert sorted(m.id for m in missions) == sorted(m.id for m in mission_cards())
    fortune = [*state.fortune_deck, *state.fortune_discard, *(c for h in state.hands for c in h)]
    fortune += [c for i in state.items for c in i]
    assert sorted(c.id for c in fortune) == sorted(c.id for c in fortune_cards())


def check_step(before: NinjaBurgerState | None, state: NinjaBurgerState) -> None:
    """Ninja Burger's invariants, checked by the conformance suite at every step of its playouts:
    money and honor never go below zero, honor changes only by the missions that ended (as their
    events say), and every card is in exactly one place."""
    assert min(state.money) >= 0 and min(state.honor) >= 0
    if before is not None:
        changes = [0] * state.num_players
        for event in events_of(state, MissionEnded):
            changes[event.seat] += event.honor
        assert [a - b for a, b in zip(state.honor, before.honor, strict=True)] == changes
    _conserved(state)


def check_end(state: NinjaBurgerState) -> None:
    assert state.round <= ROUND_CAP


def test_no_message_to_a_seat_shows_another_hand_or_an_unrevealed_mission() -> None:
    for n in (2, 4, 6):
        for seed in range(10):
            for state, _ in random_playout(GAME, n, seed, policy_seed=3):
                events = set(walk(GAME.events(state)))
                for seat in range(n):
                    seen = set(walk(GAME.observe(state, seat))) | events
                    for other in range(n):
                        if other == seat:
                            continue
                        assert not seen & set(state.hands[other])
                        if not state.revealed[other] and state.missions[other] is not None:
                            assert state.missions[other] not in seen
                        assert not seen & set(state.ninja_options[other])
                    assert not seen & set(state.fortune_deck) and not seen & set(state.mission_deck)


def test_observations_never_carry_the_seed_or_deck_order() -> None:
    state = at_meeting(3, seed=123456789)
    fields = {f.name for f in dataclasses.fields(GAME.observe(state, 0))}
    assert "seed" not in fields and not any(
        "deck" in f and f not in ("mission_deck", "fortune_deck") for f in fields
    )
    assert isinstance(GAME.observe(state, 0).mission_deck, int)


# -- bots -----------------------------------------------------------------------------------------


def test_cdf_is_the_exact_3d6_distribution() -> None:
    rng = random.Random(0)
    assert cdf(10) == 0.5 and cdf(2) == 0.0 and cdf(18) == 1.0 and cdf(3) == 1 / 216
    sample = sum(sum(rng.randint(1, 6) for _ in range(3)) <= 12 for _ in range(20000)) / 20000
    assert abs(sample - cdf(12)) < 0.02


def test_builtin_bots_are_registered() -> None:
    from arena.bots import builtin_bots

    assert builtin_bots("ninja-burger") == BOTS
    assert BOTS["random"] is RandomBot and BOTS["ninja"] is NinjaBot and BOTS["best"] is BOTS["search"]
    assert get_game("ninja-burger") is GAME


def test_ninja_bot_beats_random_by_a_clear_margin() -> None:
    """First alone (a shared first is no win) against 3 randoms, seats rotating.

    A random seat among random seats is first alone in about a fifth of the games; 200 games of seeds
    0-199 give the ninja about 72%.
    """
    games, wins = 80, 0
    for g in range(games):
        seat = g % 4
        bots = [RandomBot() for _ in range(4)]
        bots[seat] = NinjaBot()
        ranks = GAME.ranks(play_bots(GAME, bots, seed=10_000 + g))
        wins += ranks[seat] == 1 and ranks.count(1) == 1
    assert wins / games >= 0.6


def _bot_window(hand: tuple, honor: tuple[int, ...], missions: tuple) -> NinjaBurgerState:
    """Returns the first fortune window of the round in which seat 2 (the bot) holds ``hand``."""
    state = at_meeting(3, honor=honor, missions=missions, hands=((), (), hand), money=(0, 0, 0))
    return meet(state)


def test_ninja_bot_saves_interesting_times_for_the_leader() -> None:
    trip = fortune(Effect.PENALTY, value=4, id=846)
    fair = mission((Skill.STEALTH, 0), reward=(3, 0), penalty=(1, 0), id=902)
    bot = NinjaBot()
    leader = _bot_window((trip,), honor=(9, 3, 6), missions=(fair, EASY, EASY))
    assert GAME.to_move(leader) == (2,) and GAME.observe(leader, 2).active == 0
    assert bot.choose(GAME.observe(leader, 2), GAME.legal_actions(leader, 2), None) == PlayFortune(846)
    # the same mission for a rival far behind (seat 0 leads with a mission that cannot fail)
    trailing = _bot_window((trip,), (9, 3, 6), (EASY, fair, EASY))
    while GAME.observe(trailing, 2).active != 1:  # seat 0's mission, then seat 2's own
        trailing = GAME.apply(trailing, {2: Decline()})
    assert GAME.to_move(trailing) == (2,) and GAME.observe(trailing, 2).active == 1
    assert bot.choose(GAME.observe(trailing, 2), GAME.legal_actions(trailing, 2), None) == Decline()


def test_ninja_bot_picks_the_skill_with_the_better_odds() -> None:
    choice = mission(((Skill.STEALTH, Skill.DRIVING), 0), id=903)
    kenji = next(c for c in ninja_cards() if c.name == "Wheelman Kenji")  # Driving 16, Stealth 8
    state = meet(at_meeting(2, honor=(7, 6), ninjas=(kenji, ninja_cards()[0]), missions=(choice, EASY)))
    assert state.phase is Phase.CHOOSE_SKILL
    action = NinjaBot().choose(GAME.observe(state, 0), GAME.legal_actions(state, 0), None)
    assert action == ChooseSkill(Skill.DRIVING)
