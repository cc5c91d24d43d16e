// The bot author's file: what the bot remembers and how it chooses, one function per game. Every
// function returns an index into legal (never empty, sorted; each entry an Action of that game), before
// deadline. Each starts as a legal random choice; replace the body marked YOUR LOGIC with your own.
package main

import (
	"fmt"
	"math/rand"
	"os"
	"time"

	arenav1 "github.com/arena/arena/gen/go/arenav1"
)

// strategy is the bot's memory across the messages of one stream (several matches may follow).
type strategy struct {
	rng   *rand.Rand
	start *arenav1.MatchStart // the current match: game, seat, players, deadline
}

func newStrategy() *strategy {
	return &strategy{rng: rand.New(rand.NewSource(time.Now().UnixNano()))}
}

func (s *strategy) matchStart(start *arenav1.MatchStart) {
	s.start = start
}

// event sees every public event (cards revealed, dice rolled, ...) before the decision that follows it.
func (s *strategy) event(event *arenav1.Event) {
	// YOUR LOGIC: remember what the other seats did (event.GetNinjan(), event.GetPnrz(), ...).
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
	switch game := observation.Game.(type) {
	case *arenav1.Observation_Ninjan:
		return s.ninjan(game.Ninjan, legal, deadline)
	case *arenav1.Observation_NinjaBurger:
		return s.ninjaBurger(game.NinjaBurger, legal, deadline)
	case *arenav1.Observation_Pnrz:
		return s.pnrz(game.Pnrz, legal, deadline)
	case *arenav1.Observation_NinjaMaster:
		return s.ninjaMaster(game.NinjaMaster, legal, deadline)
	}
	return s.rng.Intn(len(legal)) // a game newer than this bot: any legal action
}

// ninjan: commit a card (PlayCard), then take (TakePile) or place on (PlacePile) a pile.
func (s *strategy) ninjan(obs *arenav1.NinjanObservation, legal []*arenav1.Action, deadline time.Time) int {
	// YOUR LOGIC. The example takes the richest pile it may take: every pile's cards are in obs.Piles.
	best, bestValue := -1, int32(0)
	for i, action := range legal {
		take := action.GetNinjan().GetTakePile()
		if take == nil {
			continue
		}
		value := int32(0)
		for _, card := range obs.Piles[take.Pile].Cards {
			value += card.Value
		}
		if best < 0 || value > bestValue {
			best, bestValue = i, value
		}
	}
	if best >= 0 {
		return best
	}
	return s.rng.Intn(len(legal))
}

// ninjaBurger: choose a ninja, attend meetings, force trades, choose each check's skill, play fortune
// cards or decline. obs.Mission and obs.Checks describe the mission under way.
func (s *strategy) ninjaBurger(obs *arenav1.NinjaBurgerObservation, legal []*arenav1.Action, deadline time.Time) int {
	// YOUR LOGIC.
	return s.rng.Intn(len(legal))
}

// pnrz: choose factions, select a hand tile, place it (x, y, rotation), take the icon's extra action
// or skip it. obs.Board holds every tile in play, obs.Hand this seat's tiles.
func (s *strategy) pnrz(obs *arenav1.PnrzObservation, legal []*arenav1.Action, deadline time.Time) int {
	// YOUR LOGIC.
	return s.rng.Intn(len(legal))
}

// ninjaMaster: in each tick grab a component, call a number or wait. obs.Dice is the roll and
// obs.Components says who holds what.
func (s *strategy) ninjaMaster(obs *arenav1.NinjaMasterObservation, legal []*arenav1.Action, deadline time.Time) int {
	// YOUR LOGIC.
	return s.rng.Intn(len(legal))
}
