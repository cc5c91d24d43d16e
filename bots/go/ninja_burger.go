// Ninja Burger (docs/rules/ninja-burger.md): choose a ninja, attend meetings, force trades, choose each
// check's skill, play fortune cards or decline. A check passes when 3d6 <= skill + modifier + bonuses.
// The default strategy (after the built-in `ninja` bot) works with the exact odds of 3d6: it keeps the
// ninja with the best typical mission, always attends the meeting, forces an Errand on the rival with
// the most honor when a typical mission is worth more, picks the skill with the best chance, and plays
// a card when what it changes in the mission's chance, times what the mission decides for the bot's
// standing, beats what the card is worth kept in hand. Interesting Times go where a rival's failure
// helps the bot most.
package main

import (
	"math"

	arenav1 "github.com/arena/arena/gen/go/arenav1"
)

const (
	nbMoneyPerHonor = 300.0 // dollars the bot trades for one honor point
	nbItemMissions  = 12.0  // future missions a permanent item is assumed to help
	nbLeadBias      = 0.9   // the chance of winning ~ logistic(bias + slope * lead over the best rival)
	nbLeadSlope     = 0.4
	nbHonorAtPar    = 0.09 // one honor point moves that chance about this much near a level game
)

// nbHold is what a card kept in hand is worth, in honor, by effect.
var nbHold = map[arenav1.NinjaBurgerEffect]float64{
	arenav1.NinjaBurgerEffect_NINJA_BURGER_EFFECT_BONUS:       0.25,
	arenav1.NinjaBurgerEffect_NINJA_BURGER_EFFECT_REROLL:      1.0,
	arenav1.NinjaBurgerEffect_NINJA_BURGER_EFFECT_ITEM:        0.05,
	arenav1.NinjaBurgerEffect_NINJA_BURGER_EFFECT_PENALTY:     1.0,
	arenav1.NinjaBurgerEffect_NINJA_BURGER_EFFECT_EXTRA_CHECK: 1.0,
	arenav1.NinjaBurgerEffect_NINJA_BURGER_EFFECT_FINE:        0.1,
}

// nbCDF[t] is the chance that 3d6 totals at most t.
var nbCDF = func() [19]float64 {
	var counts, table [19]float64
	for a := 1; a <= 6; a++ {
		for b := 1; b <= 6; b++ {
			for c := 1; c <= 6; c++ {
				counts[a+b+c]++
			}
		}
	}
	acc := 0.0
	for t := range table {
		acc += counts[t]
		table[t] = acc / 216
	}
	return table
}()

func nbPass(target int32) float64 {
	if target < 3 {
		return 0
	}
	if target > 18 {
		target = 18
	}
	return nbCDF[target]
}

type (
	nbNinja   = arenav1.NinjaBurgerNinjaCard
	nbFortune = arenav1.NinjaBurgerFortuneCard
	nbCheck   = arenav1.NinjaBurgerCheck
	nbSkill   = arenav1.NinjaBurgerSkill
)

// nbSkillValue is the ninja's value in skill: a listed skill's value, else its Other Stuff value, plus 2
// with a PLUS_TWO ability in that skill (the card's values do not include it).
func nbSkillValue(n *nbNinja, skill nbSkill) int32 {
	value := n.GetOtherStuff()
	for i, s := range n.GetSkills() {
		if s == skill {
			value = n.GetValues()[i]
		}
	}
	if nbHasAbility(n, arenav1.NinjaBurgerAbility_NINJA_BURGER_ABILITY_PLUS_TWO, skill) {
		value += 2
	}
	return value
}

func nbHasAbility(n *nbNinja, ability arenav1.NinjaBurgerAbility, skill nbSkill) bool {
	return n.Ability != nil && n.GetAbility() == ability && (n.AbilitySkill == nil || n.GetAbilitySkill() == skill)
}

// nbItemBonus is the bonus the items in play give to a check in skill.
func nbItemBonus(items []*nbFortune, skill nbSkill) int32 {
	total := int32(0)
	for _, item := range items {
		if item.Skill != nil && item.GetSkill() == skill {
			total += item.GetValue()
		}
	}
	return total
}

