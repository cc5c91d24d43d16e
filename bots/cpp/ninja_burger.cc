// Ninja Burger (docs/rules/ninja-burger.md): choose a ninja, attend meetings, force trades, choose each
// check's skill, play fortune cards or decline. A check passes when 3d6 <= skill + modifier + bonuses.
// The default strategy (after the built-in `ninja` bot) works with the exact odds of 3d6: it keeps the
// ninja with the best typical mission, always attends the meeting, forces an Errand on the rival with
// the most honor when a typical mission is worth more, picks the skill with the best chance, and plays
// a card when what it changes in the mission's chance, times what the mission decides for the bot's
// standing, beats what the card is worth kept in hand. Interesting Times go where a rival's failure
// helps the bot most.
#include <algorithm>
#include <climits>
#include <cmath>
#include <functional>
#include <vector>

#include "strategy.h"

namespace {

constexpr double kMoneyPerHonor = 300;  // dollars the bot trades for one honor point
constexpr double kItemMissions = 12;    // future missions a permanent item is assumed to help
constexpr double kLeadBias = 0.9;       // the chance of winning ~ logistic(bias + slope * lead over the best rival)
constexpr double kLeadSlope = 0.4;
constexpr double kHonorAtPar = 0.09;  // one honor point moves that chance about this much near a level game

using Ninja = v1::NinjaBurgerNinjaCard;
using Fortune = v1::NinjaBurgerFortuneCard;
using Check = v1::NinjaBurgerCheck;
using Items = std::vector<const Fortune*>;
using Action = v1::NinjaBurgerAction;

// What a card kept in hand is worth, in honor, by effect.
double Hold(v1::NinjaBurgerEffect effect) {
  switch (effect) {
    case v1::NINJA_BURGER_EFFECT_BONUS: return 0.25;
    case v1::NINJA_BURGER_EFFECT_REROLL: return 1.0;
    case v1::NINJA_BURGER_EFFECT_ITEM: return 0.05;
    case v1::NINJA_BURGER_EFFECT_PENALTY: return 1.0;
    case v1::NINJA_BURGER_EFFECT_EXTRA_CHECK: return 1.0;
    case v1::NINJA_BURGER_EFFECT_FINE: return 0.1;
    default: return 0;
  }
}

// The chance that 3d6 totals at most target.
double Pass(int target) {
  static const std::vector<double> cdf = [] {
    std::vector<double> counts(19, 0), table(19, 0);
    for (int a = 1; a <= 6; ++a)
      for (int b = 1; b <= 6; ++b)
        for (int c = 1; c <= 6; ++c) ++counts[a + b + c];
    double acc = 0;
    for (int t = 0; t < 19; ++t) acc += counts[t], table[t] = acc / 216;
    return table;
  }();
  if (target < 3) return 0;
  return cdf[std::min(target, 18)];
}

bool HasAbility(const Ninja& n, v1::NinjaBurgerAbility ability, v1::NinjaBurgerSkill skill) {
  return n.has_ability() && n.ability() == ability && (!n.has_ability_skill() || n.ability_skill() == skill);
}

// The ninja's value in skill: a listed skill's value, else its Other Stuff value, plus 2 with a
// PLUS_TWO ability in that skill (the card's values do not include it).
int SkillValue(const Ninja& n, v1::NinjaBurgerSkill skill) {
  int value = n.other_stuff();
  for (int i = 0; i < n.skills_size(); ++i) {
    if (n.skills(i) == skill) value = n.values(i);
  }
  if (HasAbility(n, v1::NINJA_BURGER_ABILITY_PLUS_TWO, skill)) value += 2;
  return value;
}

// The bonus the items in play give to a check in skill.
int ItemBonus(const Items& items, v1::NinjaBurgerSkill skill) {
  int total = 0;
  for (const auto* item : items) {
    if (item->has_skill() && item->skill() == skill) total += item->value();
  }
  return total;
}

// The chance that n passes one check in skill (its never-fails and reroll abilities counted).
double SkillChance(const Ninja& n, v1::NinjaBurgerSkill skill, int modifier, int bonus) {
  if (HasAbility(n, v1::NINJA_BURGER_ABILITY_NEVER_FAILS, skill)) return 1;
  double p = Pass(SkillValue(n, skill) + modifier + bonus);
  if (HasAbility(n, v1::NINJA_BURGER_ABILITY_REROLL, skill)) p = 1 - (1 - p) * (1 - p);
  return p;
}

// The chance of passing check with the best of its skills.
double CheckChance(const Ninja& n, const Check& check, const Items& items) {
  double best = 0;
  for (int s : check.skills()) {
    auto skill = static_cast<v1::NinjaBurgerSkill>(s);
    best = std::max(best, SkillChance(n, skill, check.modifier(), ItemBonus(items, skill)));
  }
  return best;
}

template <typename Checks>
double MissionChance(const Ninja& n, const Checks& checks, const Items& items) {
  double p = 1;
  for (const auto& check : checks) p *= CheckChance(n, check, items);
  return p;
}

double MissionValue(const Ninja& n, const v1::NinjaBurgerMissionCard& m, const Items& items) {
  double p = MissionChance(n, m.checks(), items);
  double win = m.reward_honor() + m.reward_money() / kMoneyPerHonor;
  double lose = m.penalty_honor() + m.penalty_money() / kMoneyPerHonor;
  return p * win - (1 - p) * lose;
}

// The expected honor of a typical mission for n: about 2.4 checks, each in one skill (a third of them)
// or the better of two (the rest), a reward of 2 honor, a penalty of 1. A bot that wants the exact
// figure can learn the deck: every revealed mission is in the observations.
double TypicalValue(const Ninja& n, const Items& items) {
  double chance[7];
  for (int s = 0; s < 7; ++s) {
    auto skill = static_cast<v1::NinjaBurgerSkill>(s + 1);
    chance[s] = SkillChance(n, skill, 0, ItemBonus(items, skill));
  }
  double single = 0, pair = 0;
  for (int i = 0; i < 7; ++i) {
    single += chance[i] / 7;
    for (int j = i + 1; j < 7; ++j) pair += std::max(chance[i], chance[j]) / 21;
  }
  double p = std::pow(0.35 * single + 0.65 * pair, 2.4);
  return p * 2.05 - (1 - p) * 1.05;
}

// Whether a table at honor (by seat) is over: the total at 10 times the players or more, or 4 or less.
bool Ends(const std::vector<int>& honor) {
  int total = 0;
  for (int h : honor) total += h;
  int n = honor.size();
  return total >= 10 * n || total <= 4 * n;
}

// The chance that seat finishes first alone from honor, in honor points: won or lost outright where the
// game ends, else a logistic curve in its lead over the best rival.
double Standing(uint32_t seat, const std::vector<int>& honor) {
  int lead = INT_MAX;
  for (size_t s = 0; s < honor.size(); ++s) {
    if (s != seat) lead = std::min(lead, honor[seat] - honor[s]);
  }
  if (Ends(honor)) return lead > 0 ? 1 / kHonorAtPar : 0;
  return 1 / (1 + std::exp(-(kLeadBias + kLeadSlope * lead))) / kHonorAtPar;
}

// One decision's view: the observation, the legal actions and the cards the bot knows.
class Decision {
 public:
  Decision(Strategy& s, const v1::NinjaBurgerObservation& obs, const Legal& legal)
      : s_(s), obs_(obs), legal_(legal) {}

