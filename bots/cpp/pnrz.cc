// Pirates, Ninjas, Robots & Zombies (docs/rules/pnrz.md): choose factions, then each turn select a hand
// tile and place it (x, y, rotation), and take or skip the extra action of its icon. The default
// strategy is greedy (after the built-in `builder` bot): it plays the tile, position and rotation that
// leave the best board value, its factions' best sections minus 0.8 times the strongest opponent's,
// uses a Rotate icon when a rotation raises that value, and skips the other extra actions.
#include <algorithm>
#include <array>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "strategy.h"

namespace {

constexpr double kOpponentWeight = 0.8;  // an opponent's point counts this much against one of its own
constexpr char kPictures[] = "PNRZT*BMKDXHSCFG";
constexpr int kGrid = 256;  // picture grid side
constexpr int kOffset = kGrid / 2;
constexpr int kReach = 60;  // tile positions -60..60 are scored (a game has 58 tiles)

using Pos = std::pair<int, int>;  // (x, y)

// A picture letter's index i in kPictures is its PnrzPicture value minus 1: faction i%4+1 (PnrzFaction),
// kind i/4 (0 character: 1 point, 1 bonus item: 3, 2 arch-enemy, 3 base: 5 per section). The board keeps
// each picture as its code i+1 (0: no picture).
char Code(char letter) {
  const char* at = letter ? std::strchr(kPictures, letter) : nullptr;
  return at == nullptr ? 0 : static_cast<char>(at - kPictures + 1);
}

// The faction (1..4) and kind (0..3) of a picture code; (0, -1) for none.
void Picture(char code, int* faction, int* kind) {
  if (code == 0) {
    *faction = 0, *kind = -1;
    return;
  }
  *faction = (code - 1) % 4 + 1, *kind = (code - 1) / 4;
}

// The offset of quadrant q (0 NW, 1 NE, 2 SE, 3 SW) in the grid of pictures, where tile (x, y) covers
// pictures (2x..2x+1, 2y..2y+1).
constexpr int kQuadrant[4][2] = {{0, 0}, {1, 0}, {1, 1}, {0, 1}};
constexpr int kSides[4][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}};

// The pictures a tile printed as printed (NW, NE, SE, SW) shows in rotation r: printed quadrant i is
// shown at position (i + r) % 4.
std::string Shown(const std::string& printed, int r) {
  std::string shown = printed;
  for (int i = 0; i < 4; ++i) shown[(i + r) % 4] = printed[i];
  return shown;
}

// The play area as a grid of pictures (0: empty), with the list of filled cells, so that a candidate
// play is put in, scored and taken out again.
class Board {
 public:
  explicit Board(const v1::PnrzObservation& obs) : pic_(kGrid * kGrid, 0), seen_(kGrid * kGrid, 0) {
    for (const auto& p : obs.board()) Put(p.x(), p.y(), p.shown());
  }

  // Fills tile position (x, y) with the 4 shown pictures (NW, NE, SE, SW); "" empties it. A position
  // beyond the grid (a play area that has drifted far from (0, 0)) is left out of the scoring.
  void Put(int x, int y, const std::string& shown) {
    if (x < -kReach || x > kReach || y < -kReach || y > kReach) return;
    if (shown.empty()) {
      tiles_.erase({x, y});
    } else {
      tiles_.insert({x, y});
    }
    for (int q = 0; q < 4; ++q) {
      int cell = Cell(2 * x + kQuadrant[q][0], 2 * y + kQuadrant[q][1]);
      pic_[cell] = shown.empty() ? 0 : Code(shown[q]);
      if (!shown.empty()) cells_.push_back(cell);
    }
  }

  bool Occupied(int x, int y) const { return tiles_.count({x, y}) > 0; }
  size_t Mark() const { return cells_.size(); }
  void Restore(size_t mark) { cells_.resize(mark); }

