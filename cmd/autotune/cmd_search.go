package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/autotune/autotune/runner"
	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/space"
	"github.com/autotune/autotune/storage"
)

// searchOptions are the flags of `autotune search`.
type searchOptions struct {
	study     string
	db        string
	budget    time.Duration
	trials    int
	workload  string
	threads   []int
	tables    int
	tableSize int
	warmup    time.Duration
	duration  time.Duration
	mysqld    string
	sysbench  string
	workdir   string
	seed      int64
	lambda    float64
	measure   measureOptions
}

func (o *searchOptions) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.study, "study", "default", "study name; the same name resumes the study")
	fs.StringVar(&o.db, "db", "trials.db", "SQLite file holding the studies and their trials")
	fs.DurationVar(&o.budget, "budget", 0, "wall-clock budget across all runs of the study, e.g. 50h, 90m (0 = no limit; then --trials is needed)")
	fs.IntVar(&o.trials, "trials", 0, "stop when the study has this many finished trials, baseline included (0 = no cap)")
	fs.StringVar(&o.workload, "workload", "oltp_read_write", "sysbench workload: "+strings.Join(runner.Workloads, ", "))
	fs.IntSliceVar(&o.threads, "threads", []int{16}, "benchmark client threads; several levels such as 8,32,128 measure each trial at each (score aggregated)")
	fs.IntVar(&o.tables, "tables", 8, "sysbench tables in the dataset")
	fs.IntVar(&o.tableSize, "table-size", 500000, "rows per sysbench table (8 x 500000 is about 1.1 GB, more than the default 128M buffer pool)")
	fs.DurationVar(&o.warmup, "warmup", 30*time.Second, "longest warm-up: the measurement window starts once throughput is steady, at the latest after this")
	fs.DurationVar(&o.duration, "duration", 60*time.Second, "measurement window of each trial")
	fs.StringVar(&o.mysqld, "mysqld", "", "server binary (default: mariadbd or mysqld on PATH or in /usr/sbin)")
	fs.StringVar(&o.sysbench, "sysbench", "sysbench", "sysbench binary")
	fs.StringVar(&o.workdir, "workdir", "autotune-sandbox", "sandbox directory: dataset snapshot, trial datadir, socket, logs (created 0700)")
	fs.Int64Var(&o.seed, "seed", 0, "sampler seed for a new study (0 = random); stored with the study")
	fs.Float64Var(&o.lambda, "lambda", search.DefaultLambda, "weight of the variance penalty: score = mean tps - lambda x sd tps - other penalties")
	o.measure.AddFlags(fs)
}

// validate checks flag values; errors name the flag and the accepted form.
func (o *searchOptions) validate() error {
	switch {
	case o.study == "" || strings.ContainsAny(o.study, " \t\n/"):
		return usagef("--study %q: want a non-empty name without spaces or slashes", o.study)
	case o.db == "":
		return usagef("--db: want a file path")
	case o.budget < 0:
		return usagef("--budget %s: want a positive duration such as 50h or 90m", o.budget)
	case o.trials < 0:
		return usagef("--trials %d: want a positive count (or 0 for no cap)", o.trials)
	case o.budget == 0 && o.trials == 0:
		return usagef("--budget or --trials: give at least one, e.g. --budget 8h")
	case !slices.Contains(runner.Workloads, o.workload):
		return usagef("--workload %q: want one of %s", o.workload, strings.Join(runner.Workloads, ", "))
	case o.tables < 1 || o.tables > 1024:
		return usagef("--tables %d: want 1..1024", o.tables)
	case o.tableSize < 1:
		return usagef("--table-size %d: want a positive row count", o.tableSize)
	case o.warmup < 0:
		return usagef("--warmup %s: want a duration >= 0 such as 30s", o.warmup)
	case o.duration < time.Duration(search.MinMeasureSamples)*time.Second:
		return usagef("--duration %s: want at least %ds (the score needs per-second samples)", o.duration, search.MinMeasureSamples)
	case o.warmup%time.Second != 0 || o.duration%time.Second != 0:
		return usagef("--warmup/--duration: want whole seconds (sysbench reports once per second)")
	case o.lambda < 0:
		return usagef("--lambda %g: want a number >= 0", o.lambda)
	case o.workdir == "":
		return usagef("--workdir: want a directory path")
	}
	return o.validateMeasure()
}

// benchSettings are the settings that define what a study measures; a
// resumed study must keep them. Stored as JSON with the study.
type benchSettings struct {
	Workload  string  `json:"workload"`
	Threads   int     `json:"threads"`
	Tables    int     `json:"tables"`
	TableSize int     `json:"table_size"`
	WarmupS   float64 `json:"warmup_s"`
	DurationS float64 `json:"duration_s"`
	Lambda    float64 `json:"lambda"`
	// ThreadLevels is --threads when it has several levels.
	ThreadLevels []int           `json:"thread_levels,omitempty"`
	Measure      measureSettings `json:"measure"`
}

