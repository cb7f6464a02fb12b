package main

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// cmdHTTP: GETs over one or more named targets, round-robin, at a constant rate.
func cmdHTTP(ctx context.Context, args []string) (map[string]any, error) {
	fs := flag.NewFlagSet("http", flag.ContinueOnError)
	var targets, headers listFlag
	fs.Var(&targets, "target", "name=URL (repeatable; requests go round-robin)")
	fs.Var(&headers, "header", "'Name: value' (repeatable)")
	rate := fs.Float64("rate", 1000, "requests per second offered")
	duration := fs.Duration("duration", 20*time.Second, "")
	conns := fs.Int("connections", 64, "HTTP connections at most")
	warmup := fs.Duration("warmup", 0, "requests at the same rate before measuring, reported apart (JIT, pools, caches)")
	if err := parse(fs, args); err != nil {
		return nil, err
	}
	if len(targets) == 0 {
		return nil, fmt.Errorf("http: at least one -target")
	}
	h := http.Header{}
	for _, v := range headers {
		k, val, _ := strings.Cut(v, ":")
		h.Set(strings.TrimSpace(k), strings.TrimSpace(val))
	}
	names := make([]string, len(targets))
	urls := make([]string, len(targets))
	byURL := map[string]string{}
	for i, t := range targets {
		name, u, ok := strings.Cut(t, "=")
		if !ok {
			name, u = "default", t
		}
		names[i], urls[i] = name, u
		byURL[u] = name
	}
	next := func(i uint64, _ time.Time, t *vegeta.Target) {
		t.Method, t.URL, t.Header = "GET", urls[i%uint64(len(urls))], h
	}
	out := map[string]any{}
	if *warmup > 0 {
		logf("http: warm-up %.0f req/s for %s", *rate, *warmup)
		out["warmup"] = runAttack(ctx, attackPlan{Name: "http warm-up", Rate: *rate, Duration: *warmup, Connections: *conns, next: next})
	}
	logf("http: %.0f req/s for %s over %d target(s), %d connections", *rate, *duration, len(urls), *conns)
	// The caller's CPU window opens here: the warm-up is not work of the measured requests.
	logf("measure: start")
	ph := startPhase()
	plan := attackPlan{Name: "http", Rate: *rate, Duration: *duration, Connections: *conns, next: next}
	if len(urls) > 1 {
		plan.label = func(r *vegeta.Result) string { return byURL[r.URL] }
	}
	out["http"] = runAttack(ctx, plan)
	out["sending"] = ph.report()
	logf("measure: end")
	return out, nil
}

type realtimeFlags struct {
	base, cookie, csrf, hosts, channels *string
}

func addRealtimeFlags(fs *flag.FlagSet) realtimeFlags {
	return realtimeFlags{
		base:     fs.String("base", "", "http://host:port of the Kotak server"),
		cookie:   fs.String("cookie", "", "session cookie of a member (mints real-time tokens)"),
		csrf:     fs.String("csrf", "", "that session's CSRF token"),
		hosts:    fs.String("hosts", "127.0.0.1", "loopback addresses to spread sockets over (more source ports)"),
		channels: fs.String("channels", "", "comma-separated channels each socket subscribes to"),
	}
}

// clients makes n Kotak protocol sockets, spread round-robin over the hosts.
func (f realtimeFlags) clients(n int, tally *Tally) ([]Subscriber, error) {
	u, err := url.Parse(*f.base)
	if err != nil || *f.base == "" {
		return nil, fmt.Errorf("-base: %q", *f.base)
	}
	session := &kotakSession{base: *f.base, cookie: *f.cookie, csrf: *f.csrf, client: newClient(4, 30*time.Second)}
	hosts := strings.Split(*f.hosts, ",")
	channels := strings.Split(*f.channels, ",")
	out := make([]Subscriber, n)
	for i := range out {
		out[i] = newKotakClient(session, "ws://"+hosts[i%len(hosts)]+":"+u.Port(), channels, tally)
	}
	return out, nil
}