// nbSkillChance is the chance that n passes one check in skill (its never-fails and reroll abilities
// counted).
func nbSkillChance(n *nbNinja, skill nbSkill, modifier, bonus int32) float64 {
	if nbHasAbility(n, arenav1.NinjaBurgerAbility_NINJA_BURGER_ABILITY_NEVER_FAILS, skill) {
		return 1
	}
	p := nbPass(nbSkillValue(n, skill) + modifier + bonus)
	if nbHasAbility(n, arenav1.NinjaBurgerAbility_NINJA_BURGER_ABILITY_REROLL, skill) {
		p = 1 - (1-p)*(1-p)
	}
	return p
}

// nbCheckChance is the chance of passing check with the best of its skills.
func nbCheckChance(n *nbNinja, check *nbCheck, items []*nbFortune) float64 {
	best := 0.0
	for _, skill := range check.GetSkills() {
		best = math.Max(best, nbSkillChance(n, skill, check.GetModifier(), nbItemBonus(items, skill)))
	}
	return best
}

func nbMissionChance(n *nbNinja, checks []*nbCheck, items []*nbFortune) float64 {
	p := 1.0
	for _, check := range checks {
		p *= nbCheckChance(n, check, items)
	}
	return p
}

func nbMissionValue(n *nbNinja, m *arenav1.NinjaBurgerMissionCard, items []*nbFortune) float64 {
	p := nbMissionChance(n, m.GetChecks(), items)
	win := float64(m.GetRewardHonor()) + float64(m.GetRewardMoney())/nbMoneyPerHonor
	lose := float64(m.GetPenaltyHonor()) + float64(m.GetPenaltyMoney())/nbMoneyPerHonor
	return p*win - (1-p)*lose
}

// nbTypicalValue is the expected honor of a typical mission for n: about 2.4 checks, each in one skill
// (a third of them) or the better of two (the rest), a reward of 2 honor, a penalty of 1. A bot that
// wants the exact figure can learn the deck: every revealed mission is in the observations.
func nbTypicalValue(n *nbNinja, items []*nbFortune) float64 {
	var chance [7]float64
	for s := range chance {
		skill := nbSkill(s + 1)
		chance[s] = nbSkillChance(n, skill, 0, nbItemBonus(items, skill))
	}
	single, pair := 0.0, 0.0
	for i := range chance {
		single += chance[i] / 7
		for j := i + 1; j < len(chance); j++ {
			pair += math.Max(chance[i], chance[j]) / 21
		}
	}
	p := math.Pow(0.35*single+0.65*pair, 2.4)
	return p*2.05 - (1-p)*1.05
}

// nbEnds says whether a table at honor (by seat) is over: the total at 10 times the players or more,
// or 4 times or less.
func nbEnds(honor []int32) bool {
	total := int32(0)
	for _, h := range honor {
		total += h
	}
	n := int32(len(honor))
	return total >= 10*n || total <= 4*n
}

// nbStanding is the chance that seat finishes first alone from honor, in honor points: won or lost
// outright where the game ends, else a logistic curve in its lead over the best rival.
func nbStanding(seat uint32, honor []int32) float64 {
	lead, first := int32(0), true
	for s, h := range honor {
		if uint32(s) != seat && (first || honor[seat]-h < lead) {
			lead, first = honor[seat]-h, false
		}
	}
	if nbEnds(honor) {
		if lead > 0 {
			return 1 / nbHonorAtPar
		}
		return 0
	}
	return 1 / (1 + math.Exp(-(nbLeadBias + nbLeadSlope*float64(lead)))) / nbHonorAtPar
}

