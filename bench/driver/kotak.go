package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// kotakSession signs in as a Kotak member (session cookie + CSRF token) to mint real-time tokens.
// A token is valid for 60 s to open a socket, so reconnects late in a run need fresh ones; one is
// shared by every socket for 30 s.
type kotakSession struct {
	base, cookie, csrf string
	client             *http.Client

	mu      sync.Mutex
	token   string
	fetched time.Time
}

func (s *kotakSession) Token(ctx context.Context) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.token != "" && time.Since(s.fetched) < 30*time.Second {
		return s.token, nil
	}
	// No channels in the token: the client subscribes itself, with `since` when resuming.
	req, err := http.NewRequestWithContext(ctx, "POST", s.base+"/v1/realtime/token", strings.NewReader(`{}`))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Cookie", s.cookie)
	req.Header.Set("X-CSRF-Token", s.csrf)
	res, err := s.client.Do(req)
	if err != nil {
		return "", err
	}
	defer res.Body.Close()
	var body struct {
		Data struct {
			Token string `json:"token"`
		} `json:"data"`
	}
	if err := json.NewDecoder(res.Body).Decode(&body); err != nil || res.StatusCode != 200 {
		return "", fmt.Errorf("realtime token: %d %v", res.StatusCode, err)
	}
	s.token, s.fetched = body.Data.Token, time.Now()
	return s.token, nil
}

// kotakClient speaks http/realtime/protocol.ts: subscribe to each channel, read events
// `{"cursor", "event", "data", "at"}`, and after a resumable close reconnect and subscribe again
// with `since` = the last cursor read, so a slow reader loses nothing the server still holds.
type kotakClient struct {
	session  *kotakSession
	wsBase   string // ws://host:port
	channels []string
	tally    *Tally

	stream *stream
	cursor []byte // of the last event read
	socket
	subscribed bool
	granted    int // subscriptions granted on this connection
}

func newKotakClient(s *kotakSession, wsBase string, channels []string, t *Tally) *kotakClient {
	return &kotakClient{session: s, wsBase: wsBase, channels: channels, tally: t, stream: newStream()}
}

func (c *kotakClient) Run(ctx context.Context) {
	stop := context.AfterFunc(ctx, c.Drop)
	defer stop()
	first := true
	for ctx.Err() == nil {
		conn, err := c.connect(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			c.tally.Failed.Add(1)
			time.Sleep(200 * time.Millisecond)
			continue
		}
		if first {
			c.tally.Opened.Add(1)
			first = false
		} else {
			c.tally.Reconnects.Add(1)
		}
		err = c.read(conn)
		_ = conn.Close()
		c.conn.Store(nil)
		if ctx.Err() != nil {
			return
		}
		var closed *closeError
		switch {
		case c.dropped.Swap(false):
			// Our own Drop (the soak's churn): resume like a client whose network blinked.
		case errors.As(err, &closed) && closed.Code == 4008:
			c.tally.ClosedSlow.Add(1)
		case errors.As(err, &closed) && closed.Code >= 4500:
			// The server says not to come back on our own (access lost).
			c.tally.ClosedOther.Add(1)
			return
		default:
			c.tally.ClosedOther.Add(1)
		}
	}
}

func (c *kotakClient) connect(ctx context.Context) (*wsConn, error) {
	t0 := time.Now()
	token, err := c.session.Token(ctx)
	if err != nil {
		return nil, err
	}
	conn, err := dialWS(ctx, c.wsBase+"/v1/realtime?token="+token)
	if err != nil {
		return nil, err
	}
	c.tally.ConnectTime.Record(time.Since(t0))
	c.conn.Store(conn)
	if ctx.Err() != nil {
		_ = conn.Close()
		return nil, ctx.Err()
	}
	// The cursor is the node's sequence over all topics, and one socket reads frames in that
	// order, so the last cursor read covers every channel.
	var frame bytes.Buffer
	for i, ch := range c.channels {
		frame.Reset()
		frame.WriteString(`{"op":"subscribe","channel":`)
		frame.WriteString(strconv.Quote(ch))
		if len(c.cursor) > 0 {
			frame.WriteString(`,"since":`)
			frame.WriteString(strconv.Quote(string(c.cursor)))
		}
		frame.WriteString(`,"ref":`)
		frame.WriteString(strconv.Itoa(i))
		frame.WriteString(`}`)
		if err := conn.Send(frame.Bytes()); err != nil {
			_ = conn.Close()
			return nil, err
		}
	}
	return conn, nil
}

