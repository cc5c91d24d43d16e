// Ninjan (docs/rules/ninjan.md): commit a card each round, then take a pile or place the card.
// The default strategy is greedy (the built-in `greedy` bot's rules): it commits the card with the best
// immediate trade-off, takes the richest pile it can and places on the poorest.
package main

import (
	arenav1 "github.com/arena/arena/gen/go/arenav1"
)

// ninjanAttacker is the suit that beats each suit: rock beats scissors, scissors beat paper, paper
// beats rock.
var ninjanAttacker = map[arenav1.NinjanSuit]arenav1.NinjanSuit{
	arenav1.NinjanSuit_NINJAN_SUIT_SCISSORS: arenav1.NinjanSuit_NINJAN_SUIT_ROCK,
	arenav1.NinjanSuit_NINJAN_SUIT_PAPER:    arenav1.NinjanSuit_NINJAN_SUIT_SCISSORS,
	arenav1.NinjanSuit_NINJAN_SUIT_ROCK:     arenav1.NinjanSuit_NINJAN_SUIT_PAPER,
}

// ninjanGiveaway is the share of a played card's value an opponent is expected to collect later (a
// played card is never collected by its owner directly).
const ninjanGiveaway = 0.5

func ninjanPileValue(pile *arenav1.NinjanPile) int32 {
	total := int32(0)
	for _, card := range pile.GetCards() {
		total += card.GetValue()
	}
	return total
}

// ninjan: commit a card (PlayCard), then take (TakePile) or place on (PlacePile) a pile. A decision's
// legal actions are all of one kind.
func (s *strategy) ninjan(obs *arenav1.NinjanObservation, legal []*arenav1.Action) int {
	// YOUR LOGIC. Every pile's cards are in obs.Piles (the last card is the top), the round's revealed
	// cards in obs.Revealed (obs.Resolving: the one being resolved), earlier rounds in obs.History.
	piles := obs.GetPiles()
	best, bestScore := 0, 0.0
	for i, action := range legal {
		var score float64
		switch kind := action.GetNinjan().GetKind().(type) {
		case *arenav1.NinjanAction_TakePile: // the richest pile
			score = float64(ninjanPileValue(piles[kind.TakePile.GetPile()]))
		case *arenav1.NinjanAction_PlacePile: // the poorest pile, once the card is on it
			score = -float64(ninjanPileValue(piles[kind.PlacePile.GetPile()]))
		case *arenav1.NinjanAction_PlayCard:
			score = ninjanCommitScore(kind.PlayCard.GetCard(), piles)
		}
		if i == 0 || score > bestScore {
			best, bestScore = i, score
		}
	}
	return best
}

// ninjanCommitScore is the expected net points of committing card this round: the richest pile its suit
// beats now, discounted by how likely that pile is still there when the card resolves (high cards
// resolve first), minus the share of its value it hands to the table.
func ninjanCommitScore(card *arenav1.NinjanCard, piles []*arenav1.NinjanPile) float64 {
	gain, beats := 0.0, false
	for _, pile := range piles {
		cards := pile.GetCards()
		if len(cards) == 0 || ninjanAttacker[cards[len(cards)-1].GetSuit()] != card.GetSuit() {
			continue
		}
		// Taking is mandatory: a card that beats only a poor pile must take it.
		if value := float64(ninjanPileValue(pile)); !beats || value > gain {
			gain, beats = value, true
		}
	}
	value := float64(card.GetValue())
	if gain > 0 {
		survive := 0.35 + 0.65*(value+6)/16 // -6 .. 10: low to high
		return gain*survive - ninjanGiveaway*value
	}
	return gain - ninjanGiveaway*value
}
