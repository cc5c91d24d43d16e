// The C++ starter kit for arena: a gRPC client of proto/arena/v1 that plays any of the four games.
// main() and play() are the protocol (connect, Join, answer each DecisionRequest, read errors and
// results); the decisions are in the Strategy class, the part a bot author edits.
//
//   bots/cpp/build.sh                      (generates the C++ code of proto/, builds build/bot, static)
//   arena match ninjan bots/cpp/build/bot random
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <random>
#include <string>

#include <grpcpp/grpcpp.h>

#include "arena/v1/arena.grpc.pb.h"
#include "arena/v1/arena.pb.h"

namespace {

namespace v1 = arena::v1;
using Clock = std::chrono::steady_clock;
using Legal = google::protobuf::RepeatedPtrField<v1::Action>;

const char kBotName[] = "cpp-starter";
const char kClient[] = "arena-cpp-starter/1.0.0";
// A bot whose referee never comes up gives up instead of hanging.
constexpr auto kConnectTimeout = std::chrono::seconds(30);

// The bot author's part: what the bot remembers and how it chooses, one function per game. Every
// function returns an index into legal (never empty, sorted; each entry an Action of that game),
// before deadline. Each starts as a legal random choice; replace the bodies marked YOUR LOGIC.
class Strategy {
 public:
  Strategy() : rng_(std::random_device{}()) {}

  void MatchStart(const v1::MatchStart& start) { start_ = start; }

  // Sees every public event (cards revealed, dice rolled, ...) before the decision that follows it.
  void Event(const v1::Event& event) {
    // YOUR LOGIC: remember what the other seats did (event.ninjan(), event.pnrz(), ...).
    (void)event;
  }

  void Result(const v1::MatchResult& result) {
    for (const auto& p : result.players()) {
      if (p.seat() == start_.seat()) {
        std::cerr << "cpp bot: match " << result.match_id() << " over: rank " << p.rank() << ", score "
                  << p.score() << std::endl;
      }
    }
  }

  // Hands the decision to the function of the game being played.
  int Choose(const v1::Observation& obs, const Legal& legal, Clock::time_point deadline) {
    switch (obs.game_case()) {
      case v1::Observation::kNinjan: return Ninjan(obs.ninjan(), legal, deadline);
      case v1::Observation::kNinjaBurger: return NinjaBurger(obs.ninja_burger(), legal, deadline);
      case v1::Observation::kPnrz: return Pnrz(obs.pnrz(), legal, deadline);
      case v1::Observation::kNinjaMaster: return NinjaMaster(obs.ninja_master(), legal, deadline);
      default: return Random(legal);  // a game newer than this bot: any legal action
    }
  }

 private:
  int Random(const Legal& legal) {
    return std::uniform_int_distribution<int>(0, legal.size() - 1)(rng_);
  }

  // ninjan: commit a card (play_card), then take (take_pile) or place on (place_pile) a pile.
  int Ninjan(const v1::NinjanObservation& obs, const Legal& legal, Clock::time_point) {
    // YOUR LOGIC. The example takes the richest pile it may take: every pile's cards are in obs.piles().
    int best = -1;
    int32_t best_value = 0;
    for (int i = 0; i < legal.size(); ++i) {
      if (!legal[i].ninjan().has_take_pile()) continue;
      uint32_t pile = legal[i].ninjan().take_pile().pile();
      if (pile >= static_cast<uint32_t>(obs.piles_size())) continue;
      int32_t value = 0;
      for (const auto& card : obs.piles(pile).cards()) value += card.value();
      if (best < 0 || value > best_value) best = i, best_value = value;
    }
    return best >= 0 ? best : Random(legal);
  }

  // ninja-burger: choose a ninja, attend meetings, force trades, choose each check's skill, play
  // fortune cards or decline. obs.mission() and obs.checks() describe the mission under way.
  int NinjaBurger(const v1::NinjaBurgerObservation&, const Legal& legal, Clock::time_point) {
    return Random(legal);  // YOUR LOGIC.
  }

  // pnrz: choose factions, select a hand tile, place it (x, y, rotation), take the icon's extra action
  // or skip it. obs.board() holds every tile in play, obs.hand() this seat's tiles.
  int Pnrz(const v1::PnrzObservation&, const Legal& legal, Clock::time_point) {
    return Random(legal);  // YOUR LOGIC.
  }

  // ninja-master: in each tick grab a component, call a number or wait. obs.dice() is the roll and
  // obs.components() says who holds what.
  int NinjaMaster(const v1::NinjaMasterObservation&, const Legal& legal, Clock::time_point) {
    return Random(legal);  // YOUR LOGIC.
  }

