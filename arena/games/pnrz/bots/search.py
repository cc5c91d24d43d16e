"""PNRZ's ``search`` bot (also ``best``): the builder's candidate turns, judged by the reply they meet.

At the start of its turn the bot lists its candidate turns: the builder's best few tile plays (every
tile, position and rotation scored incrementally, ``tile_plays``) and the best play of each other
tile in hand, each followed by the extra action of its icon as the bot would take it, and its best
base move (even with tiles in hand). It draws a sample of the tiles its seat has not seen (the other
hands and the draw pile), seeded from what the seat sees; every candidate meets the same sample
(common random numbers). For each sampled tile, and each base the next seat has not played yet (bases
are public: they leave their owner's hand only for the board), it plays that seat's greedy reply with
that tile on the candidate's board, then its own best follow-up from the tiles it keeps. A reply
counts with the chance that its tile is the best one of a hand of the next seat's size dealt from the
sample (``best_of_hand``: exact over the sample), and a line is worth its own points minus the
strongest opponent's, plus half the follow-up's gain; a candidate then pays 0.3 a point for its bonus
items left facing a free position (``exposed``), less the opponent's.

Design Detail: the reply is where the builder is blind. It places a bonus item on an open edge because
it scores now; the lookahead sees what the next seat can do to that edge with the tiles it may hold,
and it sees when moving a base (which the builder does only with an empty hand) is worth a turn.
Replies and follow-ups look at the free positions around the tiles placed in the line and those
touching the best sections (``near``), not at the whole frontier: a full scan costs ~20 ms. The
builder's top plays are often one tile in several spots: the best play of every tile keeps the safe
and the holding plays in view (69.5% against the builder over 100 games where the top four alone
gave 62.5%). One reply sees one tile of the next seat; a bonus item left open meets many, hence
the exposure cost.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from datetime import timedelta
from typing import cast

from arena.bots.search import Budget, seat_draw, seat_key
from arena.games.pnrz.board import (
    _FRIEND,
    _POINTS,
    BASE_OF,
    ENEMY,
    NEIGHBOURS,
    PICTURES,
    Picture,
    frontier,
    picture_cells,
    rotations,
    sections,
)
from arena.games.pnrz.bots.builder import Boards, BuilderBot, board_of, play_rank, tile_plays
from arena.games.pnrz.engine import (
    BASE_TILES,
    GAME_TILES,
    TILES,
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
    RotateTile,
    SelectTile,
    SkipAction,
    SwapFirst,
    TakeTile,
)

Board = tuple[Placement, ...]
Turn = tuple[Action, PlaceTile]  # the first decision of a turn (SelectTile or MoveBase) and where


def unseen_tiles(obs: Observation) -> list[int]:
    """Returns the game tiles the seat cannot see: in the other hands or the draw pile."""
    seen = {p.tile_id for p in obs.board} | {t.id for t in obs.hand}
    return [t.id for t in GAME_TILES if t.id not in seen]


def margin(
    boards: Boards, board: Board, parent: Board, mine: tuple[Faction, ...], theirs: list[tuple[Faction, ...]]
) -> int:
    """Returns own points minus the strongest opponent's on ``board`` (made from ``parent``)."""
    scores = boards.scores(board, parent)
    own = sum(scores[f] for f in mine)
    return own - max((sum(scores[f] for f in fs) for fs in theirs), default=0)


def placed(board: Board, tile_id: int, place: PlaceTile) -> Board:
    """Returns ``board`` with ``tile_id`` put (or a base moved) at ``place``."""
    rest = [p for p in board if p.tile_id != tile_id]
    return tuple(sorted((*rest, Placement(place.y, place.x, tile_id, place.rotation))))