  // The index of the first legal action that matches, else of the first Decline (else 0).
  int Find(const std::function<bool(const Action&)>& match) const {
    int decline = -1;
    for (int i = 0; i < legal_.size(); ++i) {
      const auto& action = legal_[i].ninja_burger();
      if (match(action)) return i;
      if (decline < 0 && action.has_decline()) decline = i;
    }
    return std::max(decline, 0);
  }
  int Decline() const {
    return Find([](const Action&) { return false; });
  }

  // seat's ninja card; nullptr if the bot has not seen it.
  const Ninja* NinjaOf(uint32_t seat) const {
    auto it = s_.nb_ninjas.find(seat);
    return it == s_.nb_ninjas.end() ? nullptr : &it->second;
  }

  const Fortune* Card(uint32_t id) const {
    auto it = s_.nb_cards.find(id);
    return it == s_.nb_cards.end() ? nullptr : &it->second;
  }

  // seat's Ninja Stuff in play, those the bot has seen (observations name them by id).
  Items ItemsOf(uint32_t seat) const {
    Items out;
    for (uint32_t id : obs_.players(seat).items()) {
      if (const Fortune* card = Card(id)) out.push_back(card);
    }
    return out;
  }

  // The Good Fortune bonuses minus the Interesting Times penalties played on this check.
  int Played() const {
    int total = 0;
    for (const auto& play : obs_.plays()) {
      if (play.card().effect() == v1::NINJA_BURGER_EFFECT_BONUS) total += play.card().value();
      if (play.card().effect() == v1::NINJA_BURGER_EFFECT_PENALTY) total -= play.card().value();
    }
    return total;
  }

