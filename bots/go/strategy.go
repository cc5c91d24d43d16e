// The bot author's part: what the bot remembers and how it chooses. choose hands each decision to the
// function of its game, one file per game (ninjan.go, ninja_burger.go, pnrz.go, ninja_master.go); each
// returns an index into legal (never empty, sorted; each entry an Action of that game) before
// s.deadline. Each starts with a simple, sound strategy that beats the built-in random bot; replace the
// parts marked YOUR LOGIC with your own.
package main

import (
	"fmt"
	"hash/fnv"
	"math/rand"
	"os"
	"sort"
	"time"

	arenav1 "github.com/arena/arena/gen/go/arenav1"
)

// strategy is the bot's memory across the messages of one stream (several matches may follow).
type strategy struct {
	rng      *rand.Rand
	start    *arenav1.MatchStart // the current match: game, seat, players, deadline
	deadline time.Time           // when the current decision's answer is due

	// Ninja Burger: the observations name ninja cards and items by id; the cards come once, in the
	// NinjasChosen event, the hand and the plays on a check.
	nbNinjas map[uint32]*arenav1.NinjaBurgerNinjaCard   // by seat
	nbCards  map[uint32]*arenav1.NinjaBurgerFortuneCard // fortune cards seen, by id
	// Pnrz: the pictures (as printed) of every tile seen in the hand, by id.
	pnrzTiles map[uint32]string
}

func newStrategy() *strategy {
	s := &strategy{}
	s.matchStart(&arenav1.MatchStart{})
	return s
}

// matchStart forgets the previous match. The random generator (for your own use) is seeded by the match
// id, so a seeded series plays the same way every time.
func (s *strategy) matchStart(start *arenav1.MatchStart) {
	s.start = start
	h := fnv.New64a()
	h.Write([]byte(start.GetMatchId()))
	s.rng = rand.New(rand.NewSource(int64(h.Sum64())))
	s.nbNinjas = map[uint32]*arenav1.NinjaBurgerNinjaCard{}
	s.nbCards = map[uint32]*arenav1.NinjaBurgerFortuneCard{}
	s.pnrzTiles = map[uint32]string{}
}

// event sees every public event (cards revealed, dice rolled, ...) before the decision that follows it.
func (s *strategy) event(event *arenav1.Event) {
	// YOUR LOGIC: remember what the other seats did (event.GetNinjan(), event.GetPnrz(), ...).
	if chosen := event.GetNinjaBurger().GetNinjasChosen(); chosen != nil {
		for seat, ninja := range chosen.GetNinjas() {
			s.nbNinjas[uint32(seat)] = ninja
		}
	}
}

func (s *strategy) result(result *arenav1.MatchResult) {
	for _, p := range result.Players {
		if p.Seat == s.start.GetSeat() {
			fmt.Fprintf(os.Stderr, "go bot: match %s over: rank %d, score %d\n", result.MatchId, p.Rank, p.Score)
		}
	}
}

// choose hands the decision to the function of the game being played.
func (s *strategy) choose(observation *arenav1.Observation, legal []*arenav1.Action, deadline time.Time) int {
	s.deadline = deadline
	switch game := observation.Game.(type) {
	case *arenav1.Observation_Ninjan:
		return s.ninjan(game.Ninjan, legal)
	case *arenav1.Observation_NinjaBurger:
		return s.ninjaBurger(game.NinjaBurger, legal)
	case *arenav1.Observation_Pnrz:
		return s.pnrz(game.Pnrz, legal)
	case *arenav1.Observation_NinjaMaster:
		return s.ninjaMaster(game.NinjaMaster, legal)
	}
	return s.rng.Intn(len(legal)) // a game newer than this bot: any legal action
}

func sortDescending(values []float64) {
	sort.Sort(sort.Reverse(sort.Float64Slice(values)))
}

// sortPositions orders (x, y) positions as the board is drawn: by row (y), then column (x).
func sortPositions(positions [][2]int) {
	sort.Slice(positions, func(i, j int) bool {
		if positions[i][1] != positions[j][1] {
			return positions[i][1] < positions[j][1]
		}
		return positions[i][0] < positions[j][0]
	})
}
