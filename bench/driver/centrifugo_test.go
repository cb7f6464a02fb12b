package main

import (
	"testing"
	"time"
)

// Replies as Centrifugo v6.9.1 wrote them (recorded from a running server), read by the client's
// parser: pushes and a recovering subscribe's publications count once each, in offset order.
func TestCentrifugoRepliesCountPublicationsByOffset(t *testing.T) {
	tally := &Tally{}
	c := &centrifugoClient{channel: "bench", tally: tally, stream: newStream()}
	now := time.Now()
	c.frame(nil, []byte(`{"id":2,"subscribe":{"recoverable":true,"epoch":"oDknmngE","offset":1,"positioned":true}}`), now)
	c.frame(nil, []byte(`{"push":{"channel":"bench","pub":{"data":{"t":2,"i":2,"pad":"xx"},"offset":2}}}`+"\n"+
		`{"push":{"channel":"bench","pub":{"data":{"t":3,"i":3,"pad":"xx"},"offset":3}}}`), now)
	if string(c.epoch) != "oDknmngE" || c.offset != 3 || tally.Subscribed.Load() != 1 {
		t.Fatalf("epoch %q offset %d subscribed %d", c.epoch, c.offset, tally.Subscribed.Load())
	}
	// After a reconnect: the server replays 3 (already read) and 4, 5 (missed).
	c.frame(nil, []byte(`{"id":2,"subscribe":{"recoverable":true,"epoch":"oDknmngE","publications":[`+
		`{"data":{"t":3,"i":3,"pad":"xx"},"offset":3},{"data":{"t":4,"i":4,"pad":"xx"},"offset":4},`+
		`{"data":{"t":5,"i":5,"pad":"xx"},"offset":5}],"recovered":true,"offset":2,"positioned":true,"was_recovering":true}}`), now)
	c.frame(nil, []byte(`{"push":{"channel":"bench","pub":{"data":{"t":7,"i":7,"pad":"xx"},"offset":7}}}`), now)
	got := [4]uint64{tally.Deliveries.Load(), tally.Duplicates.Load(), tally.Gaps.Load(), tally.ProtocolError.Load()}
	if got != [4]uint64{5, 1, 1, 0} || c.offset != 7 {
		t.Fatalf("deliveries, duplicates, gaps, protocol errors = %v, offset %d; want [5 1 1 0], 7", got, c.offset)
	}
}

func TestHS256MatchesAKnownToken(t *testing.T) {
	// The token for {"sub":"x","exp":1} with secret "s3cret", signed by Node's crypto.
	got := hs256("s3cret", "x", time.Unix(1, 0))
	want := "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJ4IiwiZXhwIjoxfQ.nHOjMHkUAmyIMhgtZg2KT4U3IGUk3p5dYVMm7GDgsgA"
	if got != want {
		t.Fatalf("token %q, want %q", got, want)
	}
}