func (o *searchOptions) settings() benchSettings {
	bs := benchSettings{Workload: o.workload, Threads: o.threads[0], Tables: o.tables, TableSize: o.tableSize,
		WarmupS: o.warmup.Seconds(), DurationS: o.duration.Seconds(), Lambda: o.lambda, Measure: o.measure.settings()}
	if len(o.threads) > 1 {
		bs.ThreadLevels = o.threads
	}
	return bs
}

func newSearchCmd() *cobra.Command {
	o := &searchOptions{}
	cmd := &cobra.Command{
		Use:   "search",
		Short: "Run (or resume) a tuning study on a sandboxed server",
		Long: `search measures the baseline (server defaults) and then configurations proposed by
TPE, one trial at a time: restore the dataset snapshot, start the server with the
trial's my.cnf, warm up, measure, stop. Each finished trial is committed to the
study database at once; Ctrl-C abandons the running trial and the same command
resumes the study later.

Each trial's measurement window starts once throughput is steady (at the latest
after --warmup) and is scored as mean throughput minus penalties for variance,
dips, stalls, errors and purge lag. A trial that beats the best is re-measured
(--confirm) before it becomes the best, the baseline is re-measured at intervals
(--recheck-every), and the study ends with interleaved best/baseline runs that
give the gain with a 95 % confidence interval (--ab-pairs, --ab-share).`,
		Args: cobra.NoArgs,
		PreRunE: func(cmd *cobra.Command, args []string) error {
			return o.validate()
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return runSearch(cmd.Context(), o, cmd.OutOrStdout())
		},
	}
	o.AddFlags(cmd.Flags())
	return cmd
}

// runSearch opens (or creates) the study, makes sure the dataset snapshot
// exists, and runs trials until the budget or trial cap is reached.
func runSearch(ctx context.Context, o *searchOptions, out io.Writer) error {
	started := time.Now()
	logf := func(format string, a ...any) { fmt.Fprintf(out, format+"\n", a...) }

	host, err := runner.ReadHost()
	if err != nil {
		return err
	}
	bin, err := runner.FindServer(ctx, o.mysqld)
	if err != nil {
		return err
	}
	db, err := storage.Open(o.db)
	if err != nil {
		return err
	}
	defer db.Close()

	settingsJSON, _ := json.Marshal(o.settings())
	st, found, err := db.Study(ctx, o.study)
	if err != nil {
		return err
	}
	if found {
		if st.Settings != string(settingsJSON) {
			return usagef("study %q was run with different benchmark settings:\n  stored: %s\n  now:    %s\nuse the same flags to resume it, or start a new study with --study NEW_NAME", o.study, st.Settings, settingsJSON)
		}
	} else {
		seed := o.seed
		if seed == 0 {
			seed = rand.Int64N(1<<31) + 1
		}
		st = storage.Study{Name: o.study, Settings: string(settingsJSON), Seed: seed, ServerVersion: bin.Version,
			Cores: host.Cores, RAMBytes: host.RAMBytes, Created: started}
		if err := db.CreateStudy(ctx, st); err != nil {
			return err
		}
	}
	interrupted, err := db.MarkInterrupted(ctx, o.study)
	if err != nil {
		return err
	}
	for _, t := range interrupted {
		logf("trial %d was left running by an earlier run: marked interrupted, its config will be measured again", t.Number)
	}
	next, err := db.NextTrialNumber(ctx, o.study)
	if err != nil {
		return err
	}
	if found {
		logf("resuming study %q: %d trials recorded, %s of budget used", o.study, next, st.Spent.Round(time.Second))
	} else {
		logf("new study %q (seed %d) on %s", o.study, st.Seed, bin.Version)
	}

	sb, err := runner.OpenSandbox(o.workdir, bin)
	if err != nil {
		return err
	}
	bench := runner.Sysbench{Path: o.sysbench, Workload: o.workload, Tables: o.tables, TableSize: o.tableSize, Threads: o.threads[0]}
	maxConn := maxThreads(o.threads) + 50
	ds := runner.Dataset{Workload: o.workload, Tables: o.tables, TableSize: o.tableSize, ServerVersion: bin.Version}
	if !sb.HasSnapshot(ds) {
		logf("loading the dataset once: %d tables x %d rows (sysbench prepare), then snapshotting it", o.tables, o.tableSize)
		if err := sb.BuildSnapshot(ctx, ds, maxConn, bench.Prepare, logf); err != nil {
			if ctx.Err() != nil {
				return interruptedErr(out, o)
			}
			return fmt.Errorf("build dataset snapshot: %w", err)
		}
	}

	sp := space.Default()
	// Never let the buffer pool take more than half of the host's RAM.
	if err := sp.Limit("innodb_buffer_pool_size", float64(host.RAMBytes/2)); err != nil {
		return err
	}
	// Vary the seed on each resume so a resumed sampler does not replay the
	// random draws of the first run.
	strategy, err := search.NewTPE(sp, st.Seed+int64(next))
	if err != nil {
		return err
	}
	tr := &trialRunner{sb: sb, meas: o.measurer(bench), sp: sp, maxConn: maxConn, logf: logf}
	study := &search.Study{
		Name: o.study, Strategy: strategy, Objective: tr.run, Store: db,
		Budget: o.budget, Spent: st.Spent, Start: started, MaxTrials: o.trials, Confirm: o.confirmation(),
		OnTrial: func(e search.Event) { logf("%s", trialLine(sp, e)) },
	}
	res, err := study.Run(ctx)
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return interruptedErr(out, o)
		}
		return err
	}
	logf("study %q stopped: %s after %d trials, %s of budget used", o.study, res.Reason, len(res.Trials), res.Spent.Round(time.Second))
	printOutcome(out, sp, res.Best, res.Baseline)
	printGain(out, res.Trials, res.Best)
	logf("write it as a my.cnf with: autotune export --study %s --db %s -o best.cnf", o.study, o.db)
	return nil
}

