package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"gonum.org/v1/gonum/stat"

	"github.com/autotune/autotune/runner"
	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/space"
)

// noiseOptions are the flags of `autotune noise`: the benchmark and
// measurement flags of search, plus the fixed configuration and repeats.
type noiseOptions struct {
	s       searchOptions
	repeats int
	set     []string
}

func newNoiseCmd() *cobra.Command {
	o := &noiseOptions{}
	cmd := &cobra.Command{
		Use:   "noise",
		Short: "Measure one fixed configuration several times and print how much its numbers vary",
		Long: `noise measures one fixed configuration (the server defaults, or the knobs given with
--set) --repeats times, each a full trial: restore the dataset snapshot, start the
server, warm up until steady (at most --warmup), measure --duration, stop. It prints
each run's detected warm-up, mean tps, score and its components, CPU steal and load,
then the coefficient of variation (sd/mean across runs) of the raw mean tps and of
the score. Use it to learn the noise floor of a machine before trusting a study's
differences. Nothing is written to a study database.`,
		Args: cobra.NoArgs,
		PreRunE: func(cmd *cobra.Command, args []string) error {
			o.s.trials = 1 // the search's "budget or trials" rule does not apply
			if o.repeats < 2 || o.repeats > 100 {
				return usagef("--repeats %d: want 2..100", o.repeats)
			}
			return o.s.validate()
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return runNoise(cmd.Context(), o, cmd.OutOrStdout())
		},
	}
	fs := cmd.Flags()
	o.s.AddFlags(fs)
	for _, name := range []string{"study", "db", "budget", "trials", "seed", "confirm", "recheck-every", "ab-pairs", "ab-share"} {
		_ = fs.MarkHidden(name)
	}
	fs.IntVar(&o.repeats, "repeats", 5, "how many times to measure the configuration")
	fs.StringArrayVar(&o.set, "set", nil, "knob=value of the configuration (repeatable); default: the server defaults")
	return cmd
}

// noiseRun is one measured repeat.
type noiseRun struct {
	outcome search.Outcome
	steal   *float64
	idle    *float64
	load1   *float64
}

// runNoise measures the fixed configuration o.repeats times and prints the
// spread.
func runNoise(ctx context.Context, o *noiseOptions, out io.Writer) error {
	s := &o.s
	logf := func(format string, a ...any) { fmt.Fprintf(out, format+"\n", a...) }
	sp := space.Default()
	cfg := space.Config{}
	for _, kv := range o.set {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return usagef("--set %q: want knob=value", kv)
		}
		cfg[strings.TrimSpace(k)] = strings.TrimSpace(v)
	}
	cfg, err := sp.Validate(cfg)
	if err != nil {
		return usagef("--set: %v", err)
	}
	bin, err := runner.FindServer(ctx, s.knobs.mysqld)
	if err != nil {
		return err
	}
	sb, err := runner.OpenSandbox(s.workdir, bin)
	if err != nil {
		return err
	}
	bench := runner.Sysbench{Path: s.sysbench, Workload: s.workload, Tables: s.tables, TableSize: s.tableSize, Threads: s.threads[0]}
	maxConn := maxThreads(s.threads) + 50
	ds := runner.Dataset{Workload: s.workload, Tables: s.tables, TableSize: s.tableSize, ServerVersion: bin.Version}
	if !sb.HasSnapshot(ds) {
		logf("loading the dataset once: %d tables x %d rows (sysbench prepare), then snapshotting it", s.tables, s.tableSize)
		if err := sb.BuildSnapshot(ctx, ds, maxConn, bench.Prepare, logf); err != nil {
			if ctx.Err() != nil {
				return context.Canceled
			}
			return fmt.Errorf("build dataset snapshot: %w", err)
		}
	}
	tr := &trialRunner{sb: sb, bench: bench, meas: s.measurer(bench), sp: sp, maxConn: maxConn, logf: logf,
		servers: singleServer(bin)}
	defer tr.close()
	desc := "server defaults"
	if ch := sp.Changes(cfg); len(ch) > 0 {
		desc = strings.Join(ch, " ")
	}
	logf("measuring %s %d times: %s, threads %v, warm-up cap %s + %s window, objective %s",
		desc, o.repeats, s.workload, s.threads, s.warmup, s.duration, s.measure.objective)
	var runs []noiseRun
	for i := 1; i <= o.repeats; i++ {
		t0 := time.Now()
		oc, err := tr.run(ctx, search.Trial{Number: i, Kind: search.Sampled, Params: cfg})
		if err != nil {
			if errors.Is(err, context.Canceled) || ctx.Err() != nil {
				return context.Canceled
			}
			return err
		}
		if oc.Failure != "" {
			logf("run %d failed: %s", i, oc.Failure)
			continue
		}
		r := noiseRun{outcome: oc}
		if len(oc.Levels) > 0 {
			m := oc.Levels[0].Metrics
			r.steal, r.idle, r.load1 = m["cpu_steal"], m["cpu_idle"], m["load1"]
		}
		runs = append(runs, r)
		logf("%s  (%.0fs)", noiseLine(i, r), time.Since(t0).Seconds())
	}
	writeNoiseSummary(out, runs)
	return nil
}

