"""The referee's own cost (``arena.referee.match``): a step is written (its replay lines, ``on_step``)
once the next step's requests are out, and observations are written field by field with the bytes
the codec would write."""

from __future__ import annotations

import asyncio
import random
from datetime import timedelta

import pytest

from arena import codec
from arena.games import GAMES
from arena.games.play import Step, Turn, play
from arena.referee.leases import Lease
from arena.referee.match import Match, MatchConfig, ObservationWriter, SeatState
from arena.referee.replay import ReplayWriter
from arena.v1 import arena_pb2 as pb


@pytest.mark.parametrize("name", sorted(GAMES))
def test_the_writer_writes_the_codecs_bytes(name: str) -> None:
    game = GAMES[name]
    for seed in range(3):
        players = game.spec.min_players + seed % (game.spec.max_players - game.spec.min_players + 1)
        writer = ObservationWriter(game, players)
        rng = random.Random(seed)

        def choose(
            turn: Turn, seat: int, writer: ObservationWriter = writer, rng: random.Random = rng
        ) -> int:
            legal = turn.legal[seat]
            observation = game.observe(turn.state, seat)
            want = pb.DecisionRequest(
                request_id=seat + 1,
                observation=codec.observation_to_proto(game, observation),
                legal_actions=codec.legal_actions_to_proto(game, legal),
            )
            got = pb.DecisionRequest(request_id=seat + 1)
            writer.write(got, observation, legal)
            assert got.SerializeToString() == want.SerializeToString()
            return rng.randrange(len(legal))

        for _ in play(game, game.initial_state(players, seed), choose):
            pass


class Noting(Lease):
    """A lease that notes, in one list shared by the match, each DecisionRequest sent on it."""

    def __init__(self, name: str, log: list[tuple[str, int]]) -> None:
        super().__init__(name)
        self.log = log
        self.claimed, self.events_in_requests = True, True

    def send(self, message: pb.RefereeMessage) -> None:
        if message.WhichOneof("kind") == "decision":
            self.log.append(("sent", message.decision.step))
        super().send(message)


async def answer_last(lease: Lease) -> None:
    while (message := await lease.outbound.get()) is not None:
        if message.WhichOneof("kind") == "decision":
            lease.offer(
                pb.Answer(
                    request_id=message.decision.request_id, index=len(message.decision.legal_actions) - 1
                )
            )


def test_a_step_is_written_after_the_next_steps_requests_are_sent() -> None:
    log: list[tuple[str, int]] = []
    game = GAMES["ninjan"]

    async def run() -> ReplayWriter:
        leases = [Noting(f"bot{seat}", log) for seat in range(2)]
        bots = [asyncio.create_task(answer_last(lease)) for lease in leases]
        replay = ReplayWriter(ReplayWriter.header("order", "ninjan", 5, ["a", "b"], 10_000, 3))

        def on_step(step: Step) -> None:
            log.append(("written", step.number))
            assert replay.lines[-1].startswith(('{"type":"decision"', '{"type":"event"'))

        seats = [SeatState(seat, lease.name, lease) for seat, lease in enumerate(leases)]
        config = MatchConfig(deadline=timedelta(seconds=10))
        await Match(game, seats, 5, "order", config, replay, on_step).run()
        for lease in leases:
            lease.release()
        await asyncio.gather(*bots)
        return replay

    replay = asyncio.run(run())
    sent = {step for kind, step in log if kind == "sent"}
    written = [step for kind, step in log if kind == "written"]
    assert written == sorted(written) and len(written) > 10
    for step in written:
        if step + 1 in sent:  # a later step asked someone: its requests went out first
            assert log.index(("sent", step + 1)) < log.index(("written", step)), log
    assert '"type":"result"' in replay.lines[-1]  # every step was written before the result
