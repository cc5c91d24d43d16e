"""PNRZ's ``search`` bot (also ``best``): the builder's candidate turns, judged by what comes next.

At the start of its turn the bot lists its candidate turns: the builder's best few tile plays (every
tile, position and rotation scored incrementally, ``tile_plays``) and its best base move. It then
deals the tiles it has not seen (the other hands and the draw pile; sizes and every seat's unplayed
bases are public) at random, consistently with its observation, and in each deal plays every candidate
forward with the engine's scoring: the other seats reply in turn order with the builder's greedy tile
play from their sampled hands, then it plays its own best follow-up with what it will hold (its hand,
plus the tile it draws in that deal). A candidate is worth the mean, over the deals, of its own points
minus the strongest opponent's at the end of that line, plus a share of its follow-up's gain. Every
candidate meets the same deals (common random numbers).

Design Detail: the replies are where the builder is blind. It places a bonus item on an open edge
because it scores now; the lookahead sees that most deals hand the next seat an arch-enemy for that
edge, and it sees when moving a base (which the builder does only with an empty hand) is worth a turn.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta

from arena.bots.pnrz_builder import BuilderBot, _rank, board_of, scores_after, tile_plays
from arena.bots.search import Budget, seat_draw, seat_key
from arena.games.pnrz import (
    BASE_TILES,
    GAME_TILES,
    Action,
    Faction,
    Icon,
    MoveBase,
    Observation,
    PassTurn,
    Phase,
    Placement,
    PlaceTile,
    PutTile,
    SelectTile,
    SkipAction,
    TakeTile,
    frontier,
    picture_cells,
    rotations,
)
from arena.games.pnrz_board import _FRIEND, _POINTS, BASE_OF, NEIGHBOURS, PICTURES, sections
from arena.games.rng import Draw

Board = tuple[Placement, ...]
Turn = tuple[Action, PlaceTile]  # the first decision of a turn (SelectTile or MoveBase) and where


def unseen_tiles(obs: Observation) -> list[int]:
    """Returns the game tiles the seat cannot see: in the other hands or the draw pile."""
    seen = {p.tile_id for p in obs.board} | {t.id for t in obs.hand}
    return [t.id for t in GAME_TILES if t.id not in seen]


def deal(obs: Observation, hidden: Sequence[int], draw: Draw) -> tuple[dict[int, list[int]], list[int]]:
    """Returns (hand per other seat, draw pile top first): the ``hidden`` game tiles shuffled into
    the other hands (each of its public size, its unplayed bases included) and the pile. Uses
    nothing but the observation."""
    tiles = list(hidden)
    draw.shuffle(tiles)
    in_play = {p.tile_id for p in obs.board}
    hands = {}
    for player in obs.players:
        if player.seat == obs.seat:
            continue
        bases = [BASE_TILES[f].id for f in player.factions if BASE_TILES[f].id not in in_play]
        count = max(0, player.hand_size - len(bases))
        hands[player.seat] = [*bases, *tiles[:count]]
        del tiles[:count]
    return hands, tiles


def margin(board: Board, parent: Board, mine: tuple[Faction, ...], theirs: list[tuple[Faction, ...]]) -> int:
    """Returns own points minus the strongest opponent's on ``board`` (made from ``parent``)."""
    scores = scores_after(parent, board)
    own = sum(scores[f] for f in mine)
    return own - max((sum(scores[f] for f in fs) for fs in theirs), default=0)


def placed(board: Board, tile_id: int, place: PlaceTile) -> Board:
    """Returns ``board`` with ``tile_id`` put (or a base moved) at ``place``."""
    rest = [p for p in board if p.tile_id != tile_id]
    return tuple(sorted((*rest, Placement(place.y, place.x, tile_id, place.rotation))))