  // Faction f's best section: its characters (1) and bonus items (3) not beside its arch-enemy, plus 5
  // for its base, over pictures of f connected side by side.
  int Best(int f) {
    ++stamp_;
    int best = 0;
    for (int start : cells_) {
      int sf, kind;
      Picture(pic_[start], &sf, &kind);
      if (sf != f || kind == 2 || seen_[start] == stamp_) continue;
      int points = 0;
      bool base = false;
      seen_[start] = stamp_;
      stack_.assign(1, start);
      while (!stack_.empty()) {
        int c = stack_.back();
        stack_.pop_back();
        Picture(pic_[c], &sf, &kind);
        bool negated = false;
        for (const auto& d : kSides) {
          int n = c + d[0] * kGrid + d[1];
          int nf, nkind;
          Picture(pic_[n], &nf, &nkind);
          if (nf != f) continue;
          if (nkind == 2) {
            negated = true;
          } else if (seen_[n] != stamp_) {
            seen_[n] = stamp_;
            stack_.push_back(n);
          }
        }
        if (kind == 3) {
          base = true;
        } else if (kind == 1 && !negated) {
          points += 3;
        } else if (kind == 0 && !negated) {
          points += 1;
        }
      }
      if (base) points += 5;
      best = std::max(best, points);
    }
    return best;
  }

  // Every faction's best section (by PnrzFaction, 1..4).
  std::array<int, 5> Scores() {
    std::array<int, 5> score{};
    for (int f = 1; f <= 4; ++f) score[f] = Best(f);
    return score;
  }

  // The bot's factions' best sections minus kOpponentWeight times the strongest opponent's.
  static double Value(const v1::PnrzObservation& obs, const std::array<int, 5>& score) {
    int own = 0, other = 0;
    for (const auto& p : obs.players()) {
      int total = 0;
      for (int f : p.factions()) total += score[f];
      if (p.seat() == obs.seat()) {
        own = total;
      } else {
        other = std::max(other, total);
      }
    }
    return own - kOpponentWeight * other;
  }

  // Every empty position beside a tile in play, by row then column ((0, 0) on an empty board).
  std::vector<Pos> Frontier() const {
    if (tiles_.empty()) return {{0, 0}};
    std::set<Pos> found;
    for (const auto& t : tiles_) {
      for (const auto& d : kSides) {
        Pos n{t.first + d[0], t.second + d[1]};
        if (!tiles_.count(n)) found.insert(n);
      }
    }
    std::vector<Pos> out(found.begin(), found.end());
    std::sort(out.begin(), out.end(), [](const Pos& a, const Pos& b) {
      return a.second != b.second ? a.second < b.second : a.first < b.first;
    });
    return out;
  }

 private:
  static int Cell(int cx, int cy) { return (cx + kOffset) * kGrid + (cy + kOffset); }

  std::vector<char> pic_;
  std::vector<uint32_t> seen_;
  uint32_t stamp_ = 0;
  std::set<Pos> tiles_;    // occupied tile positions
  std::vector<int> cells_;  // filled picture cells (may hold emptied ones: pic 0 is skipped)
  std::vector<int> stack_;
};

// Scores putting tile id (printed pictures) at (x, y) in rotation r: the board value after it, with the
// builder's tie-breaks: own pictures facing free positions keep a section open, and a base is worth
// most where it joins a section. Only the sections of the factions the tile shows (friends join them,
// arch-enemies negate them) change: the others keep their score in before.
double Play(const v1::PnrzObservation& obs, Board& b, const std::array<int, 5>& before, uint32_t id,
            const std::string& printed, int x, int y, int r) {
  if (printed.size() != 4) return -1e9;  // a tile never seen in the hand
  std::string shown = Shown(printed, r);
  size_t mark = b.Mark();
  std::array<int, 5> after = before;
  b.Put(x, y, shown);
  for (int q = 0; q < 4; ++q) {
    int f, kind;
    Picture(Code(shown[q]), &f, &kind);
    if (f > 0) after[f] = b.Best(f);
  }
  double gain = Board::Value(obs, after) - Board::Value(obs, before);
  b.Put(x, y, "");
  b.Restore(mark);
  std::set<int> mine(obs.factions().begin(), obs.factions().end());
  int open = 0;
  for (int q = 0; q < 4; ++q) {
    int f, kind;
    Picture(Code(shown[q]), &f, &kind);
    if (!mine.count(f) || kind == 2) continue;
    int side_x = x + 2 * kQuadrant[q][0] - 1, side_y = y + 2 * kQuadrant[q][1] - 1;  // the neighbours it faces
    if (!b.Occupied(side_x, y)) ++open;
    if (!b.Occupied(x, side_y)) ++open;
  }
  double score = gain + 0.1 * open;
  if (id >= 55 && gain <= 0) score -= 1;  // a base is worth most where it joins a section
  return score;
}

}  // namespace

