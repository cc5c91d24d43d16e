// Pirates, Ninjas, Robots & Zombies (docs/rules/pnrz.md): choose factions, then each turn select a hand
// tile and place it (x, y, rotation), and take or skip the extra action of its icon. The default
// strategy is greedy (after the built-in `builder` bot): it plays the tile, position and rotation that
// leave the best board value, its factions' best sections minus 0.8 times the strongest opponent's,
// uses a Rotate icon when a rotation raises that value, and skips the other extra actions.
package main

import (
	arenav1 "github.com/arena/arena/gen/go/arenav1"
)

const (
	pnrzOpponentWeight = 0.8 // an opponent's point counts this much against one of the bot's own
	pnrzPictures       = "PNRZT*BMKDXHSCFG"
	pnrzGrid           = 256 // picture grid side
	pnrzOffset         = pnrzGrid / 2
	pnrzReach          = 60 // tile positions -60..60 are scored (a game has 58 tiles)
)

// A picture letter's index i in pnrzPictures is its PnrzPicture value minus 1: faction i%4+1
// (PnrzFaction), kind i/4 (0 character: 1 point, 1 bonus item: 3, 2 arch-enemy, 3 base: 5 per section).
// The board keeps each picture as its code i+1 (0: no picture).
func pnrzCode(letter byte) byte {
	for i := 0; i < len(pnrzPictures); i++ {
		if pnrzPictures[i] == letter {
			return byte(i + 1)
		}
	}
	return 0
}

// pnrzPicture is the faction (1..4) and kind (0..3) of a picture code; (0, -1) for none.
func pnrzPicture(code byte) (faction int, kind int) {
	if code == 0 {
		return 0, -1
	}
	return int(code-1)%4 + 1, int(code-1) / 4
}

// pnrzQuadrant is the offset of quadrant q (0 NW, 1 NE, 2 SE, 3 SW) in the grid of pictures, where tile
// (x, y) covers pictures (2x..2x+1, 2y..2y+1).
var pnrzQuadrant = [4][2]int{{0, 0}, {1, 0}, {1, 1}, {0, 1}}
var pnrzSides = [4][2]int{{1, 0}, {-1, 0}, {0, 1}, {0, -1}}

// pnrzBoard is the play area as a grid of pictures (0: empty), with the list of filled cells, so that a
// candidate play is put in, scored and taken out again.
type pnrzBoard struct {
	pic   [pnrzGrid][pnrzGrid]byte
	tiles map[[2]int]bool // occupied tile positions
	cells [][2]int        // filled picture cells (may hold emptied ones: pic 0 is skipped)
	seen  [pnrzGrid][pnrzGrid]uint32
	stamp uint32
	stack [][2]int
}

func newPnrzBoard(placed []*arenav1.PnrzPlacedTile) *pnrzBoard {
	b := &pnrzBoard{tiles: map[[2]int]bool{}}
	for _, p := range placed {
		b.put(int(p.GetX()), int(p.GetY()), p.GetShown())
	}
	return b
}

// put fills tile position (x, y) with the 4 shown pictures (NW, NE, SE, SW); "" empties it. A position
// beyond the grid (a play area that has drifted far from (0, 0)) is left out of the scoring.
func (b *pnrzBoard) put(x, y int, shown string) {
	if x < -pnrzReach || x > pnrzReach || y < -pnrzReach || y > pnrzReach {
		return
	}
	if shown == "" {
		delete(b.tiles, [2]int{x, y})
	} else {
		b.tiles[[2]int{x, y}] = true
	}
	for q, d := range pnrzQuadrant {
		cx, cy := 2*x+d[0]+pnrzOffset, 2*y+d[1]+pnrzOffset
		if shown == "" {
			b.pic[cx][cy] = 0
			continue
		}
		b.pic[cx][cy] = pnrzCode(shown[q])
		b.cells = append(b.cells, [2]int{cx, cy})
	}
}

// pnrzShown is the pictures a tile printed as printed (NW, NE, SE, SW) shows in rotation r: printed
// quadrant i is shown at position (i + r) % 4.
func pnrzShown(printed string, r int) string {
	shown := []byte(printed)
	for i := 0; i < 4; i++ {
		shown[(i+r)%4] = printed[i]
	}
	return string(shown)
}

