"""The smallest arena bot: always plays the first legal action. Copy it to start your own.

    arena match ninjan bots/python/first_bot.py random

The SDK connects to the referee (ARENA_ADDRESS / ARENA_TOKEN, set by ``arena match``), decodes each
observation into the game's own dataclasses (arena.games.<game>) and sends back your choice.
"""

from arena.sdk import Bot


class FirstBot(Bot):
    name = "first"

    def choose(self, observation, legal_actions, deadline):
        return legal_actions[0]  # or an index: return 0


if __name__ == "__main__":
    FirstBot().run()
