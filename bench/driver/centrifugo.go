package main

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// centrifugoClient speaks Centrifugo's bidirectional JSON protocol (v6) over WebSocket: a connect
// command with an HS256 connection token, then a subscribe command once connected; publications
// arrive as pushes {"push":{"channel","pub":{"data","offset"}}}, and the offset (the channel's
// history position) serves as the sequence for gaps and duplicates. Several replies may share one
// frame, one JSON object per line. An empty object is the server's ping, answered with an empty
// object. After a close it reconnects and subscribes with recover, epoch and the last offset, as
// centrifuge-js does, so a slow reader misses nothing the channel's history still holds.
type centrifugoClient struct {
	wsURL, token, channel string
	tally                 *Tally

	stream *stream
	socket
	subscribed bool
	epoch      []byte
	offset     int64
	recovering bool
}

func (c *centrifugoClient) Run(ctx context.Context) {
	stop := context.AfterFunc(ctx, c.Drop)
	defer stop()
	first := true
	for ctx.Err() == nil {
		t0 := time.Now()
		conn, err := dialWS(ctx, c.wsURL)
		if err == nil {
			c.conn.Store(conn)
			err = conn.Send([]byte(`{"id":1,"connect":{"token":"` + c.token + `","name":"kotak-bench"}}`))
		}
		if err != nil {
			if conn != nil {
				_ = conn.Close()
			}
			if ctx.Err() != nil {
				return
			}
			c.tally.Failed.Add(1)
			time.Sleep(200 * time.Millisecond)
			continue
		}
		c.tally.ConnectTime.Record(time.Since(t0))
		if first {
			c.tally.Opened.Add(1)
			first = false
		} else {
			c.tally.Reconnects.Add(1)
		}
		err = conn.Serve(func(msg []byte, now time.Time) { c.frame(conn, msg, now) })
		_ = conn.Close()
		c.conn.Store(nil)
		if ctx.Err() != nil {
			return
		}
		var closed *closeError
		switch {
		case c.dropped.Swap(false):
		case errors.As(err, &closed) && closed.Code == 3008:
			// Centrifugo's "slow" disconnect: the client's queue overflowed.
			c.tally.ClosedSlow.Add(1)
		default:
			c.tally.ClosedOther.Add(1)
		}
		c.recovering = len(c.epoch) > 0
	}
}

var (
	cfPush    = []byte(`{"push":`)
	cfData    = []byte(`"t":`)
	cfOffset  = []byte(`"offset":`)
	cfEpoch   = []byte(`"epoch":"`)
	cfReplyC  = []byte(`{"id":1,`)
	cfReplyS  = []byte(`{"id":2,`)
	cfError   = []byte(`"error":`)
	cfPubKey  = []byte(`"pub":`)
	cfRecover = []byte(`"publications":[`)
)

// frame handles one WebSocket message: one or more JSON objects, one per line.
func (c *centrifugoClient) frame(conn *wsConn, msg []byte, now time.Time) {
	for len(msg) > 0 {
		line := msg
		if i := bytes.IndexByte(msg, '\n'); i >= 0 {
			line, msg = msg[:i], msg[i+1:]
		} else {
			msg = nil
		}
		if len(line) > 0 {
			c.reply(conn, line, now)
		}
	}
}

func (c *centrifugoClient) reply(conn *wsConn, line []byte, now time.Time) {
	switch {
	case bytes.HasPrefix(line, cfPush):
		if i := bytes.Index(line, cfPubKey); i >= 0 {
			c.tally.FrameBytes.Add(uint64(len(line)))
			c.publication(line[i:], now)
		}
	case bytes.Equal(line, []byte(`{}`)):
		_ = conn.Send([]byte(`{}`))
	case bytes.HasPrefix(line, cfReplyC):
		if bytes.Contains(line, cfError) {
			c.tally.Refused.Add(1)
			_ = conn.Close()
			return
		}
		// recoverable: the channel's epoch and offset come back, and a later subscribe may recover.
		sub := `{"id":2,"subscribe":{"channel":` + strconv.Quote(c.channel) + `,"recoverable":true`
		if c.recovering {
			sub += `,"recover":true,"epoch":` + strconv.Quote(string(c.epoch)) + `,"offset":` + strconv.FormatInt(c.offset, 10)
		}
		_ = conn.Send([]byte(sub + `}}`))
	case bytes.HasPrefix(line, cfReplyS):
		if bytes.Contains(line, cfError) {
			c.tally.Refused.Add(1)
			return
		}
		if i := bytes.Index(line, cfEpoch); i >= 0 {
			rest := line[i+len(cfEpoch):]
			if j := bytes.IndexByte(rest, '"'); j >= 0 {
				c.epoch = append(c.epoch[:0], rest[:j]...)
			}
		}
		// Recovered publications come in the reply, oldest first; a fresh subscription's reply
		// carries the channel's current offset instead.
		if i := bytes.Index(line, cfRecover); i < 0 {
			if off, _, ok := intAfter(line, cfOffset); ok {
				c.offset = off
			}
		} else {
			rest := line[i+len(cfRecover):]
			for {
				j := bytes.Index(rest, cfData)
				if j < 0 {
					break
				}
				k := bytes.Index(rest[j:], cfOffset)
				if k < 0 {
					break
				}
				c.publication(rest[j:], now)
				rest = rest[j+k+len(cfOffset):]
			}
		}
		if !c.subscribed {
			c.subscribed = true
			c.tally.Subscribed.Add(1)
		}
	}
}