func optF(p *float64, format string) string {
	if p == nil {
		return "-"
	}
	return fmt.Sprintf(format, *p)
}

func noiseLine(i int, r noiseRun) string {
	o := r.outcome
	capped := ""
	if o.WarmupCapped {
		capped = " (cap)"
	}
	hll := "-"
	if !math.IsNaN(o.HLLGrowthPS) && len(o.Levels) > 0 {
		hll = fmt.Sprintf("%+.1f/s", o.HLLGrowthPS)
	}
	return fmt.Sprintf("run %d: warm-up %2.0fs%s  mean %7.1f tps  sd %5.1f  score %7.1f  [var %.1f dips %.1f (%ds) stalls %.1f (%ds) errors %.1f purge %.1f, hll %s]  p95 %.1f ms  steal %s %%  idle %s %%  load1 %s",
		i, o.WarmupS, capped, o.MeanTPS, o.StdTPS, o.Score, o.Variance, o.Dips, o.DipSeconds, o.Stalls, o.StallSeconds, o.Errors, o.Purge, hll,
		o.P95MS, optF(r.steal, "%.1f"), optF(r.idle, "%.1f"), optF(r.load1, "%.1f"))
}

// cv returns the coefficient of variation (sample sd / mean) in percent.
func cv(xs []float64) float64 {
	m, sd := stat.MeanStdDev(xs, nil)
	if m == 0 {
		return math.NaN()
	}
	return sd / math.Abs(m) * 100
}

func writeNoiseSummary(out io.Writer, runs []noiseRun) {
	if len(runs) < 2 {
		fmt.Fprintf(out, "only %d successful runs: no spread to report\n", len(runs))
		return
	}
	var tps, varOnly, score, warm, steal, load []float64
	for _, r := range runs {
		tps = append(tps, r.outcome.MeanTPS)
		varOnly = append(varOnly, r.outcome.Score+r.outcome.Dips+r.outcome.Stalls+r.outcome.Errors+r.outcome.Purge)
		score = append(score, r.outcome.Score)
		warm = append(warm, r.outcome.WarmupS)
		if r.steal != nil {
			steal = append(steal, *r.steal)
		}
		if r.load1 != nil {
			load = append(load, *r.load1)
		}
	}
	sort.Float64s(warm)
	mt, _ := stat.MeanStdDev(tps, nil)
	ms, _ := stat.MeanStdDev(score, nil)
	fmt.Fprintf(out, "\n%d runs\n", len(runs))
	fmt.Fprintf(out, "raw mean tps: mean %.1f, CV %.1f %%\n", mt, cv(tps))
	fmt.Fprintf(out, "score:        mean %.1f, CV %.1f %%\n", ms, cv(score))
	fmt.Fprintf(out, "  (variance penalty only: mean %.1f, CV %.1f %%; the rest is dips, stalls, errors and purge lag)\n", stat.Mean(varOnly, nil), cv(varOnly))
	fmt.Fprintf(out, "warm-up:      %v s (median %.0f s)\n", warm, stat.Quantile(0.5, stat.Empirical, warm, nil))
	if len(steal) > 0 {
		m, sd := stat.MeanStdDev(steal, nil)
		fmt.Fprintf(out, "CPU steal:    mean %.1f %% (sd %.1f) of the measurement windows\n", m, sd)
	}
	if len(load) > 0 {
		fmt.Fprintf(out, "load (1 min): mean %.1f, max %.1f at the windows' ends (other work on the machine shows here)\n", stat.Mean(load, nil), slicesMax(load))
	}
}

func slicesMax(xs []float64) float64 {
	m := xs[0]
	for _, x := range xs {
		m = math.Max(m, x)
	}
	return m
}
