"""The Python SDK. End to end: a bot on the SDK, as a real process, is handed every public event of its
matches, in order and before the decisions that follow them, whichever message carried them. In
process: the legal actions a bot is handed decode only what it reads, and its answer goes back by
index without a search when it is an action it read."""

from __future__ import annotations

import json
import random
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

from arena import codec
from arena.games import GAMES
from arena.sdk import Bot, LegalActions
from arena.sdk.client import decide
from arena.v1 import arena_pb2 as pb
from tests.conftest import REPO, game_lines, json_lines, run_arena

# The recorder writes to the file RECORDER_LOG names: its stdout here, which the referee keeps in the
# bot's log (a sandboxed bot can write no file of the test's, and gets only the variables it declares).
RECORDER = f"RECORDER_LOG=/dev/stdout {sys.executable} {REPO / 'tests' / 'bots' / 'recorder.py'}"


@pytest.mark.e2e
@pytest.mark.parametrize("game", ["ninjan", "ninja-burger"])
def test_the_sdk_hands_the_bot_every_event_in_order(tmp_path: Path, game: str) -> None:
    proc = run_arena(
        "match",
        game,
        RECORDER,
        "random",
        "--games",
        "3",
        "--seed",
        "11",
        "--json",
        "--replay-dir",
        str(tmp_path / "replays"),
    )
    assert proc.returncode == 0, proc.stderr
    (log,) = (tmp_path / "replays" / "logs").glob("0-recorder.log")  # one process for the whole series
    seen = [json.loads(line) for line in log.read_text().splitlines() if line.startswith("{")]
    results = game_lines(proc.stdout)
    assert [e["match_id"] for e in seen if e["type"] == "start"] == [r["match_id"] for r in results]
    starts = [i for i, e in enumerate(seen) if e["type"] == "start"] + [len(seen)]
    for number, result in enumerate(results):
        match = seen[starts[number] : starts[number + 1]]
        assert match[-1] == {"type": "result", "match_id": result["match_id"]}
        replay = json_lines(Path(result["replay"]).read_text())
        seat = match[0]["seat"]
        # the bot saw the replay's events and its own decisions, interleaved as they happened
        expected = [
            {"type": "event", "event": line["event"]} if line["type"] == "event" else {"type": "decision"}
            for line in replay
            if line["type"] == "event" or (line["type"] == "decision" and line["seat"] == seat)
        ]
        assert [e for e in match if e["type"] in ("event", "decision")] == expected


# -- the legal actions, decoded lazily -------------------------------------------------------------

PNRZ = GAMES["pnrz"]


def pnrz_decision(at_least: int = 100) -> tuple[pb.DecisionRequest, tuple]:
    """Returns the first DecisionRequest of a seeded PNRZ game with ``at_least`` legal actions, and
    those actions as the engine lists them."""
    rng = random.Random(0)
    state = PNRZ.initial_state(2, 1)
    while not PNRZ.is_terminal(state):
        legal = {seat: PNRZ.legal_actions(state, seat) for seat in PNRZ.to_move(state)}
        for seat, actions in legal.items():
            if len(actions) >= at_least:
                request = pb.DecisionRequest(
                    request_id=7,
                    observation=codec.observation_to_proto(PNRZ, PNRZ.observe(state, seat)),
                    legal_actions=codec.legal_actions_to_proto(PNRZ, actions),
                    deadline_ms=1000,
                )
                return request, actions
        state = PNRZ.apply(state, {seat: rng.choice(actions) for seat, actions in legal.items()})
    raise AssertionError(f"no PNRZ decision with {at_least} legal actions")


class Answers(Bot):
    """Answers with what ``pick(legal_actions)`` returns, and keeps the sequence it was handed."""

    def __init__(self, pick) -> None:
        self.pick = pick

    def choose(self, observation, legal_actions, deadline):
        self.legal = legal_actions
        return self.pick(legal_actions)