// pnrz: choose factions, select a hand tile, place it, take the icon's extra action or skip it.
int Strategy::Pnrz(const v1::PnrzObservation& obs, const Legal& legal) {
  // YOUR LOGIC. obs.board() holds every tile in play (shown pictures after rotation), obs.hand() this
  // seat's tiles (pictures as printed), obs.players() every seat's factions.
  for (const auto& tile : obs.hand()) pnrz_tiles[tile.id()] = tile.pictures();
  switch (obs.phase()) {
    case v1::PNRZ_PHASE_CHOOSE:
      // Spread the seats over the factions on offer, to avoid clashes.
      return (obs.seat() + obs.factions_size()) % legal.size();
    case v1::PNRZ_PHASE_PLAY: {
      // The hand tile with the best play anywhere; with no tile in hand, pass.
      Board b(obs);
      std::array<int, 5> before = b.Scores();
      std::vector<Pos> spots = b.Frontier();
      int best = -1, pass = 0;
      double best_score = 0;
      for (int i = 0; i < legal.size(); ++i) {
        const auto& action = legal[i].pnrz();
        if (action.has_pass_turn()) pass = i;
        if (!action.has_select_tile()) continue;
        uint32_t id = action.select_tile().tile_id();
        int rotations = id >= 55 ? 1 : 4;  // a base has one rotation
        for (const auto& spot : spots) {
          for (int r = 0; r < rotations; ++r) {
            double score = Play(obs, b, before, id, pnrz_tiles[id], spot.first, spot.second, r);
            if (best < 0 || score > best_score) best = i, best_score = score;
          }
        }
      }
      return best >= 0 ? best : pass;  // an empty hand: pass (moving a base is left to you)
    }
    case v1::PNRZ_PHASE_PLACE: {
      // The selected tile (pending(0)) at its best legal position and rotation.
      Board b(obs);
      std::array<int, 5> before = b.Scores();
      uint32_t id = obs.pending(0);
      int best = 0;
      double best_score = 0;
      for (int i = 0; i < legal.size(); ++i) {
        const auto& place = legal[i].pnrz().place_tile();
        double score = Play(obs, b, before, id, pnrz_tiles[id], place.x(), place.y(), place.rotation());
        if (i == 0 || score > best_score) best = i, best_score = score;
      }
      return best;
    }
    case v1::PNRZ_PHASE_ACTION: {
      // Rotate a tile in play when that raises the board value; skip every other extra action.
      int skip = 0;
      for (int i = 0; i < legal.size(); ++i) {
        if (legal[i].pnrz().has_skip_action()) skip = i;
      }
      if (obs.icon() != v1::PNRZ_ICON_ROTATE) return skip;
      std::map<uint32_t, const v1::PnrzPlacedTile*> where;
      for (const auto& p : obs.board()) where[p.tile_id()] = &p;
      Board b(obs);
      size_t mark = b.Mark();
      int best = skip;
      double best_value = Board::Value(obs, b.Scores()) + 1e-9;
      for (int i = 0; i < legal.size(); ++i) {
        const auto& action = legal[i].pnrz();
        if (!action.has_rotate_tile() || !where.count(action.rotate_tile().tile_id())) continue;
        const auto& p = *where[action.rotate_tile().tile_id()];
        // The shown pictures turned from the current rotation to the new one.
        int turn = (static_cast<int>(action.rotate_tile().rotation()) - static_cast<int>(p.rotation()) + 4) % 4;
        b.Put(p.x(), p.y(), Shown(p.shown(), turn));
        double v = Board::Value(obs, b.Scores());
        if (v > best_value) best = i, best_value = v;
        b.Put(p.x(), p.y(), p.shown());
        b.Restore(mark);
      }
      return best;
    }
    default:
      // MOVE, SWAP, ORIENT, REPLACE: this strategy never starts a base move, a swap or a replace.
      return 0;
  }
}