// ninjaBurger: choose a ninja, attend meetings, force trades, choose each check's skill, play fortune
// cards or decline.
func (s *strategy) ninjaBurger(obs *arenav1.NinjaBurgerObservation, legal []*arenav1.Action) int {
	// YOUR LOGIC. obs.Mission is this seat's mission, obs.Checks / obs.CheckIndex / obs.Plays the
	// check under way; a seat's ninja card is only an id in obs.Players after the choice: the cards are
	// in the NinjasChosen event (kept in s.nbNinjas by event()).
	for _, card := range obs.GetHand() {
		s.nbCards[card.GetId()] = card
	}
	for _, play := range obs.GetPlays() {
		s.nbCards[play.GetCard().GetId()] = play.GetCard()
	}
	nb := &nbDecision{s: s, obs: obs, legal: legal}
	switch obs.GetPhase() {
	case arenav1.NinjaBurgerPhase_NINJA_BURGER_PHASE_CHOOSE_NINJA:
		return nb.chooseNinja()
	case arenav1.NinjaBurgerPhase_NINJA_BURGER_PHASE_MEETING:
		return nb.find(func(a *arenav1.NinjaBurgerAction) bool { return a.GetAttend().GetAttend() })
	case arenav1.NinjaBurgerPhase_NINJA_BURGER_PHASE_TRADE:
		return nb.trade()
	case arenav1.NinjaBurgerPhase_NINJA_BURGER_PHASE_CHOOSE_SKILL:
		return nb.chooseSkill()
	case arenav1.NinjaBurgerPhase_NINJA_BURGER_PHASE_REROLL:
		return nb.reroll()
	case arenav1.NinjaBurgerPhase_NINJA_BURGER_PHASE_WINDOW:
		if obs.GetActive() == obs.GetSeat() {
			return nb.helpMyself()
		}
		return nb.hinder()
	}
	return 0
}

// nbDecision is one decision's view: the observation, the legal actions and the cards the bot knows.
type nbDecision struct {
	s     *strategy
	obs   *arenav1.NinjaBurgerObservation
	legal []*arenav1.Action
}

// find is the index of the first legal action that matches, else of the first Decline (else 0).
func (d *nbDecision) find(match func(*arenav1.NinjaBurgerAction) bool) int {
	decline := 0
	for i, action := range d.legal {
		if match(action.GetNinjaBurger()) {
			return i
		}
		if action.GetNinjaBurger().GetDecline() != nil {
			decline = i
		}
	}
	return decline
}

func (d *nbDecision) decline() int {
	return d.find(func(*arenav1.NinjaBurgerAction) bool { return false })
}

// ninja is seat's ninja card; nil if the bot has not seen it.
func (d *nbDecision) ninja(seat uint32) *nbNinja {
	return d.s.nbNinjas[seat]
}

// items is seat's Ninja Stuff in play, those the bot has seen (observations name them by id).
func (d *nbDecision) items(seat uint32) []*nbFortune {
	var out []*nbFortune
	for _, id := range d.obs.GetPlayers()[seat].GetItems() {
		if card := d.s.nbCards[id]; card != nil {
			out = append(out, card)
		}
	}
	return out
}

// played is the Good Fortune bonuses minus the Interesting Times penalties played on this check.
func (d *nbDecision) played() int32 {
	total := int32(0)
	for _, play := range d.obs.GetPlays() {
		switch play.GetCard().GetEffect() {
		case arenav1.NinjaBurgerEffect_NINJA_BURGER_EFFECT_BONUS:
			total += play.GetCard().GetValue()
		case arenav1.NinjaBurgerEffect_NINJA_BURGER_EFFECT_PENALTY:
			total -= play.GetCard().GetValue()
		}
	}
	return total
}

// current is the active ninja's chance on the current check with the best skill it may still pick,
// with extra bonus.
func (d *nbDecision) current(n *nbNinja, items []*nbFortune, extra int32) float64 {
	index := d.obs.GetCheckIndex()
	check := d.obs.GetChecks()[index]
	skills := check.GetSkills()
	if plan := d.obs.GetPlan(); uint32(len(plan)) > index {
		skills = plan[index : index+1] // the skill is chosen
	}
	best := 0.0
	for _, skill := range skills {
		best = math.Max(best, nbSkillChance(n, skill, check.GetModifier(), nbItemBonus(items, skill)+d.played()+extra))
	}
	return best
}