  // The active ninja's chance on the current check with the best skill it may still pick, extra added.
  double Current(const Ninja& n, const Items& items, int extra) const {
    uint32_t index = obs_.check_index();
    const Check& check = obs_.checks(index);
    std::vector<v1::NinjaBurgerSkill> skills;
    if (static_cast<uint32_t>(obs_.plan_size()) > index) {
      skills.push_back(obs_.plan(index));  // the skill is chosen
    } else {
      for (int s : check.skills()) skills.push_back(static_cast<v1::NinjaBurgerSkill>(s));
    }
    double best = 0;
    for (auto skill : skills) {
      best = std::max(best, SkillChance(n, skill, check.modifier(), ItemBonus(items, skill) + Played() + extra));
    }
    return best;
  }

  // What the current check of seat's mission is worth to the bot: its standing after the mission
  // succeeds minus after it fails, times the chance of passing the checks after this one. Positive on
  // its own mission; on a rival's, usually negative (what hindering it is worth).
  double Stake(uint32_t seat) const {
    const auto& mission = obs_.players(seat).mission();
    std::vector<int> honor;
    for (const auto& p : obs_.players()) honor.push_back(p.honor());
    std::vector<int> won = honor, lost = honor;
    won[seat] += mission.reward_honor();
    lost[seat] -= std::min(mission.penalty_honor(), honor[seat]);
    uint32_t me = obs_.seat();
    double swing = Standing(me, won) - Standing(me, lost);
    if (seat == me) swing += (mission.reward_money() + mission.penalty_money()) / kMoneyPerHonor;
    std::vector<Check> rest(obs_.checks().begin() + obs_.check_index() + 1, obs_.checks().end());
    return swing * MissionChance(*NinjaOf(seat), rest, ItemsOf(seat));
  }

  // Keeps the dealt ninja with the best typical mission (and the salary ability's money).
  int ChooseNinja() {
    int best = 0;
    double best_value = 0;
    const Ninja* kept = nullptr;
    for (int i = 0; i < legal_.size(); ++i) {
      uint32_t id = legal_[i].ninja_burger().choose_ninja().ninja();
      for (const auto& n : obs_.ninja_options()) {
        if (n.id() != id) continue;
        double value = TypicalValue(n, {});
        if (n.has_ability() && n.ability() == v1::NINJA_BURGER_ABILITY_SALARY) value += 50 / kMoneyPerHonor;
        if (kept == nullptr || value > best_value) best = i, best_value = value, kept = &n;
      }
    }
    if (kept != nullptr) s_.nb_ninjas[obs_.seat()] = *kept;  // the observations give only its id from now on
    return best;
  }

  // Forces the Errand on the eligible rival with the most honor when a typical mission is worth more.
  int Trade() const {
    uint32_t me = obs_.seat();
    const Ninja* n = NinjaOf(me);
    if (n == nullptr || !obs_.has_mission()) return Decline();
    Items items = ItemsOf(me);
    double keep = MissionValue(*n, obs_.mission(), items);
    double unseen = (44 * TypicalValue(*n, items) + 12 * 0.5) / 56;  // 44 missions, 12 Errands
    if (unseen <= keep) return Decline();
    int best = Decline(), best_honor = -1;
    for (int i = 0; i < legal_.size(); ++i) {
      const auto& action = legal_[i].ninja_burger();
      if (!action.has_force_trade()) continue;
      int honor = obs_.players(action.force_trade().target()).honor();
      if (honor > best_honor) best = i, best_honor = honor;
    }
    return best;
  }

  // The skill with the best chance (items and played cards included), sparing a single-use item on a tie.
  int ChooseSkill() const {
    uint32_t me = obs_.seat();
    const Ninja* n = NinjaOf(me);
    if (n == nullptr) return 0;
    Items items = ItemsOf(me);
    const Check& check = obs_.checks(obs_.check_index());
    int best = 0;
    double best_score = -1;
    for (int i = 0; i < legal_.size(); ++i) {
      auto skill = legal_[i].ninja_burger().choose_skill().skill();
      double score = SkillChance(*n, skill, check.modifier(), ItemBonus(items, skill) + Played());
      for (const auto* item : items) {
        if (item->single_use() && item->has_skill() && item->skill() == skill) score -= 1e-6;
      }
      if (score > best_score) best = i, best_score = score;
    }
    return best;
  }

  // Plays a reroll card when the mission it saves is worth more than keeping the card.
  int Reroll() const {
    uint32_t me = obs_.seat();
    const Ninja* n = NinjaOf(me);
    if (n == nullptr) return Decline();
    double p = Current(*n, ItemsOf(me), 0);
    if (p * Stake(me) > Hold(v1::NINJA_BURGER_EFFECT_REROLL)) {
      return Find([](const Action& a) { return a.has_play_fortune(); });
    }
    return Decline();
  }

