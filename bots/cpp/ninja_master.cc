// Ninja Master (docs/rules/ninja-master.md): in each tick grab a component, call the number of ninjas
// or wait. Everything is public, the dice included, so the right call is always known. The default
// strategy (after the built-in `master` bot): it values every free component from the dice, expects
// each opponent to grab what is worth most to it, grabs the best expected value, and calls the (always
// right) total when no grab is worth more than the call.
#include <algorithm>
#include <functional>
#include <map>
#include <vector>

#include "strategy.h"

namespace {

constexpr int kHands = 2;             // components a seat may hold
constexpr double kCallBonus = 1.0;    // VP for a right call
constexpr double kCutPenalty = 3.0;   // VP lost by grabbing the sword when swords do not outnumber shurikens
constexpr double kSwing = 1.5;        // weight of sword VP, which move from the holder to the thief
constexpr double kDenial = 0.5;       // share of the positive components left to the opponents a call denies

// What the dice say: the value of each ninja token, whether the sword can be stolen, the right call.
struct Roll {
  double token[6] = {};    // by colour 1..5: the token of that colour scores this much
  bool sword_wins = false;  // more swords than shurikens: the sword can be stolen (or defended)
  uint32_t total = 0;       // ninja symbols of every colour: the right call
};

Roll Summarize(const v1::NinjaMasterObservation& obs) {
  int ninjas[6] = {}, smokes[6] = {}, swords = 0, shurikens = 0;
  Roll roll;
  for (const auto& face : obs.dice()) {
    int colour = face.has_colour() ? face.colour() : 0;
    switch (face.symbol()) {
      case v1::NINJA_MASTER_SYMBOL_NINJA:
        ninjas[colour] += face.ninjas();
        roll.total += face.ninjas();
        break;
      case v1::NINJA_MASTER_SYMBOL_SMOKE: ++smokes[colour]; break;
      case v1::NINJA_MASTER_SYMBOL_SWORD: ++swords; break;
      case v1::NINJA_MASTER_SYMBOL_SHURIKEN: ++shurikens; break;
      default: break;
    }
  }
  for (int colour = 1; colour <= 5; ++colour) {
    roll.token[colour] = ninjas[colour];
    if (smokes[colour] == 1) roll.token[colour] = -roll.token[colour];  // exactly one smoke: a penalty
  }
  roll.sword_wins = swords > shurikens;
  return roll;
}

// What grabbing component is worth to seat (-1: to an opponent of this bot, for whom a theft from another
// opponent hardly matters). Ninja tokens and colours share their numbering: token
// NINJA_MASTER_COMPONENT_ORANGE_NINJA (1) has colour NINJA_MASTER_COLOUR_ORANGE (1), and so on to 5.
double Value(v1::NinjaMasterComponent component, int seat, const Roll& roll,
             const v1::NinjaMasterObservation& obs) {
  if (component != v1::NINJA_MASTER_COMPONENT_SWORD) return roll.token[component];
  if (!roll.sword_wins) return -kCutPenalty;
  uint32_t holder = obs.sword_holder();
  if (seat < 0 && holder != obs.seat()) return 0;
  return kSwing * (obs.players(holder).score() / 2);
}

}  // namespace

// ninja-master: in each tick grab a component, call a number or wait. Legal actions: wait, then the grabs
// (with a free hand), then the calls 0..27 (once anyone holds a component).
int Strategy::NinjaMaster(const v1::NinjaMasterObservation& obs, const Legal& legal) {
  // YOUR LOGIC. obs.dice() is the roll, obs.components() says who holds what (in component order).
  Roll roll = Summarize(obs);
  uint32_t me = obs.seat();
  int wait = 0, call = -1;
  std::map<int, int> grab;  // legal grabs: component -> index
  for (int i = 0; i < legal.size(); ++i) {
    const auto& action = legal[i].ninja_master();
    if (action.has_wait()) wait = i;
    if (action.has_grab()) grab[action.grab().component()] = i;
    if (action.has_call() && action.call().number() == roll.total) call = i;
  }
  std::map<uint32_t, int> held;  // seat -> components held
  std::vector<v1::NinjaMasterComponent> free;
  for (const auto& h : obs.components()) {
    if (h.has_holder()) {
      ++held[h.holder()];
    } else {
      free.push_back(h.component());
    }
  }
  int free_hands = kHands - held[me];
  if (free_hands <= 0) return call >= 0 ? call : wait;  // calling is voice, not hands: call or wait

  // What each opponent goes for: the free component worth most to it. An opponent with nothing worth
  // grabbing, or with both hands full, is a likely caller.
  std::map<int, int> wanted;
  int free_handed = 0, idle = 0;
  for (const auto& p : obs.players()) {
    if (!p.contending() || p.seat() == me) continue;
    int best = 0;
    double best_value = 0;
    if (kHands - held[p.seat()] > 0) {
      ++free_handed;
      for (auto c : free) {
        double v = Value(c, p.seat(), roll, obs);
        if (v > best_value) best = c, best_value = v;
      }
    }
    if (best == 0) {
      ++idle;
    } else {
      ++wanted[best];
    }
  }

  // The best grab by expected value: a grab contested by k others is won with chance 1/(1+k).
  int best_grab = -1;
  double best_grab_value = 0;
  for (auto c : free) {
    double v = Value(c, me, roll, obs);
    if (!grab.count(c) || v <= 0) continue;
    double ev = v / (1 + wanted[c]);
    if (best_grab < 0 || ev > best_grab_value) best_grab = grab[c], best_grab_value = ev;
  }
  if (call >= 0) {
    // A call ends the round: it denies the opponents the positive components they could still take.
    std::vector<double> left;
    for (auto c : free) {
      double v = Value(c, -1, roll, obs);
      if (wanted[c] == 0 && v > 0) left.push_back(v);
    }
    std::sort(left.begin(), left.end(), std::greater<double>());
    double denial = 0;
    for (int i = 0; i < static_cast<int>(left.size()) && i < free_handed; ++i) denial += kDenial * left[i];
    double call_value = kCallBonus / (1 + idle) + denial;
    if (best_grab < 0 || (free_hands == 1 && best_grab_value < call_value)) return call;
    if (free_hands == kHands && best_grab_value < call_value - kCallBonus) return call;
  }
  return best_grab >= 0 ? best_grab : wait;
}