// best is faction f's best section: its characters (1) and bonus items (3) not beside its arch-enemy,
// plus 5 for its base, over pictures of f connected side by side.
func (b *pnrzBoard) best(f int) int {
	b.stamp++
	best := 0
	for _, start := range b.cells {
		if pf, kind := pnrzPicture(b.pic[start[0]][start[1]]); pf != f || kind == 2 || b.seen[start[0]][start[1]] == b.stamp {
			continue
		}
		points, base := 0, false
		b.seen[start[0]][start[1]] = b.stamp
		b.stack = append(b.stack[:0], start)
		for len(b.stack) > 0 {
			c := b.stack[len(b.stack)-1]
			b.stack = b.stack[:len(b.stack)-1]
			_, kind := pnrzPicture(b.pic[c[0]][c[1]])
			negated := false
			for _, d := range pnrzSides {
				n := [2]int{c[0] + d[0], c[1] + d[1]}
				nf, nkind := pnrzPicture(b.pic[n[0]][n[1]])
				if nf != f {
					continue
				}
				if nkind == 2 {
					negated = true
				} else if b.seen[n[0]][n[1]] != b.stamp {
					b.seen[n[0]][n[1]] = b.stamp
					b.stack = append(b.stack, n)
				}
			}
			switch {
			case kind == 3:
				base = true
			case kind == 1 && !negated:
				points += 3
			case kind == 0 && !negated:
				points++
			}
		}
		if base {
			points += 5
		}
		if points > best {
			best = points
		}
	}
	return best
}

// scores is every faction's best section (by PnrzFaction, 1..4).
func (b *pnrzBoard) scores() (score [5]int) {
	for f := 1; f <= 4; f++ {
		score[f] = b.best(f)
	}
	return score
}

// value is the bot's factions' best sections minus pnrzOpponentWeight times the strongest opponent's.
func pnrzValue(obs *arenav1.PnrzObservation, score [5]int) float64 {
	own, other := 0, 0
	for _, p := range obs.GetPlayers() {
		total := 0
		for _, f := range p.GetFactions() {
			total += score[f]
		}
		if p.GetSeat() == obs.GetSeat() {
			own = total
		} else if total > other {
			other = total
		}
	}
	return float64(own) - pnrzOpponentWeight*float64(other)
}

// frontier is every empty position beside a tile in play, by row then column ((0, 0) on an empty board).
func (b *pnrzBoard) frontier() [][2]int {
	if len(b.tiles) == 0 {
		return [][2]int{{0, 0}}
	}
	var out [][2]int
	seen := map[[2]int]bool{}
	for t := range b.tiles {
		for _, d := range pnrzSides {
			n := [2]int{t[0] + d[0], t[1] + d[1]}
			if !b.tiles[n] && !seen[n] {
				seen[n] = true
				out = append(out, n)
			}
		}
	}
	sortPositions(out)
	return out
}

// pnrzPlay scores putting tile (printed pictures) at (x, y) in rotation r: the board value after it, with
// the builder's tie-breaks: own pictures facing free positions keep a section open, and a base is
// worth most where it joins a section.
// Only the sections of the factions the tile shows (friends join them, arch-enemies negate them) change:
// the others keep their score in before.
func (s *strategy) pnrzPlay(obs *arenav1.PnrzObservation, b *pnrzBoard, before [5]int, id uint32, printed string, x, y, r int) float64 {
	if len(printed) != 4 {
		return -1e9 // a tile never seen in the hand
	}
	shown, cells, after := pnrzShown(printed, r), len(b.cells), before
	b.put(x, y, shown)
	for q := 0; q < 4; q++ {
		if f, _ := pnrzPicture(pnrzCode(shown[q])); f > 0 {
			after[f] = b.best(f)
		}
	}
	gain := pnrzValue(obs, after) - pnrzValue(obs, before)
	b.put(x, y, "")
	b.cells = b.cells[:cells]
	mine := map[int]bool{}
	for _, f := range obs.GetFactions() {
		mine[int(f)] = true
	}
	open := 0
	for q, d := range pnrzQuadrant {
		if f, kind := pnrzPicture(pnrzCode(shown[q])); !mine[f] || kind == 2 {
			continue
		}
		side := [2]int{x + 2*d[0] - 1, y + 2*d[1] - 1} // the neighbours this quadrant faces
		if !b.tiles[[2]int{side[0], y}] {
			open++
		}
		if !b.tiles[[2]int{x, side[1]}] {
			open++
		}
	}
	score := gain + 0.1*float64(open)
	if id >= 55 && gain <= 0 {
		score -= 1 // a base is worth most where it joins a section
	}
	return score
}