// cmdInbound (storm, fanout) and the soak: sockets subscribed to conversations while customer
// systems post inbound messages at a constant rate; every socket must receive every message once.
func cmdInbound(ctx context.Context, args []string, soak bool) (map[string]any, error) {
	name := map[bool]string{false: "inbound", true: "soak"}[soak]
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	rt := addRealtimeFlags(fs)
	key := fs.String("channel-key", "", "API channel key")
	convs := fs.String("conversations", "", "comma-separated external conversation ids to post to")
	rate := fs.Float64("rate", 100, "messages per second offered")
	duration := fs.Duration("duration", 20*time.Second, "sending time")
	sockets := fs.Int("sockets", 10, "agent sockets")
	connectRate := fs.Float64("connect-rate", 500, "new sockets per second while opening")
	conns := fs.Int("connections", 200, "HTTP connections for posting, at most")
	settle := fs.Duration("settle", 15*time.Second, "longest wait for deliveries after sending stops")
	warmup := fs.Duration("warmup", 0, "sending at the same rate before measuring, counted apart (JIT, pools, caches)")
	// The soak's extra load: reads over HTTP and one socket reconnecting all the time.
	var gets, headers listFlag
	fs.Var(&gets, "get", "URL read during the soak (repeatable)")
	fs.Var(&headers, "header", "'Name: value' for the soak's reads (repeatable)")
	getRate := fs.Float64("get-rate", 50, "soak: reads per second")
	churn := fs.Duration("churn", 3*time.Second, "soak: one socket drops and resumes this often")
	if err := parse(fs, args); err != nil {
		return nil, err
	}
	external := strings.Split(*convs, ",")
	if *key == "" || len(external) == 0 || external[0] == "" {
		return nil, fmt.Errorf("%s: -channel-key and -conversations are required", name)
	}
	tally := &Tally{}
	subs, err := rt.clients(*sockets, tally)
	if err != nil {
		return nil, err
	}
	sockCtx, stopSockets := context.WithCancel(ctx)
	defer stopSockets()
	var wg sync.WaitGroup
	openSockets(sockCtx, subs, *connectRate, &wg)
	// Sending starts once every socket holds its subscriptions (or gave up trying).
	deadline := time.Now().Add(30*time.Second + time.Duration(float64(*sockets) / *connectRate * float64(time.Second)))
	for tally.Subscribed.Load() < uint64(*sockets) && time.Now().Before(deadline) && ctx.Err() == nil {
		time.Sleep(50 * time.Millisecond)
	}
	logf("%s: %d/%d sockets subscribed; %.0f msg/s for %s over %d conversation(s)",
		name, tally.Subscribed.Load(), *sockets, *rate, *duration, len(external))

	runID := strconv.FormatInt(time.Now().UnixNano(), 36)
	hdr := http.Header{"Content-Type": {"application/json"}, "Authorization": {"Bearer " + *key}}
	// body posts message i of a phase ("t" measured, "w" warm-up) with its intended send time.
	body := func(phase string, i uint64, intended time.Time) []byte {
		conv := external[i%uint64(len(external))]
		return []byte(`{"conversation_id":"` + conv + `","contact":{"id":"c-` + conv +
			`","name":"Bench customer"},"message":{"id":"` + phase + `-` + runID + `-` + strconv.FormatUint(i, 10) +
			`","text":"` + phase + `=` + strconv.FormatInt(intended.UnixMicro(), 10) + `"}}`)
	}
	// posting posts message i of a phase at its slot of the schedule. The text carries the
	// intended send time, so delivery latency counts any lateness of the schedule, as the POST
	// latency does.
	posting := func(name, phase string, d time.Duration, onResult func(*vegeta.Result)) attackPlan {
		return attackPlan{
			Name: name, Rate: *rate, Duration: d, Connections: *conns, onResult: onResult,
			next: func(i uint64, intended time.Time, t *vegeta.Target) {
				t.Method, t.URL, t.Header = "POST", *rt.base+"/v1/channel-api/messages", hdr
				t.Body = body(phase, i, intended)
			},
		}
	}
	warm := map[string]any{}
	if *warmup > 0 {
		var warmAccepted atomic.Uint64
		rep := runAttack(ctx, posting("warm-up", "w", *warmup, func(r *vegeta.Result) {
			if r.Code == 201 {
				warmAccepted.Add(1)
			}
		}))
		// Measuring starts from a server with nothing left over: every warm-up message delivered
		// (or the settle time over, which the report says: the rest is then in the window).
		expected := warmAccepted.Load() * uint64(*sockets)
		waited := settleCount(ctx, &tally.WarmDeliveries, expected, *settle)
		drained := tally.WarmDeliveries.Load() >= expected
		warm = map[string]any{
			"seconds": warmup.Seconds(), "post": rep, "accepted": warmAccepted.Load(),
			"expected_deliveries": expected, "deliveries": tally.WarmDeliveries.Load(), "drained": drained,
			"latency": tally.WarmLatency.Summary(), "settle_s": round(waited.Seconds(), 2),
		}
		logf("%s: warm-up %s, %d accepted, delivery p99 %.1f ms", name, *warmup, warmAccepted.Load(), tally.WarmLatency.Quantile(0.99))
		if !drained {
			logf("%s: WARNING the warm-up was not delivered within %s; measuring starts behind", name, *settle)
		}
	}
	var mu sync.Mutex
	accepted, refused := uint64(0), uint64(0)
	churned := 0
	var readRep attackReport
	var readWG sync.WaitGroup
	if soak && len(gets) > 0 {
		rh := http.Header{}
		for _, v := range headers {
			k, val, _ := strings.Cut(v, ":")
			rh.Set(strings.TrimSpace(k), strings.TrimSpace(val))
		}
		readWG.Add(1)
		go func() {
			defer readWG.Done()
			readRep = runAttack(ctx, attackPlan{
				Name: "reads", Rate: *getRate, Duration: *duration, Connections: 16,
				next: func(i uint64, _ time.Time, t *vegeta.Target) {
					t.Method, t.URL, t.Header = "GET", gets[i%uint64(len(gets))], rh
				},
			})
		}()
	}
	churnStop := make(chan struct{})
	var churnWG sync.WaitGroup
	if soak && *churn > 0 && len(subs) > 0 {
		churnWG.Add(1)
		go func() {
			defer churnWG.Done()
			tick := time.NewTicker(*churn)
			defer tick.Stop()
			for {
				select {
				case <-tick.C:
					subs[0].Drop()
					churned++
				case <-churnStop:
					return
				}
			}
		}()
	}
	// bench/run.ts opens its CPU window of the server and PostgreSQL on this line and closes it on
	// "measure: end", so set-up and tear-down of the sockets are not counted as work.
	logf("measure: start")
	ph := startPhase()
	tally.Start(time.Now())
	post := runAttack(ctx, posting("inbound", "t", *duration, func(r *vegeta.Result) {
		mu.Lock()
		if r.Code == 201 {
			accepted++
		} else {
			refused++
		}
		mu.Unlock()
	}))
	sending := ph.report()
	close(churnStop)
	churnWG.Wait()
	readWG.Wait()
	// Settle: wait until every socket has every accepted message, or the settle time is over.
	expected := accepted * uint64(*sockets)
	settled := settleDeliveries(ctx, tally, expected, *settle)
	reading := ph.report()
	logf("measure: end")
	stopSockets()
	wg.Wait()
	out := map[string]any{
		"post": post, "accepted": accepted, "refused": refused, "expected_deliveries": expected,
		"realtime": tally.report(), "sending": sending, "sending_and_settling": reading,
		"settle_s": round(settled.Seconds(), 2), "sockets": *sockets, "warmup": warm,
	}
	if soak {
		out["reads"] = readRep
		out["churned"] = churned
	}
	return out, nil
}

