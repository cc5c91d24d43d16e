"""A submitted Ninjan bot that plays exactly like the built-in greedy bot (for the end-to-end test)."""

from arena.games.ninjan.bots import GreedyBot

if __name__ == "__main__":
    GreedyBot().run()
