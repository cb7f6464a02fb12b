package main

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"sync"
	"time"

	"github.com/gobwas/ws"
	"github.com/gobwas/ws/wsutil"
)

// wsConn is one client WebSocket on gobwas/ws, chosen because it held an idle socket in a third of
// gorilla's memory and read the most frames per CPU-second (bench/results/ws-libraries.md). It is
// protocol-agnostic: Kotak's client (kotak.go) and any other server's client sit on top of it.
type wsConn struct {
	conn net.Conn
	rd   *wsutil.Reader
	ctl  wsutil.FrameHandlerFunc
	wmu  sync.Mutex
	buf  []byte
}

// closeError is the server's close frame: its code tells a resumable close (4008 slow consumer,
// 1001 going away) from one the client must not retry on its own.
type closeError struct {
	Code   int
	Reason string
}

func (e *closeError) Error() string { return "closed " + itoa(uint64(e.Code)) + " " + e.Reason }

// readBufferSize bounds what each socket holds between reads; frames are far smaller.
const readBufferSize = 4096

func dialWS(ctx context.Context, url string) (*wsConn, error) {
	d := ws.Dialer{Timeout: 10 * time.Second}
	conn, br, _, err := d.Dial(ctx, url)
	if err != nil {
		return nil, err
	}
	var src io.Reader = conn
	if br != nil {
		// Frames that arrived with the handshake answer are in br; read them first.
		src = io.MultiReader(br, conn)
	}
	c := &wsConn{conn: conn, buf: make([]byte, 0, 1024)}
	c.ctl = wsutil.ControlFrameHandler(lockedWriter{c}, ws.StateClientSide)
	c.rd = &wsutil.Reader{
		Source:         bufio.NewReaderSize(src, readBufferSize),
		State:          ws.StateClientSide,
		CheckUTF8:      false,
		OnIntermediate: c.ctl,
	}
	return c, nil
}

type lockedWriter struct{ c *wsConn }

func (l lockedWriter) Write(p []byte) (int, error) {
	l.c.wmu.Lock()
	defer l.c.wmu.Unlock()
	return l.c.conn.Write(p)
}

// Next returns the next data message; the slice is valid until the following call. Pings are
// answered here.
func (c *wsConn) Next() ([]byte, error) {
	for {
		h, err := c.rd.NextFrame()
		if err != nil {
			return nil, err
		}
		if h.OpCode.IsControl() {
			if err := c.ctl(h, c.rd); err != nil {
				var closed wsutil.ClosedError
				if errors.As(err, &closed) {
					return nil, &closeError{Code: int(closed.Code), Reason: closed.Reason}
				}
				return nil, err
			}
			continue
		}
		buf := c.buf[:0]
		for {
			if len(buf) == cap(buf) {
				buf = append(buf, 0)[:len(buf)]
			}
			n, err := c.rd.Read(buf[len(buf):cap(buf)])
			buf = buf[:len(buf)+n]
			if err == io.EOF {
				break
			}
			if err != nil {
				return nil, err
			}
		}
		c.buf = buf
		return buf, nil
	}
}

func (c *wsConn) Send(p []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	return wsutil.WriteClientText(c.conn, p)
}

func (c *wsConn) Close() error { return c.conn.Close() }
