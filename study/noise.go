package study

import (
	"context"
	"io"
	"strings"
	"time"

	"github.com/autotune/autotune/report"
	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/space"
)

// Noise measures one fixed configuration (set: knob=value pairs, none for
// the server defaults) repeats times on the sandbox, each a full trial of
// the engine, and prints each run and the spread to out. Nothing is
// stored. A bad knob=value is a UsageError naming it.
func Noise(ctx context.Context, cfg Config, set []string, repeats int, prog Progress, out io.Writer) (err error) {
	conf := space.Config{}
	for _, kv := range set {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return Usagef("--set %q: want knob=value", kv)
		}
		k = strings.TrimSpace(k)
		// Names first, before the sandbox and its dataset: a typo costs
		// nothing. Values are checked against the host's space below.
		if _, ok := space.Lookup().Knob(k); !ok {
			return Usagef("--set %q: no knob %q (autotune knobs lists them)", kv, k)
		}
		conf[k] = strings.TrimSpace(v)
	}
	r, err := newRun(ctx, cfg, prog, "noise")
	defer r.closeInto(&err)
	if err != nil {
		return r.interrupted(ctx, err)
	}
	conf, err = r.sp.Validate(conf)
	if err != nil {
		return Usagef("--set: %v", err)
	}
	desc := "server defaults"
	if ch := r.sp.Changes(conf); len(ch) > 0 {
		desc = strings.Join(ch, " ")
	}
	r.logf("measuring %s %d times: %s, threads %v, warm-up cap %s + %s window, objective %s",
		desc, repeats, cfg.Bench.Workload, r.cfg.Bench.Threads, cfg.Measure.Warmup, cfg.Measure.Duration, cfg.Measure.Objective)
	var runs []report.NoiseRun
	for i := 1; i <= repeats; i++ {
		t0 := time.Now()
		oc, err := r.engine.Run(ctx, search.Trial{Number: i, Kind: search.Sampled, Params: conf})
		if err != nil {
			return r.interrupted(ctx, err)
		}
		if oc.Failure != "" {
			r.logf("run %d failed: %s", i, oc.Failure)
			continue
		}
		nr := report.NoiseRun{Outcome: oc}
		if len(oc.Levels) > 0 {
			m := oc.Levels[0].Metrics
			nr.Steal, nr.Idle, nr.Load1 = m["cpu_steal"], m["cpu_idle"], m["load1"]
		}
		runs = append(runs, nr)
		r.logf("%s  (%.0fs)", report.NoiseLine(i, nr), time.Since(t0).Seconds())
	}
	report.WriteNoiseSummary(out, runs)
	return nil
}