// pnrz: choose factions, select a hand tile, place it, take the icon's extra action or skip it.
func (s *strategy) pnrz(obs *arenav1.PnrzObservation, legal []*arenav1.Action) int {
	// YOUR LOGIC. obs.Board holds every tile in play (shown pictures after rotation), obs.Hand this
	// seat's tiles (pictures as printed), obs.Players every seat's factions.
	for _, tile := range obs.GetHand() {
		s.pnrzTiles[tile.GetId()] = tile.GetPictures()
	}
	switch obs.GetPhase() {
	case arenav1.PnrzPhase_PNRZ_PHASE_CHOOSE:
		// Spread the seats over the factions on offer, to avoid clashes.
		return int(obs.GetSeat()+uint32(len(obs.GetFactions()))) % len(legal)
	case arenav1.PnrzPhase_PNRZ_PHASE_PLAY:
		return s.pnrzSelect(obs, legal)
	case arenav1.PnrzPhase_PNRZ_PHASE_PLACE:
		return s.pnrzPlace(obs, legal)
	case arenav1.PnrzPhase_PNRZ_PHASE_ACTION:
		return s.pnrzExtra(obs, legal)
	}
	// MOVE, SWAP, ORIENT, REPLACE: this strategy never starts a base move, a swap or a replace.
	return 0
}

// pnrzSelect picks the hand tile with the best play anywhere; with no tile in hand it passes.
func (s *strategy) pnrzSelect(obs *arenav1.PnrzObservation, legal []*arenav1.Action) int {
	b := newPnrzBoard(obs.GetBoard())
	before := b.scores()
	spots := b.frontier()
	best, bestScore, pass := -1, 0.0, 0
	for i, action := range legal {
		switch kind := action.GetPnrz().GetKind().(type) {
		case *arenav1.PnrzAction_PassTurn:
			pass = i
		case *arenav1.PnrzAction_SelectTile:
			id := kind.SelectTile.GetTileId()
			printed, rotations := s.pnrzTiles[id], 4
			if id >= 55 {
				rotations = 1 // a base has one rotation
			}
			for _, spot := range spots {
				for r := 0; r < rotations; r++ {
					if score := s.pnrzPlay(obs, b, before, id, printed, spot[0], spot[1], r); best < 0 || score > bestScore {
						best, bestScore = i, score
					}
				}
			}
		}
	}
	if best < 0 {
		return pass // an empty hand: pass (moving a base is left to you)
	}
	return best
}

// pnrzPlace puts the selected tile (obs.Pending[0]) at its best legal position and rotation.
func (s *strategy) pnrzPlace(obs *arenav1.PnrzObservation, legal []*arenav1.Action) int {
	b := newPnrzBoard(obs.GetBoard())
	before := b.scores()
	id := obs.GetPending()[0]
	best, bestScore := 0, 0.0
	for i, action := range legal {
		place := action.GetPnrz().GetPlaceTile()
		score := s.pnrzPlay(obs, b, before, id, s.pnrzTiles[id], int(place.GetX()), int(place.GetY()), int(place.GetRotation()))
		if i == 0 || score > bestScore {
			best, bestScore = i, score
		}
	}
	return best
}

// pnrzExtra rotates a tile in play when that raises the board value, and skips every other extra action.
func (s *strategy) pnrzExtra(obs *arenav1.PnrzObservation, legal []*arenav1.Action) int {
	skip := 0
	for i, action := range legal {
		if action.GetPnrz().GetSkipAction() != nil {
			skip = i
		}
	}
	if obs.GetIcon() != arenav1.PnrzIcon_PNRZ_ICON_ROTATE {
		return skip
	}
	where := map[uint32]*arenav1.PnrzPlacedTile{}
	for _, p := range obs.GetBoard() {
		where[p.GetTileId()] = p
	}
	b := newPnrzBoard(obs.GetBoard())
	cells := len(b.cells)
	best, bestValue := skip, pnrzValue(obs, b.scores())+1e-9
	for i, action := range legal {
		rotate := action.GetPnrz().GetRotateTile()
		p := where[rotate.GetTileId()]
		if rotate == nil || p == nil {
			continue
		}
		// The shown pictures turned from the current rotation to the new one.
		turn := (int(rotate.GetRotation()) - int(p.GetRotation()) + 4) % 4
		x, y := int(p.GetX()), int(p.GetY())
		b.put(x, y, pnrzShown(p.GetShown(), turn))
		if v := pnrzValue(obs, b.scores()); v > bestValue {
			best, bestValue = i, v
		}
		b.put(x, y, p.GetShown())
		b.cells = b.cells[:cells]
	}
	return best
}