// stake is what the current check of seat's mission is worth to the bot: its standing after the
// mission succeeds minus after it fails, times the chance of passing the checks after this one.
// Positive on its own mission; on a rival's, usually negative (what hindering it is worth).
func (d *nbDecision) stake(seat uint32) float64 {
	mission := d.obs.GetPlayers()[seat].GetMission()
	honor := make([]int32, len(d.obs.GetPlayers()))
	for i, p := range d.obs.GetPlayers() {
		honor[i] = p.GetHonor()
	}
	won := append([]int32(nil), honor...)
	lost := append([]int32(nil), honor...)
	won[seat] += mission.GetRewardHonor()
	penalty := mission.GetPenaltyHonor()
	if penalty > honor[seat] {
		penalty = honor[seat]
	}
	lost[seat] -= penalty
	me := d.obs.GetSeat()
	swing := nbStanding(me, won) - nbStanding(me, lost)
	if seat == me {
		swing += float64(mission.GetRewardMoney()+mission.GetPenaltyMoney()) / nbMoneyPerHonor
	}
	rest := d.obs.GetChecks()[d.obs.GetCheckIndex()+1:]
	return swing * nbMissionChance(d.ninja(seat), rest, d.items(seat))
}

// chooseNinja keeps the dealt ninja with the best typical mission (and the salary ability's money).
func (d *nbDecision) chooseNinja() int {
	byID := map[uint32]*nbNinja{}
	for _, n := range d.obs.GetNinjaOptions() {
		byID[n.GetId()] = n
	}
	best, bestValue := 0, 0.0
	for i, action := range d.legal {
		n := byID[action.GetNinjaBurger().GetChooseNinja().GetNinja()]
		if n == nil {
			continue
		}
		value := nbTypicalValue(n, nil)
		if n.GetAbility() == arenav1.NinjaBurgerAbility_NINJA_BURGER_ABILITY_SALARY {
			value += 50 / nbMoneyPerHonor
		}
		if i == 0 || value > bestValue {
			best, bestValue = i, value
		}
	}
	if n := byID[d.legal[best].GetNinjaBurger().GetChooseNinja().GetNinja()]; n != nil {
		d.s.nbNinjas[d.obs.GetSeat()] = n // the observations give only its id from now on
	}
	return best
}

// trade forces the Errand on the eligible rival with the most honor when a typical mission is worth more.
func (d *nbDecision) trade() int {
	me := d.obs.GetSeat()
	n, mission := d.ninja(me), d.obs.GetMission()
	if n == nil || mission == nil {
		return d.decline()
	}
	keep := nbMissionValue(n, mission, d.items(me))
	unseen := (44*nbTypicalValue(n, d.items(me)) + 12*0.5) / 56 // 44 missions, 12 Errands
	if unseen <= keep {
		return d.decline()
	}
	best, bestHonor := d.decline(), int32(-1)
	for i, action := range d.legal {
		if trade := action.GetNinjaBurger().GetForceTrade(); trade != nil {
			if honor := d.obs.GetPlayers()[trade.GetTarget()].GetHonor(); honor > bestHonor {
				best, bestHonor = i, honor
			}
		}
	}
	return best
}

// chooseSkill picks the skill with the best chance (items and played cards included), sparing a
// single-use item on a tie.
func (d *nbDecision) chooseSkill() int {
	me := d.obs.GetSeat()
	n, items := d.ninja(me), d.items(me)
	if n == nil {
		return 0
	}
	check := d.obs.GetChecks()[d.obs.GetCheckIndex()]
	best, bestScore := 0, -1.0
	for i, action := range d.legal {
		skill := action.GetNinjaBurger().GetChooseSkill().GetSkill()
		score := nbSkillChance(n, skill, check.GetModifier(), nbItemBonus(items, skill)+d.played())
		for _, item := range items {
			if item.GetSingleUse() && item.Skill != nil && item.GetSkill() == skill {
				score -= 1e-6
			}
		}
		if score > bestScore {
			best, bestScore = i, score
		}
	}
	return best
}

