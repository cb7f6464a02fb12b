package main

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/gobwas/ws"
	"github.com/gobwas/ws/wsutil"
)

// wsConn is one client WebSocket: the handshake and the frames it writes are gobwas/ws's, chosen
// because it held an idle socket in a third of gorilla's memory and read the most frames per
// CPU-second (bench/results/ws-libraries.md). Reading is the poller's (below). It is
// protocol-agnostic: Kotak's client (kotak.go) and any other server's client sit on top of it.
type wsConn struct {
	conn net.Conn
	raw  syscall.RawConn
	pre  []byte // frames that arrived with the handshake answer
	wmu  sync.Mutex
	pc   atomic.Pointer[pollConn]
}

// closeError is the server's close frame: its code tells a resumable close (4008 slow consumer,
// 1001 going away) from one the client must not retry on its own.
type closeError struct {
	Code   int
	Reason string
}

func (e *closeError) Error() string { return "closed " + itoa(uint64(e.Code)) + " " + e.Reason }

// readBufferSize is what each socket holds between reads; frames are far smaller (a larger one
// grows its socket's buffer).
const readBufferSize = 4096

func dialWS(ctx context.Context, url string) (*wsConn, error) {
	d := ws.Dialer{Timeout: 10 * time.Second}
	conn, br, _, err := d.Dial(ctx, url)
	if err != nil {
		return nil, err
	}
	sc, ok := conn.(syscall.Conn)
	if !ok {
		_ = conn.Close()
		return nil, fmt.Errorf("websocket: %T has no descriptor", conn)
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		_ = conn.Close()
		return nil, err
	}
	c := &wsConn{conn: conn, raw: raw}
	if br != nil && br.Buffered() > 0 {
		c.pre, _ = br.Peek(br.Buffered())
		c.pre = append([]byte(nil), c.pre...)
	}
	if br != nil {
		ws.PutReader(br)
	}
	return c, nil
}

type lockedWriter struct{ c *wsConn }

func (l lockedWriter) Write(p []byte) (int, error) {
	l.c.wmu.Lock()
	defer l.c.wmu.Unlock()
	return l.c.conn.Write(p)
}

func (c *wsConn) Send(p []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	return wsutil.WriteClientText(c.conn, p)
}

// Close closes the connection; Serve, if running, returns.
func (c *wsConn) Close() error {
	err := c.conn.Close()
	if pc := c.pc.Load(); pc != nil {
		pc.end(net.ErrClosed)
	}
	return err
}

// Serve hands every data message to onMessage (with the time it was read; the slice is valid
// during the call) until the connection ends, and returns why (a *closeError when the server
// closed it). Pings are answered. onMessage runs on the poller's goroutine, one message at a time
// over all sockets.
func (c *wsConn) Serve(onMessage func(msg []byte, now time.Time)) error {
	p := thePoller()
	if p.err != nil {
		return p.err
	}
	pc := &pollConn{ws: c, onMsg: onMessage, done: make(chan error, 1)}
	pc.buf = make([]byte, 0, max(readBufferSize, len(c.pre)))
	pc.buf = append(pc.buf, c.pre...)
	c.pre = nil
	c.pc.Store(pc)
	if len(pc.buf) > 0 {
		// What came with the handshake is handled before the poller sees the socket.
		p.serve(pc, false)
	}
	if !pc.ended.Load() {
		p.add(pc)
	}
	err := <-pc.done
	// The poller may be inside serve for this socket (a Close from elsewhere): wait it out, so
	// the client's state is its own again when this returns.
	pc.mu.Lock()
	pc.mu.Unlock() //nolint:staticcheck // an empty critical section: waiting is the point
	p.release(pc)
	return err
}

// wsPoller reads every socket of the run from one goroutine: one level-triggered epoll set over
// the sockets' descriptors, itself waited on through Go's poller (an epoll descriptor is
// pollable). Each ready socket gets one read into its buffer and its complete frames are
// handled there. A goroutine per socket on Go's poller cost two reads per wake-up (the second one
// finding nothing, since Go's poller is edge-triggered) and a goroutine switch per socket per
// event: most of the driver's CPU in the fanout.
type wsPoller struct {
	epfd  int
	file  *os.File
	err   error
	mu    sync.Mutex // guards conns and free
	conns []*pollConn
	free  []int32
	gen   int32
}

// pollConn is one socket registered with the poller; slot and gen name it in epoll events, so an
// event for a socket that ended meanwhile is ignored.
type pollConn struct {
	ws    *wsConn
	onMsg func([]byte, time.Time)
	buf   []byte // unread bytes
	frag  []byte // a fragmented message so far
	slot  int32
	gen   int32
	ended atomic.Bool
	done  chan error
	mu    sync.Mutex // held while the socket's frames are handled
}

var (
	pollerOnce sync.Once
	poller     *wsPoller
)

func thePoller() *wsPoller {
	pollerOnce.Do(func() {
		poller = &wsPoller{}
		fd, err := syscall.EpollCreate1(syscall.EPOLL_CLOEXEC)
		if err == nil {
			err = syscall.SetNonblock(fd, true)
		}
		if err != nil {
			poller.err = fmt.Errorf("websocket poller: %w", err)
			return
		}
		poller.epfd = fd
		poller.file = os.NewFile(uintptr(fd), "epoll")
		go poller.loop()
	})
	return poller
}

