from arena.bots.common import RandomBot

BOTS = {"random": RandomBot}
