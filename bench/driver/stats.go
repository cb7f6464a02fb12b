package main

import (
	"math"
	"os"
	"regexp"
	"strconv"
	"sync/atomic"
	"syscall"
	"time"
)

// Histogram records durations in log-spaced buckets 1 % wide, so percentiles of millions of samples
// cost a fixed 17 KB and one atomic add each, from any goroutine.
type Histogram struct {
	counts [histBuckets]atomic.Uint64
	n      atomic.Uint64
	sumUs  atomic.Uint64
	maxUs  atomic.Int64
}

const histBuckets = 2200 // 1.01^2200 µs ≈ 3 × 10⁹ µs: far beyond any run

var logStep = math.Log(1.01)

func (h *Histogram) Record(d time.Duration) {
	us := d.Microseconds()
	if us < 0 {
		us = 0
	}
	i := 0
	if us > 0 {
		i = int(math.Log(float64(us))/logStep) + 1
	}
	if i >= histBuckets {
		i = histBuckets - 1
	}
	h.counts[i].Add(1)
	h.n.Add(1)
	h.sumUs.Add(uint64(us))
	storeMax(&h.maxUs, us)
}

// storeMax raises a to v if v is larger, whatever else records at the same time.
func storeMax(a *atomic.Int64, v int64) {
	for {
		m := a.Load()
		if v <= m || a.CompareAndSwap(m, v) {
			return
		}
	}
}

func (h *Histogram) Count() uint64 { return h.n.Load() }

// Quantile in milliseconds: the upper edge of the bucket holding the q-th sample (≤ 1 % high).
func (h *Histogram) Quantile(q float64) float64 {
	n := h.n.Load()
	if n == 0 {
		return 0
	}
	rank := uint64(math.Ceil(q * float64(n)))
	var seen uint64
	for i := range h.counts {
		seen += h.counts[i].Load()
		if seen >= rank {
			if i == 0 {
				return 0
			}
			return round(math.Min(math.Pow(1.01, float64(i)), float64(h.maxUs.Load()))/1000, 2)
		}
	}
	return round(float64(h.maxUs.Load())/1000, 2)
}

func (h *Histogram) Summary() map[string]float64 {
	n := h.n.Load()
	mean := 0.0
	if n > 0 {
		mean = float64(h.sumUs.Load()) / float64(n) / 1000
	}
	return map[string]float64{
		"count": float64(n), "mean_ms": round(mean, 2), "p50_ms": h.Quantile(0.5),
		"p90_ms": h.Quantile(0.9), "p99_ms": h.Quantile(0.99), "max_ms": round(float64(h.maxUs.Load())/1000, 2),
	}
}

func round(f float64, digits int) float64 {
	p := math.Pow(10, float64(digits))
	return math.Round(f*p) / p
}

// cpuTime is this process's user + system CPU so far; the driver reports its own cost beside the
// server's, since both share the machine.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

var rssRe = regexp.MustCompile(`VmHWM:\s+(\d+) kB`)

func peakRSS() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	m := rssRe.FindSubmatch(b)
	if m == nil {
		return 0
	}
	n, _ := strconv.ParseInt(string(m[1]), 10, 64)
	return n * 1024
}