class SearchBot(BuilderBot):
    """One reply deep, in expectation over the hands the next seat may hold.

    The budget is ``iterations`` simulated plays per turn, a reply and a follow-up for each sampled
    tile and candidate: the sample holds ``iterations // (2 * candidates)`` tiles (reproducible). A
    wall-time guard stops before the next candidate once it has run out. Replace counts the tiles'
    worth in hand; the other extra actions are the builder's.
    """

    name = "search"
    revision = 1  # of its moves: bump it when they change (tests/test_builtin_versions.py)
    BUDGET = Budget(iterations=72)
    CANDIDATES = 4  # tile plays judged by lookahead (the builder's best few)
    FOLLOW_UP = 0.5  # weight of its own next play's gain in a line's worth
    MARGIN = 1.0  # weight of an opponent's point against its own in a line's worth
    ICONS = True  # whether a candidate's line starts after its icon's extra action
    HAND = 0.5  # worth of a point of own pictures in hand, against a point on the board
    EXPOSE = 0.3  # cost of a point of bonus items facing a free position (minus the opponent's)

    def __init__(self, budget: Budget | None = None) -> None:
        self.budget = budget or self.BUDGET
        self.intent: Turn | None = None

    def choose(
        self, observation: Observation, legal_actions: Sequence[Action], deadline: timedelta
    ) -> Action:
        phase = observation.phase
        self.boards = Boards()
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
            puts = cast(Sequence[PutTile], legal_actions)  # in the REPLACE phase every legal action is one
            return max(puts, key=lambda a: self.replace_value(observation, board, taken, a))
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
                tile_plays(board, hand, mine, theirs, self.OPPONENT_WEIGHT), key=play_rank, reverse=True
            )
            chosen = plays[: self.CANDIDATES]  # and each hand tile's best play too
            for tile_id in hand:
                top = next((p for p in plays if p[1] == tile_id), None)
                if top is not None and top not in chosen:
                    chosen.append(top)
            for _, tile_id, place in chosen:
                after = placed(board, tile_id, place)
                found.append(((SelectTile(tile_id), place), self.with_extra(obs, after, tile_id)))
        for move in (a for a in legal if isinstance(a, MoveBase)):
            spot = self.best_base_spot(obs, board, move.tile_id)
            if spot is not None:
                found.append(((move, spot), placed(board, move.tile_id, spot)))
        return found

    def with_extra(self, obs: Observation, board: Board, tile_id: int) -> Board:
        """Returns ``board``, where ``tile_id`` was just placed, after the extra action the bot would
        take for the tile's icon (the board itself when it would skip it)."""
        icon = TILES[tile_id].icon
        hand = tuple(t for t in obs.hand if t.id != tile_id)
        seen = dataclasses.replace(obs, icon=icon, hand=hand)
        if not self.ICONS or icon is Icon.NONE:
            return board
        if icon is Icon.ROTATE:
            turns = [
                RotateTile(p.tile_id, r)
                for p in board
                if not BASE_OF[p.tile_id]
                for r in range(4)
                if r != p.rotation
            ]
            action = self.best_extra(seen, board, turns)
            return (
                self.after_rotate(board, action.tile_id, action.rotation)
                if isinstance(action, RotateTile)
                else board
            )
        if icon is Icon.SWAP:
            if not isinstance(self.best_extra(seen, board, []), SwapFirst):
                return board
            a, b = self.plan
            swaps = [self.swapped(board, a, b, ra, rb) for ra in rotations(a) for rb in rotations(b)]
            return max(swaps, key=lambda swapped: self.value(seen, swapped, board))
        mine = self.mine(obs)
        takes = [TakeTile(p.tile_id) for p in board if BASE_OF[p.tile_id] in (None, *mine)]
        action = self.best_replace(seen, board, takes) if hand else SkipAction()
        if not isinstance(action, TakeTile):
            return board
        puts = [PutTile(t.id, r) for t in hand for r in rotations(t.id)]
        put = max(puts, key=lambda a: self.replace_value(seen, board, action.tile_id, a))
        return self.after_put_taken(board, action.tile_id, put)

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
        """Returns the turn (first decision, placement) whose line is worth most in expectation."""
        board = board_of(obs)
        found = self.candidates(obs, board, legal)
        if not found:
            return PassTurn(), PlaceTile(0, 0, 0)
        if len(found) == 1:
            return found[0][0]
        hidden = unseen_tiles(obs)
        seat_draw(seat_key(self.match), obs).shuffle(hidden)
        size = max(1, self.budget.iterations // (2 * len(found)))
        sample = hidden[:size]  # the same tiles meet every candidate (common random numbers)
        hot = hot_spots(board)
        clock = self.budget.clock(deadline)
        worths: list[float] = []
        for turn, after in found:
            if worths and clock.expired():
                break
            worth = self.expected_line(obs, board, turn, after, sample, hot)
            worths.append(worth - self.EXPOSE * self.exposure(obs, after))
        return found[max(range(len(worths)), key=lambda i: (worths[i], -i))][0]

    def exposure(self, obs: Observation, board: Board) -> int:
        """Returns the points of own bonus items left open to an arch-enemy on ``board`` (beyond the
        one reply the line plays: the next seats get many turns to find the tile), minus the
        strongest opponent's."""
        cells = picture_cells(board)
        own = sum(exposed(cells, f) for f in self.mine(obs))
        return own - max((sum(exposed(cells, f) for f in fs) for fs in self.theirs(obs)), default=0)

    def expected_line(
        self,
        obs: Observation,
        board: Board,
        turn: Turn,
        after: Board,
        sample: list[int],
        hot: dict[Faction, set[Spot]],
    ) -> float:
        """Returns a candidate turn's expected worth: the next seat replies with its best greedy play
        from a hand dealt from ``sample`` (plus its unplayed bases), every hand of its size being as
        likely; then the bot plays its best follow-up. Exact over the sample: each tile's reply is
        computed once and weighted by the chance that it is the best of the dealt hand."""
        me, seats = obs.seat, len(obs.players)
        factions = {p.seat: p.factions for p in obs.players}
        mine, theirs = factions[me], self.theirs(obs)
        first, place = turn
        hand = [t.id for t in obs.hand if not (isinstance(first, SelectTile) and t.id == first.tile_id)]
        left = obs.final_turns_left
        follow = hand and (left is None or left > seats)
        if left is not None and left <= 1:
            return margin(self.boards, after, board, mine, theirs)
        nxt = obs.players[(me + 1) % seats]
        bases = [BASE_TILES[f].id for f in nxt.factions if BASE_TILES[f].id not in {p.tile_id for p in board}]
        dealt = min(len(sample), max(0, nxt.hand_size - len(bases)))
        ahead = (
            tile_plays(after, hand, mine, theirs, self.MARGIN, near(after, [(place.x, place.y)], hot, mine))
            if follow
            else []
        )  # the bot's next plays, before any reply
        if not dealt and not bases:
            gain = max((s for s, _, _ in ahead), default=0.0)
            return margin(self.boards, after, board, mine, theirs) + self.FOLLOW_UP * max(0.0, gain)
        others = [fs for s, fs in factions.items() if s != nxt.seat]
        spots = near(after, [(place.x, place.y)], hot, (*mine, *nxt.factions))
        best: dict[int, tuple[float, int, PlaceTile]] = {}  # tile -> the next seat's best play of it
        for play in tile_plays(after, [*sample, *bases], nxt.factions, others, self.OPPONENT_WEIGHT, spots):
            if play[1] not in best or play_rank(play) > play_rank(best[play[1]]):
                best[play[1]] = play
        # (the replying seat's score of its play, the line's worth for the bot)
        replies: list[tuple[float, float]] = []
        for tile in (*sample, *bases):
            if tile not in best:
                replies.append((float("-inf"), margin(self.boards, after, board, mine, theirs)))
                continue
            score, _, reply = best[tile]
            now = placed(after, tile, reply)
            worth: float = margin(self.boards, now, board, mine, theirs)
            if follow:
                worth += self.FOLLOW_UP * self.follow_up(now, hand, ahead, reply, mine, theirs)
            replies.append((score, worth))
        weights = best_of_hand(
            [r for r, _ in replies[: len(sample)]], [r for r, _ in replies[len(sample) :]], dealt
        )
        return sum(w * v for w, (_, v) in zip(weights, replies, strict=True))

    def follow_up(
        self,
        now: Board,
        hand: list[int],
        ahead: list[tuple[float, int, PlaceTile]],
        reply: PlaceTile,
        mine: tuple[Faction, ...],
        theirs: list[tuple[Faction, ...]],
    ) -> float:
        """Returns the gain of the bot's best next play from ``hand`` on ``now`` (0 if none gains):
        the plays ``ahead`` (scored before the reply) away from the reply, or a play beside it."""
        far = (s for s, _, p in ahead if max(abs(p.x - reply.x), abs(p.y - reply.y)) > 1)
        free = set(frontier([(p.x, p.y) for p in now]))
        spots = [(reply.x + dx, reply.y + dy) for dx, dy in AROUND if (reply.x + dx, reply.y + dy) in free]
        close = (s for s, _, _ in tile_plays(now, hand, mine, theirs, self.MARGIN, spots))
        return max(0.0, max(far, default=0.0), max(close, default=0.0))


def best_of_hand(drawn: list[float], kept: list[float], size: int) -> list[float]:
    """Returns, for each tile of ``drawn`` then of ``kept``, the chance that it is the best (highest
    score; the earlier tile on ties) of a hand holding every ``kept`` tile and ``size`` tiles drawn
    from ``drawn``, every such hand being as likely."""
    order = sorted(range(len(drawn)), key=lambda i: (drawn[i], -i))  # ascending
    hands = math.comb(len(drawn), size)
    top_kept = max(range(len(kept)), key=lambda i: (kept[i], -i), default=None)
    weights = [0.0] * (len(drawn) + len(kept))
    below_kept = 0 if top_kept is None else sum(1 for i in range(len(drawn)) if drawn[i] < kept[top_kept])
    for rank, i in enumerate(order):
        if size and (top_kept is None or drawn[i] >= kept[top_kept]):
            weights[i] = math.comb(rank, size - 1) / hands
    if top_kept is not None:
        weights[len(drawn) + top_kept] = math.comb(below_kept, size) / hands
    return weights


def keep_worth(tile_id: int, mine: tuple[Faction, ...]) -> int:
    """Returns what a tile in hand can add for factions ``mine``: the points of its pictures of
    theirs (an own base: 5)."""
    if BASE_OF[tile_id] is not None:
        return 5 if BASE_OF[tile_id] in mine else 0
    return sum(_POINTS[p] for p in PICTURES[tile_id] if _FRIEND[p] in mine)


def exposed(cells: dict[Spot, Picture], faction: Faction) -> int:
    """Returns the counted points of the bonus items of the faction's best section that face a free
    position: where an arch-enemy placed later would negate them."""
    found = sections(cells, faction)
    enemy = ENEMY[faction]
    total = 0
    for cx, cy in found[0].cells if found else ():
        points = _POINTS[cells[(cx, cy)]]
        around = [(cx + dx, cy + dy) for dx, dy in NEIGHBOURS]
        open_to_enemy = all(cells.get(n) is not enemy for n in around) and any(n not in cells for n in around)
        if points == 3 and open_to_enemy:
            total += points
    return total


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