// publication counts one {"data":{"t":…,…},"offset":…} read at now.
func (c *centrifugoClient) publication(p []byte, now time.Time) {
	us, at, ok := intAfter(p, cfData)
	off, _, ok2 := intAfter(p[at:], cfOffset)
	if !ok2 {
		off, _, ok2 = intAfter(p, cfOffset)
	}
	if !ok || !ok2 {
		c.tally.ProtocolError.Add(1)
		return
	}
	c.offset = off
	c.tally.deliver(c.stream, 0, off, time.UnixMicro(us), now, false)
}

// hs256 signs a connection token (JWT, HS256) for Centrifugo with secret.
func hs256(secret, sub string, exp time.Time) string {
	enc := base64.RawURLEncoding
	head := enc.EncodeToString([]byte(`{"alg":"HS256","typ":"JWT"}`))
	body := enc.EncodeToString([]byte(`{"sub":` + strconv.Quote(sub) + `,"exp":` + strconv.FormatInt(exp.Unix(), 10) + `}`))
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(head + "." + body))
	return head + "." + body + "." + enc.EncodeToString(mac.Sum(nil))
}

// cmdCentrifugo: the fanout's load shape against Centrifugo: sockets subscribed to one channel
// while the HTTP API publishes at a constant rate; every socket must read every publication once.
// Publications carry the intended send time ("t") and padding to -payload bytes, so frames are
// the size of Kotak's message events.
func cmdCentrifugo(ctx context.Context, args []string) (map[string]any, error) {
	fs := flag.NewFlagSet("centrifugo", flag.ContinueOnError)
	base := fs.String("base", "", "http://host:port of Centrifugo")
	apiKey := fs.String("api-key", "", "HTTP API key")
	secret := fs.String("hmac-secret", "", "HMAC secret of connection tokens")
	channel := fs.String("channel", "bench", "channel every socket subscribes to")
	hosts := fs.String("hosts", "127.0.0.1", "loopback addresses to spread sockets over")
	rate := fs.Float64("rate", 100, "publications per second offered")
	duration := fs.Duration("duration", 20*time.Second, "sending time")
	sockets := fs.Int("sockets", 1000, "subscriber sockets")
	connectRate := fs.Float64("connect-rate", 500, "new sockets per second while opening")
	conns := fs.Int("connections", 200, "HTTP connections for publishing, at most")
	settle := fs.Duration("settle", 15*time.Second, "longest wait for deliveries after sending stops")
	payload := fs.Int("payload", 600, "approximate bytes of each delivered frame (Kotak's mean, to compare alike)")
	if err := parse(fs, args); err != nil {
		return nil, err
	}
	if *base == "" || *apiKey == "" || *secret == "" {
		return nil, fmt.Errorf("centrifugo: -base, -api-key and -hmac-secret are required")
	}
	port := (*base)[strings.LastIndexByte(*base, ':')+1:]
	tally := &Tally{}
	hs := strings.Split(*hosts, ",")
	subs := make([]Subscriber, *sockets)
	exp := time.Now().Add(time.Hour)
	for i := range subs {
		subs[i] = &centrifugoClient{
			wsURL:   "ws://" + hs[i%len(hs)] + ":" + port + "/connection/websocket",
			token:   hs256(*secret, "bench-"+strconv.Itoa(i), exp),
			channel: *channel, tally: tally, stream: newStream(),
		}
	}
	sockCtx, stopSockets := context.WithCancel(ctx)
	defer stopSockets()
	var wg sync.WaitGroup
	openSockets(sockCtx, subs, *connectRate, &wg)
	deadline := time.Now().Add(30*time.Second + time.Duration(float64(*sockets) / *connectRate * float64(time.Second)))
	for tally.Subscribed.Load() < uint64(*sockets) && time.Now().Before(deadline) && ctx.Err() == nil {
		time.Sleep(50 * time.Millisecond)
	}
	logf("centrifugo: %d/%d sockets subscribed; %.0f publications/s for %s", tally.Subscribed.Load(), *sockets, *rate, *duration)

	// What Centrifugo wraps around the data ({"push":{"channel":…,"pub":{"data":…,"offset":…}}})
	// and the data's own fields take about 95 bytes; the padding makes up the rest.
	pad := strings.Repeat("x", max(0, *payload-95))
	hdr := http.Header{"Content-Type": {"application/json"}, "X-API-Key": {*apiKey}}
	var accepted, refused atomic.Uint64
	logf("measure: start")
	ph := startPhase()
	post := runAttack(ctx, attackPlan{
		Name: "publish", Rate: *rate, Duration: *duration, Connections: *conns,
		next: func(i uint64, intended time.Time, t *vegeta.Target) {
			t.Method, t.URL, t.Header = "POST", *base+"/api/publish", hdr
			t.Body = []byte(`{"channel":` + strconv.Quote(*channel) + `,"data":{"t":` +
				strconv.FormatInt(intended.UnixMicro(), 10) + `,"i":` + strconv.FormatUint(i, 10) + `,"pad":"` + pad + `"}}`)
		},
		onResult: func(r *vegeta.Result) {
			// Centrifugo answers API errors with 200 and an error object; a publication it
			// refused then shows as lost deliveries.
			if r.Code == 200 {
				accepted.Add(1)
			} else {
				refused.Add(1)
			}
		},
	})
	sending := ph.report()
	expected := accepted.Load() * uint64(*sockets)
	settled := settleDeliveries(ctx, tally, expected, *settle)
	reading := ph.report()
	logf("measure: end")
	stopSockets()
	wg.Wait()
	return map[string]any{
		"post": post, "accepted": accepted.Load(), "refused": refused.Load(), "expected_deliveries": expected,
		"realtime": tally.report(), "sending": sending, "sending_and_settling": reading,
		"settle_s": round(settled.Seconds(), 2), "sockets": *sockets,
	}, nil
}
