package main

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/autotune/autotune/runner"
	"github.com/autotune/autotune/search"
)

// measureOptions are the flags of the measurement layer (warm-up
// detection, score, confirmation, thread levels, custom benchmark),
// shared by `search` and `noise`.
type measureOptions struct {
	objective    string
	maxP95       float64
	dipShare     float64
	confirm      int
	recheckEvery int
	abPairs      int
	abShare      float64
	benchCmd     string
	steadyBlock  time.Duration
	steadySpread float64
	steadyTrend  float64

	benchArgs []string // benchCmd split, set by validate
}

func (m *measureOptions) AddFlags(fs *pflag.FlagSet) {
	d := search.DefaultScoreRule()
	st := search.DefaultSteadyRule()
	fs.StringVar(&m.objective, "objective", string(search.GoalTPS), "what to optimise: tps, qps, or p95 (lower p95 latency is better)")
	fs.Float64Var(&m.maxP95, "max-p95", 0, "a trial whose p95 latency (median of the per-second values, ms) exceeds this is infeasible: kept, never the best (0 = no limit)")
	fs.Float64Var(&m.dipShare, "dip-share", d.DipShare, "a second under this share of the window's median throughput is a dip (penalised)")
	fs.IntVar(&m.confirm, "confirm", 2, "re-measure a trial that beats the best this many times before it becomes the best (0 = off)")
	fs.IntVar(&m.recheckEvery, "recheck-every", 10, "re-measure the baseline after every N trials so drift of the machine shows (0 = never)")
	fs.IntVar(&m.abPairs, "ab-pairs", 3, "final interleaved best/baseline pairs (A B A B ...) that give the gain with a 95 % confidence interval (0 with --ab-share 0 = none)")
	fs.Float64Var(&m.abShare, "ab-share", 0.1, "share of --budget reserved for the final A/B pairs (at least --ab-pairs of them)")
	fs.StringVar(&m.benchCmd, "bench-cmd", "", "run this command instead of the sysbench workload; it must print per-interval throughput lines (README: custom benchmarks); placeholders {socket} {port} {threads} {seconds} ...")
	fs.DurationVar(&m.steadyBlock, "steady-block", time.Duration(st.Block)*time.Second, "warm-up detection: block length; throughput is steady when 3 consecutive block means are flat and close")
	fs.Float64Var(&m.steadySpread, "steady-spread", st.MaxSpread, "warm-up detection: largest (max-min)/mean of the block means")
	fs.Float64Var(&m.steadyTrend, "steady-trend", st.MaxTrend, "warm-up detection: largest rise (least-squares) across the blocks, as a share of their mean")
}

// validateMeasure checks the measurement flags (and --threads); errors
// name the flag and the accepted form.
func (o *searchOptions) validateMeasure() error {
	m := &o.measure
	if len(o.threads) == 0 {
		return usagef("--threads: want one or more counts such as 16 or 8,32,128")
	}
	for _, n := range o.threads {
		if n < 1 || n > 4096 {
			return usagef("--threads %d: want 1..4096", n)
		}
	}
	if !slices.Contains(search.Goals, search.Goal(m.objective)) {
		return usagef("--objective %q: want tps, qps or p95", m.objective)
	}
	switch {
	case m.maxP95 < 0:
		return usagef("--max-p95 %g: want milliseconds >= 0 (0 = no limit)", m.maxP95)
	case m.dipShare < 0 || m.dipShare >= 1:
		return usagef("--dip-share %g: want 0 <= share < 1", m.dipShare)
	case m.confirm < 0 || m.confirm > 20:
		return usagef("--confirm %d: want 0..20", m.confirm)
	case m.recheckEvery < 0:
		return usagef("--recheck-every %d: want >= 0 (0 = never)", m.recheckEvery)
	case m.abPairs < 0 || m.abPairs > search.MaxABPairs:
		return usagef("--ab-pairs %d: want 0..%d", m.abPairs, search.MaxABPairs)
	case m.abShare < 0 || m.abShare >= 0.9:
		return usagef("--ab-share %g: want 0 <= share < 0.9", m.abShare)
	case m.steadyBlock < time.Second || m.steadyBlock%time.Second != 0:
		return usagef("--steady-block %s: want whole seconds >= 1s", m.steadyBlock)
	case m.steadySpread <= 0:
		return usagef("--steady-spread %g: want > 0", m.steadySpread)
	case m.steadyTrend <= 0:
		return usagef("--steady-trend %g: want > 0", m.steadyTrend)
	}
	if m.benchCmd != "" {
		args, err := runner.ParseBenchCmd(m.benchCmd)
		if err != nil {
			return usageError{err}
		}
		m.benchArgs = args
	}
	return nil
}

// measureSettings are the measurement settings stored with a study (part
// of benchSettings): a resumed study must keep them.
type measureSettings struct {
	Objective    string  `json:"objective"`
	MaxP95MS     float64 `json:"max_p95_ms"`
	DipShare     float64 `json:"dip_share"`
	Confirm      int     `json:"confirm"`
	RecheckEvery int     `json:"recheck_every"`
	ABPairs      int     `json:"ab_pairs"`
	ABShare      float64 `json:"ab_share"`
	BenchCmd     string  `json:"bench_cmd,omitempty"`
	SteadyBlockS int     `json:"steady_block_s"`
	SteadySpread float64 `json:"steady_spread"`
	SteadyTrend  float64 `json:"steady_trend"`
}

