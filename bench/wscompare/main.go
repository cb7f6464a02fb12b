// Command wscompare measures what holding and reading many WebSocket client connections costs with
// each candidate library, against bench/wscompare/feed.ts, so the load driver's choice rests on a
// figure: resident memory per idle socket, and frames read per CPU-second under a fan-out.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"regexp"
	"runtime"
	"runtime/debug"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	coderws "github.com/coder/websocket"
	"github.com/gobwas/ws"
	"github.com/gobwas/ws/wsutil"
	"github.com/gorilla/websocket"
)

// reader returns the next text message; each library behind the same shape.
type reader func(buf []byte) ([]byte, error)

func dialGorilla(u string) (reader, error) {
	d := websocket.Dialer{ReadBufferSize: 4096, WriteBufferSize: 512, WriteBufferPool: &sync.Pool{}}
	c, _, err := d.Dial(u, nil)
	if err != nil {
		return nil, err
	}
	return func(buf []byte) ([]byte, error) {
		_, r, err := c.NextReader()
		if err != nil {
			return nil, err
		}
		return readAll(r, buf)
	}, nil
}

func dialCoder(u string) (reader, error) {
	c, _, err := coderws.Dial(context.Background(), u, nil)
	if err != nil {
		return nil, err
	}
	c.SetReadLimit(1 << 20)
	return func(buf []byte) ([]byte, error) {
		_, r, err := c.Reader(context.Background())
		if err != nil {
			return nil, err
		}
		return readAll(r, buf)
	}, nil
}

func dialGobwas(u string) (reader, error) {
	conn, br, _, err := ws.Dial(context.Background(), u)
	if err != nil {
		return nil, err
	}
	var src io.Reader = conn
	if br != nil {
		src = io.MultiReader(br, conn)
	}
	var wmu sync.Mutex
	ctl := wsutil.ControlFrameHandler(lockedWriter{conn, &wmu}, ws.StateClientSide)
	rd := &wsutil.Reader{Source: bufio.NewReaderSize(src, 4096), State: ws.StateClientSide, CheckUTF8: false, OnIntermediate: ctl}
	return func(buf []byte) ([]byte, error) {
		for {
			h, err := rd.NextFrame()
			if err != nil {
				return nil, err
			}
			if h.OpCode.IsControl() {
				if err := ctl(h, rd); err != nil {
					return nil, err
				}
				continue
			}
			return readAll(rd, buf)
		}
	}, nil
}

type lockedWriter struct {
	w  io.Writer
	mu *sync.Mutex
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func readAll(r io.Reader, buf []byte) ([]byte, error) {
	buf = buf[:0]
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}

var rssRe = regexp.MustCompile(`VmRSS:\s+(\d+) kB`)

func rss() int64 {
	b, _ := os.ReadFile("/proc/self/status")
	m := rssRe.FindSubmatch(b)
	if m == nil {
		return 0
	}
	n, _ := strconv.ParseInt(string(m[1]), 10, 64)
	return n * 1024
}

func cpu() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func main() {
	lib := flag.String("lib", "gorilla", "gorilla | coder | gobwas")
	n := flag.Int("n", 2000, "sockets")
	base := flag.String("feed", "127.0.0.1:9002", "feed host:port")
	rate := flag.Int("rate", 200, "frames/s published to every socket in the read phase")
	seconds := flag.Int("seconds", 10, "read phase length")
	flag.Parse()
	dial := map[string]func(string) (reader, error){"gorilla": dialGorilla, "coder": dialCoder, "gobwas": dialGobwas}[*lib]
	hosts := []string{"127.0.0.1", "127.0.0.2", "127.0.0.3", "127.0.0.4"}
	_, port, _ := net.SplitHostPort(*base)

	runtime.GC()
	debug.FreeOSMemory()
	before := rss()
	var frames, bytesIn atomic.Int64
	var marker = []byte(`"seq":`)
	t0 := time.Now()
	for i := 0; i < *n; i++ {
		read, err := dial(fmt.Sprintf("ws://%s:%s/ws", hosts[i%len(hosts)], port))
		if err != nil {
			fmt.Fprintln(os.Stderr, "dial:", err)
			os.Exit(1)
		}
		go func() {
			buf := make([]byte, 0, 1024)
			for {
				msg, err := read(buf)
				if err != nil {
					return
				}
				buf = msg[:0]
				if bytes.Index(msg, marker) >= 0 {
					frames.Add(1)
					bytesIn.Add(int64(len(msg)))
				}
			}
		}()
	}
	connectS := time.Since(t0).Seconds()
	time.Sleep(3 * time.Second)
	runtime.GC()
	debug.FreeOSMemory()
	held := rss()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)

	c0, w0 := cpu(), time.Now()
	resp, err := http.Get(fmt.Sprintf("http://%s/start?rate=%d&seconds=%d", *base, *rate, *seconds))
	if err != nil {
		fmt.Fprintln(os.Stderr, "start:", err)
		os.Exit(1)
	}
	resp.Body.Close()
	expected := int64(*rate) * int64(*seconds) * int64(*n)
	deadline := time.Now().Add(time.Duration(*seconds+20) * time.Second)
	for frames.Load() < expected && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	wall := time.Since(w0).Seconds()
	used := (cpu() - c0).Seconds()
	out, _ := json.Marshal(map[string]any{
		"lib": *lib, "sockets": *n, "gomaxprocs": runtime.GOMAXPROCS(0),
		"connect_s":           round(connectS),
		"rss_bytes_per_socket": (held - before) / int64(*n),
		"heap_sys_bytes_per_socket":  int64(ms.HeapSys) / int64(*n),
		"goroutines":          runtime.NumGoroutine(),
		"frames_expected":     expected, "frames_read": frames.Load(),
		"read_wall_s":         round(wall),
		"cpu_s":               round(used),
		"frames_per_cpu_s":    int64(float64(frames.Load()) / used),
		"frames_per_s":        int64(float64(frames.Load()) / wall),
	})
	fmt.Println(string(out))
}

func round(f float64) float64 { return float64(int64(f*100)) / 100 }