  // Plays the bonus or buys the item that adds the most beyond what the card is worth in hand (an item
  // counts its help in later missions and its price).
  int HelpMyself() const {
    uint32_t me = obs_.seat();
    const Ninja* n = NinjaOf(me);
    if (n == nullptr || !obs_.players(me).has_mission()) return Decline();
    Items items = ItemsOf(me);
    double base = Current(*n, items, 0), stake = Stake(me);
    int best = Decline();
    double best_gain = 0;
    for (int i = 0; i < legal_.size(); ++i) {
      const auto& action = legal_[i].ninja_burger();
      const Fortune* card = action.has_play_fortune() ? Card(action.play_fortune().card()) : nullptr;
      if (card == nullptr) continue;
      double gain;
      if (card->effect() == v1::NINJA_BURGER_EFFECT_BONUS) {
        gain = (Current(*n, items, card->value()) - base) * stake;
      } else if (card->effect() == v1::NINJA_BURGER_EFFECT_ITEM) {
        Items with = items;
        with.push_back(card);
        gain = (Current(*n, with, 0) - base) * stake;
        if (!card->single_use()) gain += kItemMissions * (TypicalValue(*n, with) - TypicalValue(*n, items));
        gain -= card->price() / kMoneyPerHonor;
      } else {
        continue;  // a reroll waits for a failed roll
      }
      gain -= Hold(card->effect());
      if (gain > best_gain) best = i, best_gain = gain;
    }
    return best;
  }

  // Plays the Interesting Times card whose harm to the bot's standing beats its hold value: the harm is
  // measured on the bot's standing, so the cards are saved for the leader.
  int Hinder() const {
    uint32_t active = obs_.active();
    const auto& victim = obs_.players(active);
    const Ninja* n = NinjaOf(active);
    if (n == nullptr || !victim.has_mission()) return Decline();
    Items items = ItemsOf(active);
    double now = Current(*n, items, 0), stake = -Stake(active);
    int top = INT_MIN;
    for (const auto& p : obs_.players()) {
      if (p.seat() != obs_.seat()) top = std::max(top, p.honor());
    }
    int best = Decline();
    double best_harm = 0;
    for (int i = 0; i < legal_.size(); ++i) {
      const auto& action = legal_[i].ninja_burger();
      const Fortune* card = action.has_play_fortune() ? Card(action.play_fortune().card()) : nullptr;
      if (card == nullptr) continue;
      double harm;
      if (card->effect() == v1::NINJA_BURGER_EFFECT_PENALTY) {
        harm = (now - Current(*n, items, -card->value())) * stake;
      } else if (card->effect() == v1::NINJA_BURGER_EFFECT_EXTRA_CHECK) {
        Check extra;
        extra.add_skills(card->skill());
        extra.set_modifier(card->value());
        harm = now * (1 - CheckChance(*n, extra, items)) * stake;
      } else if (card->effect() == v1::NINJA_BURGER_EFFECT_FINE) {
        harm = victim.honor() == top ? std::min<double>(card->value(), victim.money()) / kMoneyPerHonor : 0;
      } else {
        continue;
      }
      harm -= Hold(card->effect());
      if (harm > best_harm) best = i, best_harm = harm;
    }
    return best;
  }

 private:
  Strategy& s_;
  const v1::NinjaBurgerObservation& obs_;
  const Legal& legal_;
};

}  // namespace

// ninja-burger: choose a ninja, attend meetings, force trades, choose each check's skill, play fortune
// cards or decline.
int Strategy::NinjaBurger(const v1::NinjaBurgerObservation& obs, const Legal& legal) {
  // YOUR LOGIC. obs.mission() is this seat's mission, obs.checks() / check_index() / plays() the check
  // under way; a seat's ninja card is only an id in obs.players() after the choice: the cards are in the
  // NinjasChosen event (kept in nb_ninjas by Event()).
  for (const auto& card : obs.hand()) nb_cards[card.id()] = card;
  for (const auto& play : obs.plays()) nb_cards[play.card().id()] = play.card();
  Decision d(*this, obs, legal);
  switch (obs.phase()) {
    case v1::NINJA_BURGER_PHASE_CHOOSE_NINJA: return d.ChooseNinja();
    case v1::NINJA_BURGER_PHASE_MEETING:
      return d.Find([](const Action& a) { return a.has_attend() && a.attend().attend(); });
    case v1::NINJA_BURGER_PHASE_TRADE: return d.Trade();
    case v1::NINJA_BURGER_PHASE_CHOOSE_SKILL: return d.ChooseSkill();
    case v1::NINJA_BURGER_PHASE_REROLL: return d.Reroll();
    case v1::NINJA_BURGER_PHASE_WINDOW: return obs.active() == obs.seat() ? d.HelpMyself() : d.Hinder();
    default: return 0;
  }
}
