// The bot author's part: what the bot remembers and how it chooses. Choose() hands each decision to the
// function of its game, one file per game (ninjan.cc, ninja_burger.cc, pnrz.cc, ninja_master.cc); each
// returns an index into legal (never empty, sorted; each entry an Action of that game) before
// deadline_. Each starts with a simple, sound strategy that beats the built-in random bot; replace the
// parts marked YOUR LOGIC with your own.
#ifndef ARENA_CPP_STRATEGY_H_
#define ARENA_CPP_STRATEGY_H_

#include <chrono>
#include <cstdint>
#include <map>
#include <random>
#include <string>

#include "arena/v1/arena.pb.h"

namespace v1 = arena::v1;
using Clock = std::chrono::steady_clock;
using Legal = google::protobuf::RepeatedPtrField<v1::Action>;

class Strategy {
 public:
  Strategy() { MatchStart(v1::MatchStart()); }

  // Forgets the previous match. The random generator (for your own use) is seeded by the match id, so
  // a seeded series plays the same way every time.
  void MatchStart(const v1::MatchStart& start);
  // Sees every public event (cards revealed, dice rolled, ...) before the decision that follows it.
  void Event(const v1::Event& event);
  void Result(const v1::MatchResult& result);
  // Hands the decision to the function of the game being played.
  int Choose(const v1::Observation& obs, const Legal& legal, Clock::time_point deadline);

 private:
  int Random(const Legal& legal) {
    return std::uniform_int_distribution<int>(0, legal.size() - 1)(rng_);
  }

  int Ninjan(const v1::NinjanObservation& obs, const Legal& legal);            // ninjan.cc
  int NinjaBurger(const v1::NinjaBurgerObservation& obs, const Legal& legal);  // ninja_burger.cc
  int Pnrz(const v1::PnrzObservation& obs, const Legal& legal);                // pnrz.cc
  int NinjaMaster(const v1::NinjaMasterObservation& obs, const Legal& legal);  // ninja_master.cc

  std::mt19937_64 rng_;
  v1::MatchStart start_;         // the current match: game, seat, players, deadline
  Clock::time_point deadline_;   // when the current decision's answer is due

 public:
  // Ninja Burger: the observations name ninja cards and items by id; the cards come once, in the
  // NinjasChosen event, the hand and the plays on a check.
  std::map<uint32_t, v1::NinjaBurgerNinjaCard> nb_ninjas;   // by seat
  std::map<uint32_t, v1::NinjaBurgerFortuneCard> nb_cards;  // fortune cards seen, by id
  // Pnrz: the pictures (as printed) of every tile seen in the hand, by id.
  std::map<uint32_t, std::string> pnrz_tiles;
};

#endif  // ARENA_CPP_STRATEGY_H_
