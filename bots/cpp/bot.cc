// The C++ starter kit for arena: a gRPC client of proto/arena/v1 that plays any of the four games.
// main() and Play() are the protocol (connect, Join, answer each DecisionRequest, read errors and
// results); the decisions are in the Strategy class (strategy.h, one .cc file per game), the part a
// bot author edits.
//
//   bots/cpp/build.sh                      (generates the C++ code of proto/, builds build/bot, static)
//   arena match ninjan bots/cpp/build/bot random
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <string>

#include <grpcpp/grpcpp.h>

#include "arena/v1/arena.grpc.pb.h"
#include "arena/v1/arena.pb.h"
#include "strategy.h"

namespace {

const char kBotName[] = "cpp-starter";
const char kClient[] = "arena-cpp-starter/1.0.0";
// A bot whose referee never comes up gives up instead of hanging.
constexpr auto kConnectTimeout = std::chrono::seconds(30);

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
