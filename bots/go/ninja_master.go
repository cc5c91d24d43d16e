// Ninja Master (docs/rules/ninja-master.md): in each tick grab a component, call the number of ninjas
// or wait. Everything is public, the dice included, so the right call is always known. The default
// strategy (after the built-in `master` bot): it values every free component from the dice, expects
// each opponent to grab what is worth most to it, grabs the best expected value, and calls the (always
// right) total when no grab is worth more than the call.
package main

import (
	arenav1 "github.com/arena/arena/gen/go/arenav1"
)

const (
	nmHands      = 2   // components a seat may hold
	nmCallBonus  = 1.0 // VP for a right call
	nmCutPenalty = 3.0 // VP lost by grabbing the sword when swords do not outnumber shurikens
	nmSwing      = 1.5 // weight of sword VP, which move from the holder to the thief (both sides count)
	nmDenial     = 0.5 // share of the positive components left to the opponents that a call denies
)

// nmRoll is what the dice say: the value of each ninja token, the swords and shurikens, the right call.
type nmRoll struct {
	token     [6]float64 // by colour 1..5: the token of that colour scores this much
	swordWins bool       // more swords than shurikens: the sword can be stolen (or defended)
	total     uint32     // ninja symbols of every colour: the right call
}

func nmSummarize(dice []*arenav1.NinjaMasterFace) nmRoll {
	var ninjas, smokes [6]int
	var roll nmRoll
	swords, shurikens := 0, 0
	for _, face := range dice {
		switch face.GetSymbol() {
		case arenav1.NinjaMasterSymbol_NINJA_MASTER_SYMBOL_NINJA:
			ninjas[face.GetColour()] += int(face.GetNinjas())
			roll.total += face.GetNinjas()
		case arenav1.NinjaMasterSymbol_NINJA_MASTER_SYMBOL_SMOKE:
			smokes[face.GetColour()]++
		case arenav1.NinjaMasterSymbol_NINJA_MASTER_SYMBOL_SWORD:
			swords++
		case arenav1.NinjaMasterSymbol_NINJA_MASTER_SYMBOL_SHURIKEN:
			shurikens++
		}
	}
	for colour := 1; colour <= 5; colour++ {
		roll.token[colour] = float64(ninjas[colour])
		if smokes[colour] == 1 { // exactly one smoke of the colour: a penalty instead
			roll.token[colour] = -roll.token[colour]
		}
	}
	roll.swordWins = swords > shurikens
	return roll
}

// nmValue is what grabbing component is worth to seat (-1: to an opponent of this bot, for whom a
// theft from another opponent hardly matters). Ninja tokens and colours share their numbering: token
// NINJA_MASTER_COMPONENT_ORANGE_NINJA (1) has colour NINJA_MASTER_COLOUR_ORANGE (1), and so on to 5.
func nmValue(component arenav1.NinjaMasterComponent, seat int, roll nmRoll, obs *arenav1.NinjaMasterObservation) float64 {
	if component != arenav1.NinjaMasterComponent_NINJA_MASTER_COMPONENT_SWORD {
		return roll.token[component]
	}
	if !roll.swordWins {
		return -nmCutPenalty
	}
	holder := obs.GetSwordHolder()
	if seat < 0 && holder != obs.GetSeat() {
		return 0
	}
	return nmSwing * float64(obs.GetPlayers()[holder].GetScore()/2)
}

// ninjaMaster: in each tick grab a component, call a number or wait. Legal actions: Wait, then the
// grabs (with a free hand), then the calls 0..27 (once anyone holds a component).
func (s *strategy) ninjaMaster(obs *arenav1.NinjaMasterObservation, legal []*arenav1.Action) int {
	// YOUR LOGIC. obs.Dice is the roll, obs.Components says who holds what (in component order).
	roll := nmSummarize(obs.GetDice())
	me := obs.GetSeat()
	wait, call := -1, -1
	grab := map[arenav1.NinjaMasterComponent]int{} // legal grabs: component -> index
	for i, action := range legal {
		switch kind := action.GetNinjaMaster().GetKind().(type) {
		case *arenav1.NinjaMasterAction_Wait:
			wait = i
		case *arenav1.NinjaMasterAction_Grab:
			grab[kind.Grab.GetComponent()] = i
		case *arenav1.NinjaMasterAction_Call:
			if kind.Call.GetNumber() == roll.total {
				call = i
			}
		}
	}
	if wait < 0 {
		wait = 0
	}
	held := map[uint32]int{} // seat -> components held
	var free []arenav1.NinjaMasterComponent
	for _, h := range obs.GetComponents() {
		if h.Holder == nil {
			free = append(free, h.GetComponent())
		} else {
			held[h.GetHolder()]++
		}
	}
	freeHands := nmHands - held[me]
	if freeHands <= 0 { // calling is voice, not hands: call or wait
		if call >= 0 {
			return call
		}
		return wait
	}

	// What each opponent goes for: the free component worth most to it. An opponent with nothing worth
	// grabbing, or with both hands full, is a likely caller.
	wanted := map[arenav1.NinjaMasterComponent]int{}
	freeHanded, idle := 0, 0
	for _, p := range obs.GetPlayers() {
		if !p.GetContending() || p.GetSeat() == me {
			continue
		}
		best, bestValue := arenav1.NinjaMasterComponent(0), 0.0
		if nmHands-held[p.GetSeat()] > 0 {
			freeHanded++
			for _, c := range free {
				if v := nmValue(c, int(p.GetSeat()), roll, obs); v > bestValue {
					best, bestValue = c, v
				}
			}
		}
		if best == 0 {
			idle++
		} else {
			wanted[best]++
		}
	}

	// The best grab by expected value: a grab contested by k others is won with chance 1/(1+k).
	bestGrab, bestGrabValue := -1, 0.0
	for _, c := range free {
		i, ok := grab[c]
		v := nmValue(c, int(me), roll, obs)
		if !ok || v <= 0 {
			continue
		}
		if ev := v / float64(1+wanted[c]); bestGrab < 0 || ev > bestGrabValue {
			bestGrab, bestGrabValue = i, ev
		}
	}
	if call >= 0 {
		// A call ends the round: it denies the opponents the positive components they could still take.
		var left []float64
		for _, c := range free {
			if wanted[c] == 0 {
				if v := nmValue(c, -1, roll, obs); v > 0 {
					left = append(left, v)
				}
			}
		}
		sortDescending(left)
		denial := 0.0
		for i := 0; i < len(left) && i < freeHanded; i++ {
			denial += nmDenial * left[i]
		}
		callValue := nmCallBonus/float64(1+idle) + denial
		if bestGrab < 0 || (freeHands == 1 && bestGrabValue < callValue) {
			return call
		}
		if freeHands == nmHands && bestGrabValue < callValue-nmCallBonus {
			return call
		}
	}
	if bestGrab >= 0 {
		return bestGrab
	}
	return wait
}