class SearchBot(BuilderBot):
    """Lookahead over sampled deals: each candidate turn met by the others' greedy replies.

    The budget is ``iterations`` simulated plays per turn (replies and follow-ups; reproducible), with
    a wall-time guard. Extra actions, swaps and replacements are the builder's.
    """

    name = "search"
    BUDGET = Budget(iterations=24)
    CANDIDATES = 4  # tile plays judged by lookahead (the builder's best few)
    FOLLOW_UP = 0.5  # weight of its own next play's gain in a line's worth
    MARGIN = 1.0  # weight of an opponent's point against its own in a line's worth
    HAND = 0.5  # worth of a point of own pictures in hand, against a point on the board

    def __init__(self, budget: Budget | None = None) -> None:
        self.budget = budget or self.BUDGET
        self.intent: Turn | None = None

    def choose(
        self, observation: Observation, legal_actions: Sequence[Action], deadline: timedelta
    ) -> Action:
        phase = observation.phase
        if phase is Phase.PLAY:
            first, place = self.plan_turn(observation, legal_actions, deadline)
            self.intent = (first, place)
            return first
        intent, self.intent = self.intent, None
        if phase in (Phase.PLACE, Phase.MOVE) and intent is not None and intent[1] in legal_actions:
            first = intent[0]
            if getattr(first, "tile_id", None) == observation.pending[0]:
                return intent[1]
        if phase is Phase.ACTION and observation.icon is Icon.REPLACE:
            return self.best_replace(observation, board_of(observation), legal_actions)
        if phase is Phase.REPLACE:
            board, taken = board_of(observation), observation.pending[0]
            return max(legal_actions, key=lambda a: self.replace_value(observation, board, taken, a))
        return super().choose(observation, legal_actions, deadline)

    # -- Replace: the tile taken back is worth something in hand -----------------------------------

    def replace_value(self, obs: Observation, board: Board, taken: int, put: PutTile) -> float:
        """Returns the value of the board after putting ``put`` where ``taken`` was, plus what the
        swap of hand tiles is worth (``taken`` comes into the hand, ``put`` leaves it)."""
        after = self.after_put_taken(board, taken, put)
        mine = self.mine(obs)
        return self.value(obs, after, board) + self.HAND * (
            keep_worth(taken, mine) - keep_worth(put.tile_id, mine)
        )

    def best_replace(self, obs: Observation, board: Board, legal: Sequence[Action]) -> Action:
        """Returns the TakeTile (or SkipAction) with the best ``replace_value``: the tiles around the
        best sections, and the richest in own pictures, are the ones considered for taking."""
        mine = self.mine(obs)
        takeable = [a.tile_id for a in legal if isinstance(a, TakeTile)]
        pool = [t for t in self.shortlist(obs, board) if t in takeable][:8]
        pool += sorted((t for t in takeable if t not in pool), key=lambda t: (-keep_worth(t, mine), t))[:4]
        best: Action = SkipAction()
        best_value = self.value(obs, board) + 1e-9
        for taken in pool:
            for tile in obs.hand:
                for r in rotations(tile.id):
                    v = self.replace_value(obs, board, taken, PutTile(tile.id, r))
                    if v > best_value:
                        best, best_value = TakeTile(taken), v
        return best

    # -- the turn --------------------------------------------------------------------------------

    def candidates(self, obs: Observation, board: Board, legal: Sequence[Action]) -> list[tuple[Turn, Board]]:
        """Returns the candidate turns (first decision, placement) with the board each leaves."""
        mine, theirs = self.mine(obs), self.theirs(obs)
        hand = [a.tile_id for a in legal if isinstance(a, SelectTile)]
        found: list[tuple[Turn, Board]] = []
        if hand:
            plays = sorted(
                tile_plays(board, hand, mine, theirs, self.OPPONENT_WEIGHT), key=_rank, reverse=True
            )
            for _, tile_id, place in plays[: self.CANDIDATES]:
                found.append(((SelectTile(tile_id), place), placed(board, tile_id, place)))
        for move in (a for a in legal if isinstance(a, MoveBase)):
            spot = self.best_base_spot(obs, board, move.tile_id)
            if spot is not None:
                found.append(((move, spot), placed(board, move.tile_id, spot)))
        return found

    def best_base_spot(self, obs: Observation, board: Board, tile_id: int) -> PlaceTile | None:
        """Returns the new position of a base that raises the board value most (None if none does)."""
        old = next(p for p in board if p.tile_id == tile_id)
        rest = [(p.x, p.y) for p in board if p is not old]
        best, best_value = None, self.value(obs, board) + 1e-9
        for x, y in frontier(rest):
            if (x, y) != (old.x, old.y):
                v = self.value(obs, placed(board, tile_id, PlaceTile(x, y, 0)), board)
                if v > best_value:
                    best, best_value = PlaceTile(x, y, 0), v
        return best

    def plan_turn(self, obs: Observation, legal: Sequence[Action], deadline: timedelta) -> Turn:
        """Returns the turn (first decision, placement) whose lines are worth most over sampled deals."""
        board = board_of(obs)
        found = self.candidates(obs, board, legal)
        if not found:
            return PassTurn(), PlaceTile(0, 0, 0)
        if len(found) == 1:
            return found[0][0]
        totals = [0.0] * len(found)
        clock = self.budget.clock(deadline)
        draw = seat_draw(seat_key(self.match), obs)
        hidden = unseen_tiles(obs)
        hot = hot_spots(board)
        done = 0
        while done < self.budget.iterations and not (done and clock.expired()):
            hands, pile = deal(obs, hidden, draw)
            plays = 0
            for i, (turn, after) in enumerate(found):
                worth, cost = self.line(obs, board, turn, after, hands, pile, hot)
                totals[i] += worth
                plays += cost
            if not plays:
                break  # nothing follows this turn (its last): one deal says it all
            done += plays
        return found[max(range(len(found)), key=lambda i: (totals[i], -i))][0]

    def line(
        self,
        obs: Observation,
        board: Board,
        turn: Turn,
        after: Board,
        hands: dict[int, list[int]],
        pile: list[int],
        hot: dict[Faction, set[Spot]],
    ) -> tuple[float, int]:
        """Returns (worth, simulated plays) of a candidate turn in one deal: the other seats reply
        greedily in turn order, then the bot plays its best follow-up. Replies and the follow-up look
        at the positions that matter (``near``), not the whole frontier."""
        me, seats = obs.seat, len(obs.players)
        factions = {p.seat: p.factions for p in obs.players}
        mine, theirs = factions[me], self.theirs(obs)
        first, place = turn
        hand = [t.id for t in obs.hand]
        if isinstance(first, SelectTile):
            hand.remove(first.tile_id)
            if pile and obs.final_turns_left is None:
                hand.append(pile[0])
        turns_left = obs.final_turns_left
        cost, now, moved = 0, after, [(place.x, place.y)]
        for k in range(1, seats):
            if turns_left is not None and k >= turns_left:
                return margin(now, board, mine, theirs), cost
            seat = (me + k) % seats
            if hands[seat]:
                others = [fs for s, fs in factions.items() if s != seat]
                spots = near(now, moved, hot, (*mine, *factions[seat]))
                plays = tile_plays(now, hands[seat], factions[seat], others, self.OPPONENT_WEIGHT, spots)
                if plays:
                    _, tile_id, reply = max(plays, key=_rank)
                    now = placed(now, tile_id, reply)
                    moved.append((reply.x, reply.y))
                cost += 1
        worth = margin(now, board, mine, theirs)
        if hand and (turns_left is None or turns_left > seats):
            spots = near(now, moved, hot, mine)
            gain = max(
                (play[0] for play in tile_plays(now, hand, mine, theirs, self.MARGIN, spots)), default=0
            )
            worth += self.FOLLOW_UP * max(gain, 0.0)
            cost += 1
        return worth, cost