@pytest.fixture
def decodes(monkeypatch: pytest.MonkeyPatch) -> list[pb.Action]:
    """Returns the list of every action message codec.action_from_proto decodes during the test."""
    seen: list[pb.Action] = []
    real = codec.action_from_proto

    def counting(game, message):
        seen.append(message)
        return real(game, message)

    monkeypatch.setattr(codec, "action_from_proto", counting)
    return seen


def test_a_bot_that_reads_one_action_of_a_big_decision_decodes_one(decodes: list) -> None:
    request, actions = pnrz_decision()

    def read_the_fourth(legal: LegalActions) -> int:
        assert legal[3] == actions[3]
        return 3

    bot = Answers(read_the_fourth)
    answer = decide(bot, request, PNRZ)
    assert answer.index == 3
    assert len(bot.legal) == len(actions) >= 100
    assert decodes == [request.legal_actions[3]]
    assert bot.legal.decoded == 1


def test_an_action_the_bot_read_is_answered_by_index_without_a_search(decodes: list) -> None:
    request, actions = pnrz_decision()
    bot = Answers(lambda legal: legal[57])
    answer = decide(bot, request, PNRZ)
    assert answer.WhichOneof("choice") == "index" and answer.index == 57
    assert bot.legal[57] == actions[57]
    assert decodes == [request.legal_actions[57]]  # nothing compared: actions 0..56 never decoded


def test_an_equal_action_the_bot_built_itself_gets_its_index(decodes: list) -> None:
    request, actions = pnrz_decision()
    wanted = codec.from_json(codec.to_json(actions[42], PNRZ.action_type), PNRZ.action_type)
    assert wanted == actions[42] and wanted is not actions[42]
    answer = decide(Answers(lambda legal: wanted), request, PNRZ)
    assert answer.WhichOneof("choice") == "index" and answer.index == 42
    assert len(decodes) == 43  # the search stops at the first equal action


def test_an_action_that_is_not_legal_is_sent_as_an_action_for_the_referee_to_judge() -> None:
    request, actions = pnrz_decision()
    illegal = next(a for a in PNRZ.legal_actions(PNRZ.initial_state(2, 1), 0) if a not in actions)
    answer = decide(Answers(lambda legal: illegal), request, PNRZ)
    assert answer.WhichOneof("choice") == "action"
    assert codec.action_from_proto(PNRZ, answer.action) == illegal


def test_legal_actions_is_a_sequence_like_the_list_it_replaces() -> None:
    request, actions = pnrz_decision()
    legal = LegalActions(PNRZ, request.legal_actions)
    assert isinstance(legal, Sequence)
    assert len(legal) == len(actions) and legal.decoded == 0
    assert legal[0] == actions[0] and legal[-1] == actions[-1] and legal[-len(actions)] == actions[0]
    assert legal[5] is legal[5]  # decoded once, then kept
    with pytest.raises(IndexError):
        legal[len(actions)]
    with pytest.raises(IndexError):
        legal[-len(actions) - 1]
    assert legal[2:9:3] == list(actions[2:9:3]) and legal[-2:] == list(actions[-2:]) and legal[5:2] == []
    assert list(legal) == list(actions) and list(reversed(legal)) == list(reversed(actions))
    assert legal.index(actions[10]) == 10 and actions[10] in legal
    assert legal.index(legal[20], 15, 30) == 20
    with pytest.raises(ValueError):
        legal.index(actions[10], 11)
    assert legal.count(actions[3]) == 1
    assert "not an action" not in legal and None not in legal
    with pytest.raises(ValueError):
        legal.index("not an action")
    assert random.Random(1).choice(legal) == random.Random(1).choice(list(actions))
    assert repr(legal).startswith("LegalActions([")


def test_only_bots_that_override_on_event_have_events_decoded_for_them() -> None:
    class Quiet(Bot):
        def choose(self, observation, legal_actions, deadline):
            return 0

    class Listener(Quiet):
        def on_event(self, event):
            self.heard = event

    class Child(Listener):
        pass

    assert (Quiet.hears_events, Listener.hears_events, Child.hears_events) == (False, True, True)