// reroll plays a reroll card when the mission it saves is worth more than keeping the card.
func (d *nbDecision) reroll() int {
	me := d.obs.GetSeat()
	n := d.ninja(me)
	if n == nil {
		return d.decline()
	}
	p := d.current(n, d.items(me), 0)
	if p*d.stake(me) > nbHold[arenav1.NinjaBurgerEffect_NINJA_BURGER_EFFECT_REROLL] {
		return d.find(func(a *arenav1.NinjaBurgerAction) bool { return a.GetPlayFortune() != nil })
	}
	return d.decline()
}

// helpMyself plays the bonus or buys the item that adds the most beyond what the card is worth in hand
// (an item counts its help in later missions and its price).
func (d *nbDecision) helpMyself() int {
	me := d.obs.GetSeat()
	n, items := d.ninja(me), d.items(me)
	if n == nil || d.obs.GetPlayers()[me].GetMission() == nil {
		return d.decline()
	}
	base, stake := d.current(n, items, 0), d.stake(me)
	best, bestGain := d.decline(), 0.0
	for i, action := range d.legal {
		play := action.GetNinjaBurger().GetPlayFortune()
		card := d.s.nbCards[play.GetCard()]
		if play == nil || card == nil {
			continue
		}
		var gain float64
		if card.GetEffect() == arenav1.NinjaBurgerEffect_NINJA_BURGER_EFFECT_BONUS {
			gain = (d.current(n, items, card.GetValue()) - base) * stake
		} else if card.GetEffect() == arenav1.NinjaBurgerEffect_NINJA_BURGER_EFFECT_ITEM {
			with := append(append([]*nbFortune(nil), items...), card)
			gain = (d.current(n, with, 0) - base) * stake
			if !card.GetSingleUse() {
				gain += nbItemMissions * (nbTypicalValue(n, with) - nbTypicalValue(n, items))
			}
			gain -= float64(card.GetPrice()) / nbMoneyPerHonor
		} else {
			continue // a reroll waits for a failed roll
		}
		if gain -= nbHold[card.GetEffect()]; gain > bestGain {
			best, bestGain = i, gain
		}
	}
	return best
}

// hinder plays the Interesting Times card whose harm to the bot's standing beats its hold value: the
// harm is measured on the bot's standing, so the cards are saved for the leader.
func (d *nbDecision) hinder() int {
	active := d.obs.GetActive()
	victim := d.obs.GetPlayers()[active]
	n, items := d.ninja(active), d.items(active)
	if n == nil || victim.GetMission() == nil {
		return d.decline()
	}
	now, stake := d.current(n, items, 0), -d.stake(active)
	top := int32(math.MinInt32)
	for _, p := range d.obs.GetPlayers() {
		if p.GetSeat() != d.obs.GetSeat() && p.GetHonor() > top {
			top = p.GetHonor()
		}
	}
	best, bestHarm := d.decline(), 0.0
	for i, action := range d.legal {
		play := action.GetNinjaBurger().GetPlayFortune()
		card := d.s.nbCards[play.GetCard()]
		if play == nil || card == nil {
			continue
		}
		var harm float64
		switch card.GetEffect() {
		case arenav1.NinjaBurgerEffect_NINJA_BURGER_EFFECT_PENALTY:
			harm = (now - d.current(n, items, -card.GetValue())) * stake
		case arenav1.NinjaBurgerEffect_NINJA_BURGER_EFFECT_EXTRA_CHECK:
			extra := &nbCheck{Skills: []nbSkill{card.GetSkill()}, Modifier: card.GetValue()}
			harm = now * (1 - nbCheckChance(n, extra, items)) * stake
		case arenav1.NinjaBurgerEffect_NINJA_BURGER_EFFECT_FINE:
			if victim.GetHonor() == top {
				harm = math.Min(float64(card.GetValue()), float64(victim.GetMoney())) / nbMoneyPerHonor
			}
		default:
			continue
		}
		if harm -= nbHold[card.GetEffect()]; harm > bestHarm {
			best, bestHarm = i, harm
		}
	}
	return best
}
