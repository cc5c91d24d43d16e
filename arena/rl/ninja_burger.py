"""Ninja Burger's encoding: every ninja card to choose, attend or not, a trade target, a skill, every
fortune card to play, and Decline (the retired ``ChooseSkills``, never legal, is left out), and the
seat's observation with its tuples capped as below (docs/rl.md lists every column)."""

from __future__ import annotations

from arena.games.ninja_burger.cards import Skill, fortune_cards, ninja_cards
from arena.games.ninja_burger.engine import Attend, ChooseNinja, ChooseSkill, Decline, ForceTrade, PlayFortune
from arena.rl.encoding import Encoding, ordered

MAX_PLAYERS = 6
CAPACITIES = {
    "players": MAX_PLAYERS,
    "players.items": 6,  # Ninja Stuff in play before a seat, by card id
    "players.mission.checks": 3,
    "players.mission.checks.skills": 2,
    "hand": 10,
    "mission.checks": 3,
    "mission.checks.skills": 2,
    "ninja_options": 3,
    "ninja_options.skills": 5,
    "ninja_options.values": 5,
    "order": MAX_PLAYERS,
    "checks": 6,  # the mission's checks, extra checks included
    "checks.skills": 2,
    "plan": 6,
    "plays": 2 * MAX_PLAYERS,
}

ENCODING = Encoding(
    game_name="ninja-burger",
    capacities=CAPACITIES,
    actions=ordered(
        "ninja-burger",
        [
            *(ChooseNinja(card.id) for card in ninja_cards()),
            Attend(False),
            Attend(True),
            *(ForceTrade(seat) for seat in range(MAX_PLAYERS)),
            *(ChooseSkill(skill) for skill in Skill),
            *(PlayFortune(card.id) for card in fortune_cards()),
            Decline(),
        ],
    ),
)
