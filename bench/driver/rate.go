package main

import (
	"context"
	"net"
	"net/http"
	"sort"
	"sync/atomic"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// Open model: vegeta's constant pacer releases request i at start + i/rate whatever the answers do,
// starting more workers when all are waiting, so a slow server meets the same arrivals a fast one
// does. Latency counts from that intended time, so time spent queued behind a late schedule is not
// hidden (no coordinated omission); when the driver itself falls behind, the lag says so.
type attackPlan struct {
	Name        string
	Rate        float64
	Duration    time.Duration
	Connections int
	MaxWorkers  uint64
	Timeout     time.Duration
	// next fills in the i-th request; intended is when the schedule wants it sent.
	next func(i uint64, intended time.Time, t *vegeta.Target)
	// label groups results (a filter name, say); empty for one group.
	label func(r *vegeta.Result) string
	// onResult sees every answer (the storm counts accepted messages there).
	onResult func(r *vegeta.Result)
}

type attackReport struct {
	Offered    float64                       `json:"offered_per_s"`
	Sent       uint64                        `json:"sent"`
	SentPerS   float64                       `json:"sent_per_s"`
	OK         uint64                        `json:"ok"`
	OKPerS     float64                       `json:"ok_per_s"`
	Failed     uint64                        `json:"failed"`
	FailedRate float64                       `json:"failed_rate"`
	Codes      map[string]uint64             `json:"codes"`
	Errors     map[string]uint64             `json:"errors,omitempty"`
	Latency    map[string]float64            `json:"latency"`
	Service    map[string]float64            `json:"service_latency"`
	Lag        map[string]float64            `json:"schedule_lag"`
	Late       uint64                        `json:"late_over_10ms"`
	Kept       bool                          `json:"schedule_kept"`
	ByLabel    map[string]map[string]float64 `json:"by_label,omitempty"`
	DurationS  float64                       `json:"duration_s"`
}

// newClient is net/http's client, for the few set-up calls (tokens); the load itself goes through
// leanTransport.
func newClient(connections int, timeout time.Duration) *http.Client {
	dialer := &net.Dialer{KeepAlive: 30 * time.Second}
	return &http.Client{
		Timeout: timeout,
		Transport: &http.Transport{
			DialContext:         dialer.DialContext,
			MaxIdleConns:        connections,
			MaxIdleConnsPerHost: connections,
			MaxConnsPerHost:     connections,
			DisableCompression:  true,
			IdleConnTimeout:     90 * time.Second,
		},
	}
}

func runAttack(ctx context.Context, p attackPlan) attackReport {
	if p.Connections <= 0 {
		p.Connections = 64
	}
	if p.MaxWorkers == 0 {
		p.MaxWorkers = 10_000
	}
	if p.Timeout == 0 {
		p.Timeout = 30 * time.Second
	}
	interval := time.Duration(float64(time.Second) / p.Rate)
	var counter atomic.Uint64
	start := time.Now()
	targeter := func(t *vegeta.Target) error {
		i := counter.Add(1) - 1
		p.next(i, start.Add(time.Duration(i)*interval), t)
		return nil
	}
	atk := vegeta.NewAttacker(
		// No client timeout: net/http implements it with a goroutine per request; the transport's
		// deadlines bound each exchange instead.
		vegeta.Client(&http.Client{Transport: newLeanTransport(p.Connections, p.Timeout)}),
		vegeta.Workers(uint64(p.Connections)),
		vegeta.MaxWorkers(p.MaxWorkers),
		vegeta.MaxBody(0),
	)
	pacer := vegeta.ConstantPacer{Freq: int(p.Rate), Per: time.Second}
	if p.Rate < 1 {
		pacer = vegeta.ConstantPacer{Freq: 1, Per: time.Duration(float64(time.Second) / p.Rate)}
	}
	go func() {
		<-ctx.Done()
		atk.Stop()
	}()
	var lat, svc, lag Histogram
	byLabel := map[string]*Histogram{}
	rep := attackReport{Offered: p.Rate, Codes: map[string]uint64{}, Errors: map[string]uint64{}}
	// An empty attack name spares vegeta an X-Vegeta-Attack header per request.
	for r := range atk.Attack(targeter, pacer, p.Duration, "") {
		intended := start.Add(time.Duration(r.Seq) * interval)
		done := r.Timestamp.Add(r.Latency)
		lat.Record(done.Sub(intended))
		svc.Record(r.Latency)
		late := r.Timestamp.Sub(intended)
		lag.Record(late)
		if late > 10*time.Millisecond {
			rep.Late++
		}
		rep.Sent++
		rep.Codes[itoa(uint64(r.Code))]++
		if r.Code >= 200 && r.Code < 400 && r.Error == "" {
			rep.OK++
		} else {
			rep.Failed++
			if r.Error != "" && len(rep.Errors) < 20 {
				rep.Errors[r.Error]++
			}
		}
		if p.label != nil {
			l := p.label(r)
			h := byLabel[l]
			if h == nil {
				h = &Histogram{}
				byLabel[l] = h
			}
			h.Record(done.Sub(intended))
		}
		if p.onResult != nil {
			p.onResult(r)
		}
	}
	// Sent per second over the schedule; answered per second until the last answer came, since a
	// server that falls behind is still answering after the schedule ends.
	elapsed := time.Since(start).Seconds()
	scheduled := elapsed
	if p.Duration > 0 {
		scheduled = p.Duration.Seconds()
	}
	rep.DurationS = round(elapsed, 2)
	rep.SentPerS = round(float64(rep.Sent)/scheduled, 1)
	rep.OKPerS = round(float64(rep.OK)/elapsed, 1)
	if rep.Sent > 0 {
		rep.FailedRate = round(float64(rep.Failed)/float64(rep.Sent), 4)
	}
	rep.Latency, rep.Service, rep.Lag = lat.Summary(), svc.Summary(), lag.Summary()
	// Kept: nearly every request left within 10 ms of its slot and (nearly) all were sent.
	expected := p.Rate * p.Duration.Seconds()
	rep.Kept = float64(rep.Late) <= 0.01*float64(rep.Sent) && float64(rep.Sent) >= 0.99*expected
	if len(byLabel) > 0 {
		rep.ByLabel = map[string]map[string]float64{}
		keys := make([]string, 0, len(byLabel))
		for k := range byLabel {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			rep.ByLabel[k] = byLabel[k].Summary()
		}
	}
	return rep
}

func itoa(n uint64) string {
	if n == 0 {
		return "0"
	}
	var b [20]byte
	i := len(b)
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	return string(b[i:])
}