func (p *wsPoller) add(pc *pollConn) {
	p.mu.Lock()
	if n := len(p.free); n > 0 {
		pc.slot = p.free[n-1]
		p.free = p.free[:n-1]
	} else {
		pc.slot = int32(len(p.conns))
		p.conns = append(p.conns, nil)
	}
	p.gen++
	pc.gen = p.gen
	p.conns[pc.slot] = pc
	p.mu.Unlock()
	ev := syscall.EpollEvent{Events: syscall.EPOLLIN | syscall.EPOLLRDHUP, Fd: pc.slot, Pad: pc.gen}
	var err error
	cerr := pc.ws.raw.Control(func(fd uintptr) {
		err = syscall.EpollCtl(p.epfd, syscall.EPOLL_CTL_ADD, int(fd), &ev)
	})
	if cerr != nil {
		err = cerr
	}
	if err != nil {
		pc.end(err)
	}
}

// release frees the socket's slot once its Serve has returned.
func (p *wsPoller) release(pc *pollConn) {
	p.mu.Lock()
	if pc.gen != 0 && p.conns[pc.slot] == pc {
		p.conns[pc.slot] = nil
		p.free = append(p.free, pc.slot)
	}
	p.mu.Unlock()
}

// end stops reading the socket and wakes its Serve, once.
func (pc *pollConn) end(err error) {
	if !pc.ended.CompareAndSwap(false, true) {
		return
	}
	// Out of the epoll set now, or a level-triggered end of stream would be reported forever. A
	// closed descriptor left the set when it closed (and Control refuses it).
	_ = pc.ws.raw.Control(func(fd uintptr) {
		_ = syscall.EpollCtl(poller.epfd, syscall.EPOLL_CTL_DEL, int(fd), nil)
	})
	pc.done <- err
}

func (p *wsPoller) loop() {
	events := make([]syscall.EpollEvent, 512)
	ready := make([]*pollConn, 0, len(events))
	rc, err := p.file.SyscallConn()
	if err != nil {
		p.err = err
		return
	}
	for {
		n := 0
		err := rc.Read(func(uintptr) bool {
			var e error
			n, e = syscall.EpollWait(p.epfd, events, 0)
			return e == nil && n > 0
		})
		if err != nil {
			logf("websocket poller: %v", err)
			return
		}
		ready = ready[:0]
		p.mu.Lock()
		for _, ev := range events[:n] {
			if int(ev.Fd) < len(p.conns) {
				if pc := p.conns[ev.Fd]; pc != nil && pc.gen == ev.Pad {
					ready = append(ready, pc)
				}
			}
		}
		p.mu.Unlock()
		for _, pc := range ready {
			p.serve(pc, true)
		}
	}
}

// serve reads once (when read is set) and handles every complete frame in the socket's buffer.
func (p *wsPoller) serve(pc *pollConn, read bool) {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	if pc.ended.Load() {
		return
	}
	if read {
		if len(pc.buf) == cap(pc.buf) {
			pc.buf = append(pc.buf, 0)[:len(pc.buf)]
		}
		var n int
		var rerr error
		err := pc.ws.raw.Read(func(fd uintptr) bool {
			n, rerr = syscall.Read(int(fd), pc.buf[len(pc.buf):cap(pc.buf)])
			return true // never wait here: the epoll set says when there is more
		})
		switch {
		case err != nil:
			pc.end(err)
			return
		case rerr == syscall.EAGAIN || rerr == syscall.EINTR:
			return
		case rerr != nil:
			pc.end(rerr)
			return
		case n == 0:
			pc.end(errors.New("websocket: connection closed by the server without a close frame"))
			return
		}
		pc.buf = pc.buf[:len(pc.buf)+n]
	}
	now := time.Now()
	b := pc.buf
	off := 0
	for !pc.ended.Load() {
		f := b[off:]
		if len(f) < 2 {
			break
		}
		fin, op := f[0]&0x80 != 0, ws.OpCode(f[0]&0x0f)
		masked := f[1]&0x80 != 0
		length, head := uint64(f[1]&0x7f), 2
		switch length {
		case 126:
			if len(f) < 4 {
				break
			}
			length, head = uint64(binary.BigEndian.Uint16(f[2:4])), 4
		case 127:
			if len(f) < 10 {
				break
			}
			length, head = binary.BigEndian.Uint64(f[2:10]), 10
		}
		if length >= 126 && head == 2 {
			break // the extended length has not arrived yet
		}
		if masked {
			head += 4
		}
		if length > 1<<30 {
			pc.end(errors.New("websocket: frame too large"))
			return
		}
		total := head + int(length)
		if len(f) < total {
			if total > cap(b)-off {
				// Make room for the whole frame at the front of a larger buffer.
				nb := make([]byte, len(f), max(total, 2*cap(b)))
				copy(nb, f)
				b, off = nb, 0
			}
			break
		}
		payload := f[head:total]
		if masked {
			ws.Cipher(payload, [4]byte(f[head-4:head]), 0)
		}
		off += total
		switch {
		case op == ws.OpPing:
			_ = wsutil.WriteClientMessage(lockedWriter{pc.ws}, ws.OpPong, payload)
		case op == ws.OpPong:
		case op == ws.OpClose:
			code, reason := ws.ParseCloseFrameData(payload)
			_ = wsutil.WriteClientMessage(lockedWriter{pc.ws}, ws.OpClose, ws.NewCloseFrameBody(code, ""))
			pc.end(&closeError{Code: int(code), Reason: reason})
			return
		case op == ws.OpContinuation:
			pc.frag = append(pc.frag, payload...)
			if fin {
				pc.onMsg(pc.frag, now)
				pc.frag = pc.frag[:0]
			}
		case !fin:
			pc.frag = append(pc.frag[:0], payload...)
		default:
			pc.onMsg(payload, now)
		}
	}
	// Keep what is left of a partial frame at the front.
	pc.buf = b[:copy(b, b[off:])]
}