// openSockets starts each subscriber at connectRate per second (a ramp, not a stampede).
func openSockets(ctx context.Context, subs []Subscriber, connectRate float64, wg *sync.WaitGroup) {
	interval := time.Duration(float64(time.Second) / connectRate)
	start := time.Now()
	for i, s := range subs {
		if d := time.Until(start.Add(time.Duration(i) * interval)); d > 0 {
			time.Sleep(d)
		}
		if ctx.Err() != nil {
			return
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.Run(ctx)
		}()
	}
}

// cmdSockets: idle sockets subscribed to their workspace, opened over a ramp and held.
func cmdSockets(ctx context.Context, args []string) (map[string]any, error) {
	fs := flag.NewFlagSet("sockets", flag.ContinueOnError)
	rt := addRealtimeFlags(fs)
	n := fs.Int("sockets", 1000, "sockets to hold")
	ramp := fs.Duration("ramp", 20*time.Second, "time to open them all")
	hold := fs.Duration("hold", 20*time.Second, "time to hold them after the ramp")
	if err := parse(fs, args); err != nil {
		return nil, err
	}
	tally := &Tally{}
	subs, err := rt.clients(*n, tally)
	if err != nil {
		return nil, err
	}
	sockCtx, stop := context.WithCancel(ctx)
	defer stop()
	var wg sync.WaitGroup
	logf("sockets: %d over %s, hold %s", *n, *ramp, *hold)
	ph := startPhase()
	openSockets(sockCtx, subs, float64(*n)/ramp.Seconds(), &wg)
	rampDone := time.Since(ph.wall)
	select {
	case <-time.After(*hold):
	case <-ctx.Done():
	}
	held := ph.report()
	stop()
	wg.Wait()
	return map[string]any{
		"realtime": tally.report(), "attempted": *n, "ramp_s": round(rampDone.Seconds(), 2), "holding": held,
	}, nil
}

// settleDeliveries waits until the sockets have read `expected` deliveries, or `limit` is over;
// it answers how long it waited.
func settleDeliveries(ctx context.Context, tally *Tally, expected uint64, limit time.Duration) time.Duration {
	return settleCount(ctx, &tally.Deliveries, expected, limit)
}

// settleCount waits until count reaches `expected`, or `limit` is over; it answers how long.
func settleCount(ctx context.Context, count *atomic.Uint64, expected uint64, limit time.Duration) time.Duration {
	start := time.Now()
	for count.Load() < expected && time.Since(start) < limit && ctx.Err() == nil {
		time.Sleep(50 * time.Millisecond)
	}
	return time.Since(start)
}

// socket is a driver client's current WebSocket and whether the run dropped it on purpose.
type socket struct {
	conn    atomic.Pointer[wsConn]
	dropped atomic.Bool
}

// Drop closes the current connection on purpose (churn, or the end of the run).
func (s *socket) Drop() {
	s.dropped.Store(true)
	if conn := s.conn.Load(); conn != nil {
		_ = conn.Close()
	}
}
