"""The bot interface: subclass ``Bot``, implement ``choose``, call ``run()``.

>>> class FirstBot(Bot):
...     name = "first"
...     def choose(self, observation, legal_actions, deadline):
...         return 0  # an index into legal_actions, or one of the actions itself
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta
from typing import Any, ClassVar

from arena.sdk.match import MatchInfo, MatchResult


class Bot:
    """A bot. Observations, actions and events arrive as the game's own dataclasses
    (``arena.games.<game>``), decoded from the wire by the SDK."""

    name: ClassVar[str] = "bot"
    match: MatchInfo | None = None  # the match being played, set before on_match_start
    hears_events: ClassVar[bool] = False  # whether the class overrides on_event (set per subclass)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Notes whether the new class listens to events, so the client skips decoding them when no
        class between it and ``Bot`` overrides ``on_event``."""
        super().__init_subclass__(**kwargs)
        cls.hears_events = cls.hears_events or "on_event" in vars(cls)

    def on_match_start(self, match: MatchInfo) -> None:
        """Called when a match starts; ``self.match`` is already set."""

    def choose(self, observation: Any, legal_actions: Sequence[Any], deadline: timedelta) -> Any:
        """Returns one of ``legal_actions`` (or its index), within ``deadline``.

        ``legal_actions`` is a ``LegalActions`` sequence: an action is decoded when it is first read,
        and answering with an action read from it costs no search.
        """
        raise NotImplementedError

    def on_event(self, event: Any) -> None:
        """Called for every public event of the match."""

    def on_error(self, code: str, message: str) -> None:
        """Called when the referee reports a problem with one of this bot's answers."""

    def on_result(self, result: MatchResult) -> None:
        """Called when a match ends."""

    def run(self, address: str | None = None, token: str | None = None) -> None:
        """Connects to the referee (ARENA_ADDRESS / ARENA_TOKEN by default) and plays until released."""
        from arena.sdk.client import run_bot

        run_bot(self, address=address, token=token)
