// The Strategy's memory and its dispatch to the function of each game (see strategy.h).
#include "strategy.h"

#include <iostream>

void Strategy::MatchStart(const v1::MatchStart& start) {
  start_ = start;
  uint64_t hash = 14695981039346656037ull;  // FNV-1a of the match id
  for (unsigned char c : start.match_id()) hash = (hash ^ c) * 1099511628211ull;
  rng_.seed(hash);
  nb_ninjas.clear();
  nb_cards.clear();
  pnrz_tiles.clear();
}

void Strategy::Event(const v1::Event& event) {
  // YOUR LOGIC: remember what the other seats did (event.ninjan(), event.pnrz(), ...).
  if (event.has_ninja_burger() && event.ninja_burger().has_ninjas_chosen()) {
    const auto& ninjas = event.ninja_burger().ninjas_chosen().ninjas();
    for (int seat = 0; seat < ninjas.size(); ++seat) nb_ninjas[seat] = ninjas[seat];
  }
}

void Strategy::Result(const v1::MatchResult& result) {
  for (const auto& p : result.players()) {
    if (p.seat() == start_.seat()) {
      std::cerr << "cpp bot: match " << result.match_id() << " over: rank " << p.rank() << ", score "
                << p.score() << std::endl;
    }
  }
}

int Strategy::Choose(const v1::Observation& obs, const Legal& legal, Clock::time_point deadline) {
  deadline_ = deadline;
  switch (obs.game_case()) {
    case v1::Observation::kNinjan: return Ninjan(obs.ninjan(), legal);
    case v1::Observation::kNinjaBurger: return NinjaBurger(obs.ninja_burger(), legal);
    case v1::Observation::kPnrz: return Pnrz(obs.pnrz(), legal);
    case v1::Observation::kNinjaMaster: return NinjaMaster(obs.ninja_master(), legal);
    default: return Random(legal);  // a game newer than this bot: any legal action
  }
}