var (
	cursorPrefix  = []byte(`{"cursor":"`)
	eventKey      = []byte(`"event":"`)
	messageEvent  = []byte(`"event":"message.created"`)
	messageName   = []byte(`message.created"`)
	interactionID = []byte(`"interaction_id":`)
	seqField      = []byte(`"seq":`)
	stampField    = []byte(`"body":"t=`)
	warmField     = []byte(`"body":"w=`)
	opSubscribed  = []byte(`"op":"subscribed"`)
	opReload      = []byte(`"op":"reload"`)
	opRefused     = []byte(`"op":"refused"`)
	opError       = []byte(`"op":"error"`)
)

// read handles frames until the connection ends.
func (c *kotakClient) read(conn *wsConn) error {
	c.granted = 0
	return conn.Serve(c.handle)
}

// handle takes one frame, read at now. Frames are scanned, not decoded: at 200,000 deliveries a
// second a JSON decode per frame would make the driver the limit. The hub writes every event as
// {"cursor":"…","event":"…","data":{…},"at":"…"}, so the event's name sits right after the
// cursor, and a message's interaction_id, seq and body follow in that order (presentMessage):
// events other than message.created (inbox.changed, typing, …) cost a cursor copy and one
// comparison, and a message is scanned once from left to right. Another field order falls back
// to searching the whole frame.
func (c *kotakClient) handle(msg []byte, now time.Time) {
	if bytes.HasPrefix(msg, cursorPrefix) {
		rest := msg[len(cursorPrefix):]
		end := bytes.IndexByte(rest, '"')
		if end <= 0 {
			c.tally.ProtocolError.Add(1)
			return
		}
		c.cursor = append(c.cursor[:0], rest[:end]...)
		rest = rest[end+1:]
		if len(rest) > 0 && rest[0] == ',' {
			rest = rest[1:]
		}
		if bytes.HasPrefix(rest, eventKey) {
			if !bytes.HasPrefix(rest[len(eventKey):], messageName) {
				return
			}
			rest = rest[len(eventKey)+len(messageName):]
		} else if !bytes.Contains(msg, messageEvent) {
			return
		} else {
			rest = msg
		}
		conv, at, ok1 := intAfter(rest, interactionID)
		seq, at2, ok2 := intAfter(rest[at:], seqField)
		if !ok1 || !ok2 {
			// Not in the expected order: search the whole frame.
			conv, _, ok1 = intAfter(msg, interactionID)
			seq, at2, ok2 = intAfter(msg, seqField)
			rest, at = msg, 0
		}
		if !ok1 || !ok2 {
			c.tally.ProtocolError.Add(1)
			return
		}
		var sent time.Time
		warm := false
		if us, _, ok := intAfter(rest[at+at2:], stampField); ok {
			sent = time.UnixMicro(us)
		} else if us, _, ok := intAfter(msg, stampField); ok {
			sent = time.UnixMicro(us)
		} else if us, _, ok := intAfter(msg, warmField); ok {
			sent, warm = time.UnixMicro(us), true
		}
		if !warm {
			c.tally.FrameBytes.Add(uint64(len(msg)))
		}
		c.tally.deliver(c.stream, conv, seq, sent, now, warm)
		return
	}
	switch {
	case bytes.Contains(msg, opSubscribed):
		c.granted++
		if c.granted == len(c.channels) && !c.subscribed {
			c.subscribed = true
			c.tally.Subscribed.Add(1)
		}
	case bytes.Contains(msg, opReload):
		c.tally.Reloads.Add(1)
	case bytes.Contains(msg, opRefused):
		c.tally.Refused.Add(1)
	case bytes.Contains(msg, opError):
		c.tally.ProtocolError.Add(1)
	}
}

// intAfter parses the integer that follows the first occurrence of key, and says where it ends.
func intAfter(msg, key []byte) (int64, int, bool) {
	i := bytes.Index(msg, key)
	if i < 0 {
		return 0, 0, false
	}
	i += len(key)
	var n int64
	start := i
	for ; i < len(msg) && msg[i] >= '0' && msg[i] <= '9'; i++ {
		n = n*10 + int64(msg[i]-'0')
	}
	return n, i, i > start
}