def keep_worth(tile_id: int, mine: tuple[Faction, ...]) -> int:
    """Returns what a tile in hand can add for factions ``mine``: the points of its pictures of
    theirs (an own base: 5)."""
    if BASE_OF[tile_id] is not None:
        return 5 if BASE_OF[tile_id] in mine else 0
    return sum(_POINTS[p] for p in PICTURES[tile_id] if _FRIEND[p] in mine)


Spot = tuple[int, int]
AROUND = [(dx, dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1) if dx or dy]


def hot_spots(board: Board) -> dict[Faction, set[Spot]]:
    """Returns, per faction, the free positions its best section touches: where it grows, and where
    an arch-enemy hurts it."""
    cells = picture_cells(board)
    taken = {(p.x, p.y) for p in board}
    hot: dict[Faction, set[Spot]] = {}
    for f in Faction:
        found = sections(cells, f)
        spots: set[Spot] = set()
        for cx, cy in found[0].cells if found else ():
            for dx, dy in NEIGHBOURS:
                spot = ((cx + dx) // 2, (cy + dy) // 2)
                if spot not in taken:
                    spots.add(spot)
        hot[f] = spots
    return hot


def near(
    board: Board, moved: list[Spot], hot: dict[Faction, set[Spot]], factions: Sequence[Faction]
) -> list[Spot]:
    """Returns the free positions a simulated play looks at: those around the tiles placed in the
    line so far, and those touching the best sections of ``factions`` (as the turn began), in
    frontier order."""
    wanted = set().union(*(hot[f] for f in factions))
    wanted.update((x + dx, y + dy) for x, y in moved for dx, dy in AROUND)
    return [spot for spot in frontier([(p.x, p.y) for p in board]) if spot in wanted]
