// Command kotak-bench is Kotak's load driver: constant-rate HTTP on vegeta (open model) and
// WebSocket clients speaking Kotak's real-time protocol on gobwas/ws. bench/run.ts starts the
// server, seeds it, runs one of these commands and turns its JSON report into bench/results.
//
//	kotak-bench http    -target name=URL … -rate R -duration D      (kernel, inbox)
//	kotak-bench inbound -base URL -channel-key K -conversations … -rate R -sockets N (storm, fanout)
//	kotak-bench sockets -base URL -sockets N -ramp D -hold D                    (idle sockets)
//	kotak-bench soak    … inbound flags plus -get URL -get-rate R -churn D       (hours-proof check)
//	kotak-bench centrifugo -base URL -api-key K -hmac-secret S -rate R -sockets N  (fanout on Centrifugo)
//
// The report goes to stdout as one JSON object; progress goes to stderr.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"runtime/pprof"
	"strings"
	"syscall"
	"time"
)

type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "[driver] "+format+"\n", args...)
}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: kotak-bench <http|inbound|sockets|soak|centrifugo> [flags]")
		os.Exit(2)
	}
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()
	// Every command takes -cpuprofile FILE (a pprof CPU profile of the whole run), pulled out of
	// its arguments here so each command's flags stay its own.
	args, profile := cpuProfileArg(os.Args[2:])
	if profile != "" {
		f, err := os.Create(profile)
		if err != nil {
			fmt.Fprintln(os.Stderr, "kotak-bench:", err)
			os.Exit(1)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintln(os.Stderr, "kotak-bench:", err)
			os.Exit(1)
		}
		defer func() {
			pprof.StopCPUProfile()
			_ = f.Close()
		}()
	}
	cpu0, t0 := cpuTime(), time.Now()
	var report map[string]any
	var err error
	switch os.Args[1] {
	case "http":
		report, err = cmdHTTP(ctx, args)
	case "inbound":
		report, err = cmdInbound(ctx, args, false)
	case "soak":
		report, err = cmdInbound(ctx, args, true)
	case "sockets":
		report, err = cmdSockets(ctx, args)
	case "centrifugo":
		report, err = cmdCentrifugo(ctx, args)
	default:
		err = fmt.Errorf("unknown command %q", os.Args[1])
	}
	if err != nil {
		pprof.StopCPUProfile()
		fmt.Fprintln(os.Stderr, "kotak-bench:", err)
		os.Exit(1)
	}
	wall := time.Since(t0).Seconds()
	used := (cpuTime() - cpu0).Seconds()
	report["driver"] = map[string]any{
		"cpu_s": round(used, 2), "wall_s": round(wall, 2), "cpu_cores": round(used/wall, 3),
		"rss_peak_bytes": peakRSS(), "gomaxprocs": runtime.GOMAXPROCS(0),
		"library": map[string]string{"http": "github.com/tsenart/vegeta/v12", "websocket": "github.com/gobwas/ws"},
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	_ = enc.Encode(report)
}

// phase measures the driver's own CPU over one part of a run (the sending window, say), so its
// cost per unit of work is not diluted by set-up and waiting.
type phase struct {
	cpu  time.Duration
	wall time.Time
}

func startPhase() phase { return phase{cpuTime(), time.Now()} }

func (p phase) report() map[string]float64 {
	wall := time.Since(p.wall).Seconds()
	used := (cpuTime() - p.cpu).Seconds()
	return map[string]float64{"cpu_s": round(used, 3), "wall_s": round(wall, 3), "cpu_cores": round(used/wall, 3)}
}

func parse(fs *flag.FlagSet, args []string) error {
	fs.SetOutput(os.Stderr)
	return fs.Parse(args)
}

// cpuProfileArg takes -cpuprofile FILE (or -cpuprofile=FILE, one or two dashes) out of args.
func cpuProfileArg(args []string) ([]string, string) {
	out := make([]string, 0, len(args))
	file := ""
	for i := 0; i < len(args); i++ {
		a := strings.TrimLeft(args[i], "-")
		switch {
		case a == "cpuprofile" && args[i] != a && i+1 < len(args):
			file = args[i+1]
			i++
		case strings.HasPrefix(a, "cpuprofile=") && args[i] != a:
			file = strings.TrimPrefix(a, "cpuprofile=")
		default:
			out = append(out, args[i])
		}
	}
	return out, file
}