func (m *measureOptions) settings() measureSettings {
	return measureSettings{Objective: m.objective, MaxP95MS: m.maxP95, DipShare: m.dipShare, Confirm: m.confirm,
		RecheckEvery: m.recheckEvery, ABPairs: m.abPairs, ABShare: m.abShare, BenchCmd: m.benchCmd,
		SteadyBlockS: int(m.steadyBlock / time.Second), SteadySpread: m.steadySpread, SteadyTrend: m.steadyTrend}
}

// scoreRule returns the score rule of the flags.
func (o *searchOptions) scoreRule() search.ScoreRule {
	r := search.DefaultScoreRule()
	r.Goal, r.Lambda, r.DipShare, r.MaxP95MS = search.Goal(o.measure.objective), o.lambda, o.measure.dipShare, o.measure.maxP95
	return r
}

// confirmation returns the re-measurement policy (nil when all off).
func (o *searchOptions) confirmation() *search.Confirmation {
	m := o.measure
	if m.confirm == 0 && m.recheckEvery == 0 && m.abPairs == 0 && m.abShare == 0 {
		return nil
	}
	return &search.Confirmation{Repeats: m.confirm, RecheckEvery: m.recheckEvery, ABPairs: m.abPairs, ABShare: m.abShare}
}

// measurer returns the measurement layer for the flags: sysbench (bench)
// or the --bench-cmd command.
func (o *searchOptions) measurer(bench runner.Sysbench) measurer {
	st := search.DefaultSteadyRule()
	st.Block, st.MaxSpread, st.MaxTrend = int(o.measure.steadyBlock/time.Second), o.measure.steadySpread, o.measure.steadyTrend
	var b benchRunner = bench
	if len(o.measure.benchArgs) > 0 {
		b = runner.CommandBench{Args: o.measure.benchArgs, Tables: o.tables, TableSize: o.tableSize}
	}
	return measurer{bench: b, levels: o.threads, warmupCap: o.warmup, duration: o.duration, steady: st,
		rule: o.scoreRule(), pollEvery: time.Second}
}

// maxThreads returns the largest thread level.
func maxThreads(levels []int) int {
	return slices.Max(levels)
}

func jsonText(v any) (string, error) {
	b, err := json.Marshal(v)
	return string(b), err
}

// printGain prints the final A/B comparison of the best trial, saying
// plainly when the gain is not significant.
func printGain(out io.Writer, trials []search.Trial, best search.Trial) {
	if best.Number < 0 || best.Kind == search.Baseline {
		return
	}
	g, ok := search.ABGain(trials, best.Number)
	if !ok {
		fmt.Fprintf(out, "gain over the baseline: %s\n", abShortfall(trials, best.Number))
		return
	}
	fmt.Fprintf(out, "gain over the baseline (interleaved A/B, score): %s\n", g)
}

// levelsText renders the thread levels of a trial for the trials line:
// "8: 512.0, 32: 840.1".
func levelsText(t search.Trial) string {
	if len(t.Levels) < 2 {
		return ""
	}
	var parts []string
	for _, l := range t.Levels {
		parts = append(parts, fmt.Sprintf("%d thr %.1f", l.Threads, l.Score))
	}
	return strings.Join(parts, ", ")
}

// writeGainComment writes the final A/B result of the best trial as my.cnf
// comments: the gain with its 95 % interval, and plainly whether it is
// significant.
func writeGainComment(w io.Writer, trials []search.Trial, best search.Trial) {
	if best.Number < 0 || best.Kind == search.Baseline {
		return
	}
	if n := confirmations(trials, best.Number); n > 0 {
		fmt.Fprintf(w, "# confirmed by %d re-measurements (score and tps above are their mean)\n", n)
	}
	g, ok := search.ABGain(trials, best.Number)
	if !ok {
		fmt.Fprintf(w, "# gain over the baseline: %s; the difference above may be noise\n", abShortfall(trials, best.Number))
		return
	}
	fmt.Fprintf(w, "# gain over the baseline, interleaved A/B runs (score): %s\n", g)
	if !g.Significant {
		fmt.Fprintln(w, "# WARNING: this gain is NOT statistically significant; the configuration may be no better than the defaults")
	}
}

// confirmations counts the complete Confirm runs of trial n.
func confirmations(trials []search.Trial, n int) int {
	c := 0
	for _, t := range trials {
		if t.Kind == search.Confirm && t.RepeatOf == n && t.State == search.Complete {
			c++
		}
	}
	return c
}

// kindText is the kind column of a trial line: "confirm#3" for a
// re-measurement of trial 3.
func kindText(t search.Trial) string {
	if t.Kind.Extra() {
		return fmt.Sprintf("%s#%d", t.Kind, t.RepeatOf)
	}
	return string(t.Kind)
}

// abShortfall says why there is no A/B interval for the best trial.
func abShortfall(trials []search.Trial, best int) string {
	a, b := 0, 0
	for _, t := range trials {
		if t.RepeatOf != best || t.State != search.Complete {
			continue
		}
		switch t.Kind {
		case search.ABBest:
			a++
		case search.ABBase:
			b++
		}
	}
	if a+b == 0 {
		return "not measured by interleaved A/B runs (they run at the end of the budget or trial cap)"
	}
	return fmt.Sprintf("only %d vs %d interleaved A/B runs, too few for a confidence interval (2 per side needed, --ab-pairs 2)", a, b)
}
