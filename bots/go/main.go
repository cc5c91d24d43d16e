// Command bot is the Go starter kit for arena: it speaks proto/arena/v1 as a gRPC client and plays any
// of the four games. This file is the protocol (connect, Join, answer each DecisionRequest, read errors
// and results); the decisions themselves are in strategy.go, the file a bot author edits.
//
//	bots/go/build.sh                                  (generates the Go code of proto/, builds build/bot)
//	arena match ninjan bots/go/build/bot random
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	arenav1 "github.com/arena/arena/gen/go/arenav1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

const (
	botName = "go-starter"
	client  = "arena-go-starter/1.0.0"
	// A bot whose referee never comes up gives up instead of hanging.
	connectTimeout = 30 * time.Second
)

func main() {
	address, token := os.Getenv("ARENA_ADDRESS"), os.Getenv("ARENA_TOKEN")
	if address == "" || token == "" {
		fmt.Fprintln(os.Stderr, "go bot: set ARENA_ADDRESS and ARENA_TOKEN (arena match does this for the bots it starts)")
		os.Exit(2)
	}
	if err := play(address, token, newStrategy()); err != nil {
		fmt.Fprintf(os.Stderr, "go bot: %v\n", err)
		os.Exit(1)
	}
}

// play connects to the referee and plays every match it sends over one stream; it returns nil when the
// referee ends the stream normally.
//
// Design detail: ARENA_ADDRESS goes to grpc.Dial unchanged. It is either host:port or unix:///path
// (the sandbox's socket); gRPC-Go dials both, from Debian's 1.33 to today's releases.
func play(address, token string, s *strategy) error {
	ctx, cancel := context.WithTimeout(context.Background(), connectTimeout)
	conn, err := grpc.DialContext(ctx, address, grpc.WithInsecure(), grpc.WithBlock())
	cancel()
	if err != nil {
		return fmt.Errorf("cannot reach the referee at %s: %v (is it running, and is ARENA_ADDRESS right?)", address, err)
	}
	defer conn.Close()
	stream, err := arenav1.NewRefereeClient(conn).Play(context.Background())
	if err != nil {
		return fmt.Errorf("cannot open the Play stream: %v", err)
	}
	join := &arenav1.Join{Token: token, BotName: botName, Client: client, EventsInRequests: true}
	if err := stream.Send(&arenav1.BotMessage{Kind: &arenav1.BotMessage_Join{Join: join}}); err != nil {
		return fmt.Errorf("cannot send Join: %v", err)
	}
	for {
		message, err := stream.Recv()
		if err == io.EOF || status.Code(err) == codes.Canceled {
			return nil // the referee ended the stream: the lease is over
		}
		if err != nil {
			return fmt.Errorf("the referee ended the connection: %v", err)
		}
		if answer := handle(s, message); answer != nil {
			if err := stream.Send(&arenav1.BotMessage{Kind: &arenav1.BotMessage_Answer{Answer: answer}}); err != nil {
				return fmt.Errorf("cannot send an answer: %v", err)
			}
		}
	}
}

// handle dispatches one referee message to the strategy; it returns the Answer to send, if any.
func handle(s *strategy, message *arenav1.RefereeMessage) *arenav1.Answer {
	switch kind := message.Kind.(type) {
	case *arenav1.RefereeMessage_MatchStart:
		s.matchStart(kind.MatchStart)
	case *arenav1.RefereeMessage_Decision:
		return decide(s, kind.Decision)
	case *arenav1.RefereeMessage_Event:
		s.event(kind.Event)
	case *arenav1.RefereeMessage_Error:
		e := kind.Error
		fmt.Fprintf(os.Stderr, "go bot: referee says %s: %s (strikes %d of %d)\n", e.Code, e.Message, e.Strikes, e.MaxStrikes)
	case *arenav1.RefereeMessage_Result:
		for _, event := range kind.Result.Events {
			s.event(event)
		}
		s.result(kind.Result)
	}
	return nil
}

// noDeadline stands for "no deadline" (deadline_ms 0: a seat attached by hand, e.g. in a debugger):
// far enough ahead that a strategy checking time.Until(deadline) never hurries.
var noDeadline = time.Now().AddDate(100, 0, 0)

// deadlineOf returns when an answer is due: deadline_ms from now, or noDeadline when it is 0.
func deadlineOf(deadlineMs uint32) time.Time {
	if deadlineMs == 0 {
		return noDeadline
	}
	return time.Now().Add(time.Duration(deadlineMs) * time.Millisecond)
}

// decide answers one DecisionRequest with an index into its legal actions.
func decide(s *strategy, request *arenav1.DecisionRequest) *arenav1.Answer {
	deadline := deadlineOf(request.DeadlineMs)
	for _, event := range request.Events {
		s.event(event)
	}
	index := s.choose(request.Observation, request.LegalActions, deadline)
	if index < 0 || index >= len(request.LegalActions) {
		// A bug in the strategy: say so, and let the referee count the strike.
		fmt.Fprintf(os.Stderr, "go bot: strategy chose index %d of %d legal actions\n", index, len(request.LegalActions))
	}
	return &arenav1.Answer{RequestId: request.RequestId, Choice: &arenav1.Answer_Index{Index: uint32(index)}}
}
