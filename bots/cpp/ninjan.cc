// Ninjan (docs/rules/ninjan.md): commit a card each round, then take a pile or place the card.
// The default strategy is greedy (the built-in `greedy` bot's rules): it commits the card with the best
// immediate trade-off, takes the richest pile it can and places on the poorest.
#include "strategy.h"

namespace {

// The suit that beats each suit: rock beats scissors, scissors beat paper, paper beats rock.
v1::NinjanSuit Attacker(v1::NinjanSuit suit) {
  switch (suit) {
    case v1::NINJAN_SUIT_SCISSORS: return v1::NINJAN_SUIT_ROCK;
    case v1::NINJAN_SUIT_PAPER: return v1::NINJAN_SUIT_SCISSORS;
    case v1::NINJAN_SUIT_ROCK: return v1::NINJAN_SUIT_PAPER;
    default: return v1::NINJAN_SUIT_UNSPECIFIED;
  }
}

// The share of a played card's value an opponent is expected to collect later (a played card is never
// collected by its owner directly).
constexpr double kGiveaway = 0.5;

int PileValue(const v1::NinjanPile& pile) {
  int total = 0;
  for (const auto& card : pile.cards()) total += card.value();
  return total;
}

// The expected net points of committing card this round: the richest pile its suit beats now,
// discounted by how likely that pile is still there when the card resolves (high cards resolve first),
// minus the share of its value it hands to the table.
double CommitScore(const v1::NinjanCard& card, const v1::NinjanObservation& obs) {
  double gain = 0;
  bool beats = false;
  for (const auto& pile : obs.piles()) {
    if (pile.cards_size() == 0 || Attacker(pile.cards(pile.cards_size() - 1).suit()) != card.suit()) continue;
    // Taking is mandatory: a card that beats only a poor pile must take it.
    double value = PileValue(pile);
    if (!beats || value > gain) gain = value, beats = true;
  }
  double value = card.value();
  if (gain > 0) {
    double survive = 0.35 + 0.65 * (value + 6) / 16;  // -6 .. 10: low to high
    return gain * survive - kGiveaway * value;
  }
  return gain - kGiveaway * value;
}

}  // namespace

// ninjan: commit a card (play_card), then take (take_pile) or place on (place_pile) a pile. A decision's
// legal actions are all of one kind.
int Strategy::Ninjan(const v1::NinjanObservation& obs, const Legal& legal) {
  // YOUR LOGIC. Every pile's cards are in obs.piles() (the last card is the top), the round's revealed
  // cards in obs.revealed() (obs.resolving(): the one being resolved), earlier rounds in obs.history().
  int best = 0;
  double best_score = 0;
  for (int i = 0; i < legal.size(); ++i) {
    const auto& action = legal[i].ninjan();
    double score = 0;
    switch (action.kind_case()) {
      case v1::NinjanAction::kTakePile:  // the richest pile
        score = PileValue(obs.piles(action.take_pile().pile()));
        break;
      case v1::NinjanAction::kPlacePile:  // the poorest pile, once the card is on it
        score = -PileValue(obs.piles(action.place_pile().pile()));
        break;
      case v1::NinjanAction::kPlayCard:
        score = CommitScore(action.play_card().card(), obs);
        break;
      default:
        break;
    }
    if (i == 0 || score > best_score) best = i, best_score = score;
  }
  return best;
}
