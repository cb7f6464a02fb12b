package main

import (
	"context"
	"sort"
	"sync"
	"sync/atomic"
	"time"
)

// Subscriber is one socket of a real-time protocol: it connects, subscribes, reads until ctx ends,
// resumes where it left off when the server drops it as a slow consumer, and reports what it reads
// to a Tally. Kotak's protocol is kotakClient; Centrifugo's is centrifugoClient (issue #26), with
// the same two methods, so both face the same load shape.
type Subscriber interface {
	Run(ctx context.Context)
	// Drop closes the connection as if the network had; Run resumes from its last position.
	Drop()
}

// Tally is the protocol-independent account of deliveries, shared by every socket of a run.
type Tally struct {
	Deliveries atomic.Uint64
	FrameBytes atomic.Uint64 // payload bytes of the delivered message frames (their size, for comparing servers)
	Duplicates atomic.Uint64
	Gaps       atomic.Uint64
	Latency    Histogram
	// Warm-up messages (text "w=…"): counted and timed apart, so deliveries and latency hold only
	// the measured messages; their sequences are checked like any, so a gap or a duplicate in the
	// warm-up counts in Gaps and Duplicates (as do socket closes and reloads): against the run.
	WarmDeliveries atomic.Uint64
	WarmLatency    Histogram

	Opened        atomic.Uint64 // sockets that connected at least once
	Subscribed    atomic.Uint64 // sockets whose every channel was granted at least once
	Failed        atomic.Uint64 // connection attempts that failed
	Reconnects    atomic.Uint64
	ClosedSlow    atomic.Uint64 // closed by the server as slow consumers (Kotak: 4008)
	ClosedOther   atomic.Uint64 // closed by the server (or the network) for another reason
	Reloads       atomic.Uint64 // resumes the server could not replay (client must reload via API)
	Refused       atomic.Uint64
	ProtocolError atomic.Uint64
	ConnectTime   Histogram

	byConv sync.Map // conversation id → *atomic.Uint64

	// Per second of intended send time since origin (unix µs, set when sending starts): where in
	// the run the slow deliveries were, so a periodic stall shows apart from a steady backlog.
	origin   atomic.Int64
	timeline [timelineSeconds]second
}

// An hour: a longer run (a soak) keeps its first hour's timeline. Only runs that call Start have one
// (the Kotak inbound runs, not Centrifugo's).
const timelineSeconds = 3600

type second struct {
	n, over50 atomic.Uint64
	maxUs     atomic.Int64
}

// Start marks the origin of the timeline: the moment sending starts.
func (t *Tally) Start(at time.Time) { t.origin.Store(at.UnixMicro()) }

func (t *Tally) place(sent time.Time, latency time.Duration) {
	o := t.origin.Load()
	if o == 0 {
		return
	}
	i := (sent.UnixMicro() - o) / 1e6
	if i < 0 || i >= timelineSeconds {
		return
	}
	s := &t.timeline[i]
	s.n.Add(1)
	us := latency.Microseconds()
	if us > 50_000 {
		s.over50.Add(1)
	}
	storeMax(&s.maxUs, us)
}

// bysecond: [deliveries, over 50 ms, max ms] for each second up to the last with a delivery.
func (t *Tally) bysecond() [][3]float64 {
	last := -1
	for i := range t.timeline {
		if t.timeline[i].n.Load() > 0 {
			last = i
		}
	}
	out := make([][3]float64, last+1)
	for i := range out {
		s := &t.timeline[i]
		out[i] = [3]float64{float64(s.n.Load()), float64(s.over50.Load()), round(float64(s.maxUs.Load())/1000, 1)}
	}
	return out
}

// stream is one socket's view of per-conversation sequences, owned by whoever handles that
// socket's frames (one at a time).
type stream struct {
	convs map[int64]*convStream
}

type convStream struct {
	last  int64
	count *atomic.Uint64 // the Tally's count for the conversation
}

func newStream() *stream { return &stream{convs: map[int64]*convStream{}} }

// deliver counts one message event read at now: a sequence at or below the last one seen on this
// socket is a duplicate, one beyond the next a gap (what lies between never arrived). Latency runs
// from sent (the intended send time) to now. A warm-up message (warm) is checked, not counted.
func (t *Tally) deliver(s *stream, conv, seq int64, sent, now time.Time, warm bool) {
	cs := s.convs[conv]
	switch {
	case cs == nil:
		c, ok := t.byConv.Load(conv)
		if !ok {
			c, _ = t.byConv.LoadOrStore(conv, &atomic.Uint64{})
		}
		cs = &convStream{count: c.(*atomic.Uint64)}
		s.convs[conv] = cs
	case seq <= cs.last:
		t.Duplicates.Add(1)
		return
	case seq > cs.last+1:
		t.Gaps.Add(uint64(seq - cs.last - 1))
	}
	cs.last = seq
	if warm {
		t.WarmDeliveries.Add(1)
		t.WarmLatency.Record(now.Sub(sent))
		return
	}
	t.Deliveries.Add(1)
	if !sent.IsZero() {
		t.Latency.Record(now.Sub(sent))
		t.place(sent, now.Sub(sent))
	}
	cs.count.Add(1)
}

func (t *Tally) report() map[string]any {
	var convs []int64
	per := map[int64]uint64{}
	t.byConv.Range(func(k, v any) bool {
		convs = append(convs, k.(int64))
		per[k.(int64)] = v.(*atomic.Uint64).Load()
		return true
	})
	sort.Slice(convs, func(i, j int) bool { return convs[i] < convs[j] })
	var lo, hi uint64
	for i, c := range convs {
		if i == 0 || per[c] < lo {
			lo = per[c]
		}
		if per[c] > hi {
			hi = per[c]
		}
	}
	return map[string]any{
		"deliveries": t.Deliveries.Load(), "delivery_frame_bytes_mean": meanBytes(t.FrameBytes.Load(), t.Deliveries.Load()),
		"duplicates": t.Duplicates.Load(), "gaps": t.Gaps.Load(),
		"latency": t.Latency.Summary(), "latency_by_second": t.bysecond(), "connect_time": t.ConnectTime.Summary(),
		"sockets_opened": t.Opened.Load(), "sockets_subscribed": t.Subscribed.Load(),
		"sockets_failed": t.Failed.Load(), "reconnects": t.Reconnects.Load(),
		"sockets_closed_slow": t.ClosedSlow.Load(), "sockets_closed_other": t.ClosedOther.Load(),
		"reloads": t.Reloads.Load(), "refused": t.Refused.Load(), "protocol_errors": t.ProtocolError.Load(),
		"conversations": len(convs), "deliveries_per_conversation_min": lo, "deliveries_per_conversation_max": hi,
	}
}

func meanBytes(total, n uint64) float64 {
	if n == 0 {
		return 0
	}
	return round(float64(total)/float64(n), 1)
}