  std::mt19937 rng_;
  v1::MatchStart start_;  // the current match: game, seat, players, deadline
};

// When an answer is due: deadline_ms from now, or far ahead when it is 0 (no deadline: a seat
// attached by hand, e.g. in a debugger), so that a strategy checking the time never hurries.
Clock::time_point DeadlineOf(uint32_t deadline_ms) {
  auto now = Clock::now();
  if (deadline_ms == 0) return now + std::chrono::hours(24 * 365 * 100);
  return now + std::chrono::milliseconds(deadline_ms);
}

// Dispatches one referee message to the strategy; returns true and fills answer when one is due.
bool Handle(Strategy& s, const v1::RefereeMessage& message, v1::Answer* answer) {
  switch (message.kind_case()) {
    case v1::RefereeMessage::kMatchStart:
      s.MatchStart(message.match_start());
      return false;
    case v1::RefereeMessage::kDecision: {
      const auto& request = message.decision();
      auto deadline = DeadlineOf(request.deadline_ms());
      for (const auto& event : request.events()) s.Event(event);
      int index = s.Choose(request.observation(), request.legal_actions(), deadline);
      if (index < 0 || index >= request.legal_actions_size()) {
        // A bug in the strategy: say so, and let the referee count the strike.
        std::cerr << "cpp bot: strategy chose index " << index << " of " << request.legal_actions_size()
                  << " legal actions" << std::endl;
      }
      answer->set_request_id(request.request_id());
      answer->set_index(static_cast<uint32_t>(index));
      return true;
    }
    case v1::RefereeMessage::kEvent:
      s.Event(message.event());
      return false;
    case v1::RefereeMessage::kError: {
      const auto& e = message.error();
      std::cerr << "cpp bot: referee says " << v1::ErrorCode_Name(e.code()) << ": " << e.message()
                << " (strikes " << e.strikes() << " of " << e.max_strikes() << ")" << std::endl;
      return false;
    }
    case v1::RefereeMessage::kResult:
      for (const auto& event : message.result().events()) s.Event(event);
      s.Result(message.result());
      return false;
    default:
      return false;  // a message newer than this bot
  }
}

// Connects to the referee and plays every match it sends over one stream; returns 0 when the referee
// ends the stream normally. ARENA_ADDRESS goes to gRPC unchanged: host:port or unix:///path.
int Play(const std::string& address, const std::string& token, Strategy& s) {
  auto channel = grpc::CreateChannel(address, grpc::InsecureChannelCredentials());
  if (!channel->WaitForConnected(std::chrono::system_clock::now() + kConnectTimeout)) {
    std::cerr << "cpp bot: cannot reach the referee at " << address
              << " (is it running, and is ARENA_ADDRESS right?)" << std::endl;
    return 1;
  }
  auto stub = v1::Referee::NewStub(channel);
  grpc::ClientContext context;
  auto stream = stub->Play(&context);

  v1::BotMessage join;
  join.mutable_join()->set_token(token);
  join.mutable_join()->set_bot_name(kBotName);
  join.mutable_join()->set_client(kClient);
  join.mutable_join()->set_events_in_requests(true);
  if (!stream->Write(join)) {
    // The stream is already over; Finish below says why.
    std::cerr << "cpp bot: cannot send Join" << std::endl;
  } else {
    v1::RefereeMessage message;
    while (stream->Read(&message)) {
      v1::BotMessage out;
      if (Handle(s, message, out.mutable_answer()) && !stream->Write(out)) {
        std::cerr << "cpp bot: cannot send an answer" << std::endl;
        break;
      }
    }
  }
  stream->WritesDone();
  grpc::Status status = stream->Finish();
  if (status.ok() || status.error_code() == grpc::StatusCode::CANCELLED) return 0;  // the lease is over
  std::cerr << "cpp bot: the referee ended the connection: code " << status.error_code() << ": "
            << status.error_message() << std::endl;
  return 1;
}

}  // namespace

int main() {
  const char* address = std::getenv("ARENA_ADDRESS");
  const char* token = std::getenv("ARENA_TOKEN");
  if (address == nullptr || *address == '\0' || token == nullptr || *token == '\0') {
    std::cerr << "cpp bot: set ARENA_ADDRESS and ARENA_TOKEN (arena match does this for the bots it starts)"
              << std::endl;
    return 2;
  }
  Strategy strategy;
  return Play(address, token, strategy);
}
