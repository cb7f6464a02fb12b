package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// leanConn is one keep-alive HTTP/1.1 connection of the load: it writes the request bytes itself
// and reads only the status line and Content-Length, which is all the benchmarks look at; bodies of
// answers are discarded. net/http's client cost the driver about 31 µs of CPU per request on this
// machine, most of it in per-request goroutines, timers and header maps; each connection here
// belongs to one worker (rate.go), so there is no pool, no per-request allocation and no
// hand-off between goroutines.
type leanConn struct {
	c       net.Conn
	br      *bufio.Reader
	bw      *bufio.Writer
	timeout time.Duration
	renew   time.Time // when the connection's deadline must be pushed on
	urls    map[string]target
	lastURL string // the URL of the previous request, and its parts: most attacks have one
	last    target
}

// target is a URL split once into what the request line and Host header need.
type target struct {
	host, uri string
}

var errUnsupported = errors.New("lean transport: response without Content-Length")

func (c *leanConn) target(raw string) (target, error) {
	if raw == c.lastURL && raw != "" {
		return c.last, nil
	}
	if t, ok := c.urls[raw]; ok {
		c.lastURL, c.last = raw, t
		return t, nil
	}
	u, err := url.Parse(raw)
	if err != nil {
		return target{}, err
	}
	if u.Scheme != "http" {
		return target{}, fmt.Errorf("lean transport: %q is not http://", raw)
	}
	if c.urls == nil {
		c.urls = map[string]target{}
	}
	t := target{host: u.Host, uri: u.RequestURI()}
	c.urls[raw] = t
	c.lastURL, c.last = raw, t
	return t, nil
}

func dialLean(host string, timeout time.Duration) (*leanConn, error) {
	c, err := net.DialTimeout("tcp", host, 10*time.Second)
	if err != nil {
		return nil, err
	}
	return &leanConn{c: c, br: bufio.NewReaderSize(c, 16384), bw: bufio.NewWriterSize(c, 4096), timeout: timeout}, nil
}

// deadline bounds each exchange by the timeout without a timer update per request: the deadline
// is pushed to now + timeout once half of it has passed, so an exchange has between half the
// timeout and the whole of it.
func (c *leanConn) deadline(now time.Time) {
	if c.timeout > 0 && now.After(c.renew) {
		_ = c.c.SetDeadline(now.Add(c.timeout))
		c.renew = now.Add(c.timeout / 2)
	}
}

// exchange sends one request and reads its answer's status; bytes out and in are returned for
// the report.
func (c *leanConn) exchange(t *vegeta.Target, u target) (status int, in uint64, err error) {
	w := c.bw
	w.WriteString(t.Method)
	w.WriteByte(' ')
	w.WriteString(u.uri)
	w.WriteString(" HTTP/1.1\r\nHost: ")
	w.WriteString(u.host)
	w.WriteString("\r\n")
	for k, vs := range t.Header {
		for _, v := range vs {
			w.WriteString(k)
			w.WriteString(": ")
			w.WriteString(v)
			w.WriteString("\r\n")
		}
	}
	if len(t.Body) > 0 {
		w.WriteString("Content-Length: ")
		w.WriteString(strconv.Itoa(len(t.Body)))
		w.WriteString("\r\n\r\n")
		w.Write(t.Body)
	} else {
		w.WriteString("\r\n")
	}
	if err := w.Flush(); err != nil {
		return 0, 0, err
	}
	line, err := c.br.ReadSlice('\n')
	if err != nil {
		return 0, 0, err
	}
	if len(line) < 12 || !bytes.HasPrefix(line, []byte("HTTP/1.")) {
		return 0, 0, fmt.Errorf("lean transport: bad status line %q", line)
	}
	status = int(line[9]-'0')*100 + int(line[10]-'0')*10 + int(line[11]-'0')
	if status < 100 || status > 999 || line[9] > '9' || line[10] > '9' || line[11] > '9' {
		return 0, 0, fmt.Errorf("lean transport: bad status line %q", line)
	}
	length := -1
	for {
		h, err := c.br.ReadSlice('\n')
		if err != nil {
			return 0, 0, err
		}
		if len(h) <= 2 {
			break
		}
		if len(h) > 16 && (h[0] == 'C' || h[0] == 'c') && bytes.EqualFold(h[:15], []byte("content-length:")) {
			length = 0
			for _, b := range bytes.TrimSpace(h[15:]) {
				if b < '0' || b > '9' {
					return 0, 0, fmt.Errorf("lean transport: bad Content-Length %q", h)
				}
				length = length*10 + int(b-'0')
			}
		}
	}
	if length < 0 {
		return 0, 0, errUnsupported
	}
	if _, err := c.br.Discard(length); err != nil {
		return 0, 0, err
	}
	return status, uint64(length), nil
}

func (c *leanConn) Close() error { return c.c.Close() }