// interruptedErr prints how to resume and returns context.Canceled (exit 130).
func interruptedErr(out io.Writer, o *searchOptions) error {
	fmt.Fprintf(out, "\ninterrupted: the running trial was abandoned (not counted) and the server stopped.\nresume with the same command: autotune search --study %s --db %s ...\n", o.study, o.db)
	return context.Canceled
}

// gain returns the relative change of best over base in percent.
func gain(best, base float64) float64 {
	if base == 0 {
		return 0
	}
	return (best - base) / base * 100
}

// trialLine formats the one-line report of a finished trial.
func trialLine(sp *space.Space, e search.Event) string {
	t := e.Trial
	var b strings.Builder
	fmt.Fprintf(&b, "trial %3d %-10s ", t.Number, kindText(t))
	if t.State == search.Complete {
		fmt.Fprintf(&b, "tps %8.1f  score %8.1f  warm-up %2.0fs", t.MeanTPS, t.Score, t.WarmupS)
	} else {
		fmt.Fprintf(&b, "%-30s", strings.ToUpper(string(t.State)))
	}
	if e.Best.Number >= 0 {
		fmt.Fprintf(&b, " | best %.1f (#%d", e.Best.Score, e.Best.Number)
		if e.Baseline.Number >= 0 {
			fmt.Fprintf(&b, ", %+.1f %% tps vs baseline", gain(e.Best.MeanTPS, e.Baseline.MeanTPS))
		}
		b.WriteString(")")
	}
	if e.Budget > 0 {
		left := e.Budget - e.Spent
		if left < 0 {
			left = 0
		}
		fmt.Fprintf(&b, " | budget left %s", left.Round(time.Second))
	}
	if ch := sp.Changes(t.Params); len(ch) > 0 {
		b.WriteString(" | " + strings.Join(ch, " "))
	} else {
		b.WriteString(" | server defaults")
	}
	if t.State == search.Failed {
		b.WriteString("\n      reason: " + t.Failure)
	}
	if lv := levelsText(t); lv != "" {
		b.WriteString("\n      levels: " + lv)
	}
	if e.Note != "" {
		b.WriteString("\n      " + e.Note)
	}
	return b.String()
}

// printOutcome prints the best configuration and its gain over the baseline.
func printOutcome(out io.Writer, sp *space.Space, best, base search.Trial) {
	if best.Number < 0 {
		fmt.Fprintln(out, "no trial completed yet")
		return
	}
	fmt.Fprintf(out, "\nbest: trial %d, score %.1f, %.1f tps", best.Number, best.Score, best.MeanTPS)
	if base.Number >= 0 {
		fmt.Fprintf(out, " vs baseline %.1f tps (%+.1f %%)", base.MeanTPS, gain(best.MeanTPS, base.MeanTPS))
	}
	fmt.Fprintln(out)
	if ch := sp.Changes(best.Params); len(ch) > 0 {
		for _, c := range ch {
			fmt.Fprintln(out, "  "+c)
		}
	} else {
		fmt.Fprintln(out, "  (server defaults)")
	}
}
