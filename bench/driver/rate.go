package main

import (
	"context"
	"math"
	"net"
	"net/http"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// Open model: request i is due at start + i/rate whatever the answers do, so a slow server meets
// the same arrivals a fast one does. Latency counts from that intended time, so time spent queued
// behind a late schedule is not hidden (no coordinated omission); when the driver itself falls
// behind (every connection busy), the lag says so.
//
// The schedule and the request and result shapes are vegeta's (ConstantPacer's rate, Target,
// Result); the workers are ours. vegeta's Attacker spent about 7 µs of the driver's CPU on each
// request beyond the socket work (an http.Client round trip with its header copy, a Request and a
// Result per hit, a sleep per tick and two channel hand-offs between goroutines), which kept the
// kernel scenario's 40,000 req/s above half a core. Here each worker owns one keep-alive
// connection, claims the next slot of the schedule, sleeps until it is due, sends, and records the
// answer itself: no allocation, no hand-off.
type attackPlan struct {
	Name        string
	Rate        float64
	Duration    time.Duration
	Connections int
	Timeout     time.Duration
	// next fills in the i-th request; intended is when the schedule wants it sent.
	next func(i uint64, intended time.Time, t *vegeta.Target)
	// label groups results (a filter name, say); empty for one group.
	label func(r *vegeta.Result) string
	// onResult sees every answer (the storm counts accepted messages there); it may be called
	// from several goroutines at once.
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

// attackState is what the workers of one attack share; counters are atomic (one worker per
// connection, any number of them).
type attackState struct {
	p        attackPlan
	start    time.Time
	interval time.Duration
	total    uint64 // slots in the schedule (0: until stopped)
	slot     atomic.Uint64
	stop     atomic.Bool
	done     <-chan struct{}

	lat, svc, lag          Histogram
	sent, ok, failed, late atomic.Uint64
	codes                  [1000]atomic.Uint64
	mu                     sync.Mutex // guards errors and byLabel
	errors                 map[string]uint64
	byLabel                map[string]*Histogram
	lastAnswer             atomic.Int64 // ns since start
}

func runAttack(ctx context.Context, p attackPlan) attackReport {
	if p.Connections <= 0 {
		p.Connections = 64
	}
	if p.Timeout == 0 {
		p.Timeout = 30 * time.Second
	}
	// vegeta's constant pacer gives the rate (below 1/s, one hit per 1/rate seconds).
	pacer := vegeta.ConstantPacer{Freq: int(p.Rate), Per: time.Second}
	if p.Rate < 1 {
		pacer = vegeta.ConstantPacer{Freq: 1, Per: time.Duration(float64(time.Second) / p.Rate)}
	}
	a := &attackState{
		p: p, interval: pacer.Per / time.Duration(pacer.Freq), done: ctx.Done(),
		errors: map[string]uint64{}, byLabel: map[string]*Histogram{},
	}
	if p.Duration > 0 {
		a.total = uint64(math.Ceil(p.Duration.Seconds() * float64(pacer.Freq) / pacer.Per.Seconds()))
	}
	var wg sync.WaitGroup
	a.start = time.Now()
	for range p.Connections {
		wg.Add(1)
		go func() {
			defer wg.Done()
			a.worker()
		}()
	}
	stopWatch := context.AfterFunc(ctx, func() { a.stop.Store(true) })
	wg.Wait()
	stopWatch()

	rep := attackReport{Offered: p.Rate, Codes: map[string]uint64{}, Errors: a.errors}
	rep.Sent, rep.OK, rep.Failed, rep.Late = a.sent.Load(), a.ok.Load(), a.failed.Load(), a.late.Load()
	for code := range a.codes {
		if n := a.codes[code].Load(); n > 0 {
			rep.Codes[itoa(uint64(code))] = n
		}
	}
	// Sent per second over the schedule; answered per second until the last answer came, since a
	// server that falls behind is still answering after the schedule ends.
	elapsed := time.Duration(a.lastAnswer.Load()).Seconds()
	if elapsed <= 0 {
		elapsed = time.Since(a.start).Seconds()
	}
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
	rep.Latency, rep.Service, rep.Lag = a.lat.Summary(), a.svc.Summary(), a.lag.Summary()
	// Kept: nearly every request left within 10 ms of its slot and (nearly) all were sent.
	expected := p.Rate * p.Duration.Seconds()
	rep.Kept = float64(rep.Late) <= 0.01*float64(rep.Sent) && float64(rep.Sent) >= 0.99*expected
	if len(a.byLabel) > 0 {
		rep.ByLabel = map[string]map[string]float64{}
		keys := make([]string, 0, len(a.byLabel))
		for k := range a.byLabel {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			rep.ByLabel[k] = a.byLabel[k].Summary()
		}
	}
	return rep
}

// worker claims slots of the schedule one after the other until the schedule ends (a slot still
// unclaimed when the duration is over is not sent, as vegeta's attacker does).
func (a *attackState) worker() {
	var conn *leanConn
	defer func() {
		if conn != nil {
			_ = conn.Close()
		}
	}()
	var t vegeta.Target
	for !a.stop.Load() {
		i := a.slot.Add(1) - 1
		if a.total > 0 && i >= a.total {
			return
		}
		intended := a.start.Add(time.Duration(i) * a.interval)
		now := time.Now()
		if d := intended.Sub(now); d > 0 {
			if !a.sleep(d) {
				return
			}
			now = time.Now()
		} else if a.p.Duration > 0 && now.Sub(a.start) > a.p.Duration {
			return // behind at the end: what was not sent by then is not sent
		}
		t = vegeta.Target{}
		a.p.next(i, intended, &t)
		status, in, err := a.hit(&conn, &t, now)
		done := time.Now()
		a.record(i, &t, intended, now, done, status, in, err)
	}
}

// sleep waits d, or less when the attack is stopped; false when stopped.
func (a *attackState) sleep(d time.Duration) bool {
	if d < 50*time.Millisecond {
		time.Sleep(d)
		return !a.stop.Load()
	}
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-tm.C:
		return !a.stop.Load()
	case <-a.done:
		return false
	}
}

func (a *attackState) hit(conn **leanConn, t *vegeta.Target, now time.Time) (int, uint64, error) {
	c := *conn
	var u target
	var err error
	if c == nil {
		// The URL's host picks the connection's peer; every target of one attack shares a host.
		parsed, perr := (&leanConn{}).target(t.URL)
		if perr != nil {
			return 0, 0, perr
		}
		if c, err = dialLean(parsed.host, a.p.Timeout); err != nil {
			return 0, 0, err
		}
		*conn = c
	}
	if u, err = c.target(t.URL); err != nil {
		return 0, 0, err
	}
	c.deadline(now)
	status, in, err := c.exchange(t, u)
	if err != nil {
		_ = c.Close()
		*conn = nil
	}
	return status, in, err
}

func (a *attackState) record(i uint64, t *vegeta.Target, intended, sent, done time.Time, status int, in uint64, err error) {
	a.lastAnswer.Store(int64(done.Sub(a.start)))
	a.lat.Record(done.Sub(intended))
	a.svc.Record(done.Sub(sent))
	late := sent.Sub(intended)
	a.lag.Record(late)
	if late > 10*time.Millisecond {
		a.late.Add(1)
	}
	a.sent.Add(1)
	if status >= 0 && status < len(a.codes) {
		a.codes[status].Add(1)
	}
	if status >= 200 && status < 400 && err == nil {
		a.ok.Add(1)
	} else {
		a.failed.Add(1)
		if err != nil {
			a.mu.Lock()
			if len(a.errors) < 20 {
				a.errors[err.Error()]++
			}
			a.mu.Unlock()
		}
	}
	if a.p.label == nil && a.p.onResult == nil {
		return
	}
	r := vegeta.Result{
		Seq: i, Code: uint16(status), Timestamp: sent, Latency: done.Sub(sent),
		BytesIn: in, BytesOut: uint64(len(t.Body)), Method: t.Method, URL: t.URL,
	}
	if err != nil {
		r.Error = err.Error()
	}
	if a.p.label != nil {
		l := a.p.label(&r)
		a.mu.Lock()
		h := a.byLabel[l]
		if h == nil {
			h = &Histogram{}
			a.byLabel[l] = h
		}
		a.mu.Unlock()
		h.Record(done.Sub(intended))
	}
	if a.p.onResult != nil {
		a.p.onResult(&r)
	}
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
