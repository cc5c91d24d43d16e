"""A submitted Ninjan bot that plays a seeded random legal action (for the end-to-end test)."""

from arena.bots.common import RandomBot

if __name__ == "__main__":
    RandomBot().run()
