package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/autotune/autotune/internal/lockfile"
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
	sysbench  string
	workdir   string
	seed      int64
	lambda    float64
	allowChg  bool
	json      bool // progress as JSON lines
	knobs     studySpaceOptions
	existing  existingOptions
	strategyOptions
	measure measureOptions
}

func (o *searchOptions) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.study, "study", "default", "study name; the same name resumes the study")
	fs.StringVar(&o.db, "db", "trials.db", "study store: an SQLite file, or a MySQL/MariaDB database mysql://USER@HOST:PORT/DATABASE (password from $AUTOTUNE_DB_PASSWORD or ?password_file=PATH)")
	fs.DurationVar(&o.budget, "budget", 0, "wall-clock budget across all runs of the study, e.g. 50h, 90m (0 = no limit; then --trials is needed)")
	fs.IntVar(&o.trials, "trials", 0, "stop when the study has this many finished trials, baseline included (0 = no cap)")
	fs.StringVar(&o.workload, "workload", "oltp_read_write", "sysbench workload: "+strings.Join(runner.Workloads, ", "))
	fs.IntSliceVar(&o.threads, "threads", []int{16}, "benchmark client threads; several levels such as 8,32,128 measure each trial at each (score aggregated)")
	fs.IntVar(&o.tables, "tables", 8, "sysbench tables in the dataset")
	fs.IntVar(&o.tableSize, "table-size", 500000, "rows per sysbench table (8 x 500000 is about 1.1 GB, more than the default 128M buffer pool)")
	fs.DurationVar(&o.warmup, "warmup", 30*time.Second, "longest warm-up: the measurement window starts once throughput is steady, at the latest after this")
	fs.DurationVar(&o.duration, "duration", 60*time.Second, "measurement window of each trial")
	fs.StringVar(&o.sysbench, "sysbench", "sysbench", "sysbench binary")
	fs.StringVar(&o.workdir, "workdir", "autotune-sandbox", "sandbox directory: dataset snapshot, trial datadir, socket, logs (created 0700)")
	fs.Int64Var(&o.seed, "seed", 0, "sampler seed for a new study (0 = random); stored with the study")
	fs.Float64Var(&o.lambda, "lambda", search.DefaultLambda, "weight of the variance penalty: score = mean tps - lambda x sd tps - other penalties")
	o.existing.AddFlags(fs)
	fs.BoolVar(&o.allowChg, "allow-changes", false, "resume a study although its manifest changed (server version, host cores/RAM, benchmark settings); the change is recorded")
	fs.BoolVar(&o.json, "json", false, "print progress as JSON lines, one event per line (log, phase, sample, trial, done, interrupted)")
	o.knobs.AddFlags(fs)
	o.strategyOptions.AddFlags(fs)
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
	if err := o.knobs.validate(); err != nil {
		return err
	}
	if err := o.existing.validate(); err != nil {
		return err
	}
	if err := o.strategyOptions.validate(); err != nil {
		return err
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
	// Space holds the space settings (durability, space file, builds,
	// memory budget, apply mode, baseline); see study_settings.go.
	Space *spaceSettings `json:"space,omitempty"`
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
		Long: `search measures the baseline (server defaults), an expert configuration derived
from the host and the dataset, and then configurations proposed by the search
strategy (--strategy), one trial at a time: restore the dataset snapshot, start the server with the
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
	if o.existing.dsn != "" {
		return runExisting(ctx, o, out)
	}
	started := time.Now()
	prog := newTracker(chooseProgress(o.json, out), out, nil)
	defer prog.close()
	logf := prog.logf

	host, err := runner.ReadHost()
	if err != nil {
		return err
	}
	db, err := storage.Open(o.db)
	if err != nil {
		return err
	}
	defer db.Close()

	// One autotune per study: a second process is refused, not queued.
	releaseStudy, err := acquireStudyLock(ctx, db, o.db, o.study)
	if err != nil {
		return err
	}
	defer releaseStudy()

	// One autotune per sandbox, too (before the live server is probed in it).
	probeSB, err := runner.OpenSandbox(o.workdir, runner.Binary{})
	if err != nil {
		return err
	}
	sbLock, err := lockfile.Acquire(filepath.Join(probeSB.Dir, "lock"))
	if errors.Is(err, lockfile.ErrLocked) {
		return fmt.Errorf("--workdir %q is used by another autotune (%v); give each running study its own --workdir", o.workdir, err)
	}
	if err != nil {
		return err
	}
	defer sbLock.Release()

	// Read the live server's variables (a fresh tiny datadir in the
	// sandbox) and resolve the knob catalogue against it.
	rs, err := o.knobs.resolveSpace(ctx, o.workdir, logf)
	if err != nil {
		if ctx.Err() != nil {
			return interruptedErr(prog, o)
		}
		return err
	}
	bin := rs.servers.first()
	plan, err := o.knobs.plan(ctx, rs, host)
	if err != nil {
		return err
	}
	settings := o.settings()
	settings.Space = plan.settings
	settingsJSON, _ := json.Marshal(settings)
	st, found, err := db.Study(ctx, o.study)
	if err != nil {
		return err
	}
	if found {
		if err := checkManifest(ctx, db, st, o, string(settingsJSON), bin, host, logf); err != nil {
			return err
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
				return interruptedErr(prog, o)
			}
			return fmt.Errorf("build dataset snapshot: %w", err)
		}
	}

	sp := rs.sp
	plan.report(logf, sp)
	// Vary the seed on each resume so a resumed sampler does not replay the
	// random draws of the first run.
	strategy, warm, err := o.newStrategy(ctx, sp, st.Seed+int64(next), o.trials, host, sb, logf)
	if err != nil {
		if ctx.Err() != nil {
			return interruptedErr(prog, o)
		}
		return err
	}
	history, err := db.Trials(ctx, o.study)
	if err != nil {
		return err
	}
	prog.configure(o.study, o.budget, o.trials, st.Spent, started, sp, history)
	prog.setTrialLength(o.warmup, o.duration)
	tr := &trialRunner{sb: sb, bench: bench, meas: o.measurer(bench), sp: sp, maxConn: maxConn, logf: logf,
		onPhase: prog.phase, onSample: prog.sample}
	plan.setup(tr, rs)
	defer tr.close()
	study := &search.Study{
		Name: o.study, Strategy: strategy, Objective: tr.run, Store: db,
		Budget: o.budget, Spent: st.Spent, Start: started, MaxTrials: o.trials, WarmStart: warm, Confirm: o.confirmation(),
		Base:    plan.base,
		Prepare: func(c space.Config) space.Config { r, _ := sp.Repair(c); return r },
	}
	budgetPlan := newPlanner(o, study, history, logf)
	study.OnTrial = func(e search.Event) { prog.trial(e); budgetPlan.onTrial(e) }
	budgetPlan.start()
	res, err := study.Run(ctx)
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return interruptedErr(prog, o)
		}
		return err
	}
	// The importance ranking is stored with the study; printed unless the
	// output is a JSON event stream.
	impOut := out
	if o.json {
		impOut = io.Discard
	}
	if err := reportImportance(ctx, db, o.study, sp, res.Trials, impOut); err != nil {
		return err
	}
	printGain(impOut, res.Trials, res.Best)
	prog.done(res, fmt.Sprintf("write it as a my.cnf with: autotune export --study %s --db %s -o best.cnf", o.study, o.db))
	return nil
}

// interruptedErr reports how to resume and returns context.Canceled (exit 130).
func interruptedErr(prog *tracker, o *searchOptions) error {
	return prog.interrupted(fmt.Sprintf("interrupted: the running trial was abandoned (not counted) and the server stopped.\nresume with the same command: autotune search --study %s --db %s ...", o.study, o.db))
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
	if t.State == search.Failed || t.State == search.Rejected {
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

// checkManifest compares a resumed study's manifest (benchmark settings,
// server version, host cores and RAM) with this run. A difference is
// refused unless --allow-changes, which records each change in trials.db.
func checkManifest(ctx context.Context, db *storage.DB, st storage.Study, o *searchOptions, settings string, bin runner.Binary, host runner.Host, logf func(string, ...any)) error {
	type diff struct{ field, old, new string }
	var diffs []diff
	if st.Settings != settings {
		diffs = append(diffs, diff{"settings", st.Settings, settings})
	}
	if st.ServerVersion != bin.Version {
		diffs = append(diffs, diff{"server_version", st.ServerVersion, bin.Version})
	}
	if st.Cores != host.Cores {
		diffs = append(diffs, diff{"host_cores", strconv.Itoa(st.Cores), strconv.Itoa(host.Cores)})
	}
	if st.RAMBytes != host.RAMBytes {
		diffs = append(diffs, diff{"host_ram_bytes", strconv.FormatInt(st.RAMBytes, 10), strconv.FormatInt(host.RAMBytes, 10)})
	}
	if len(diffs) == 0 {
		return nil
	}
	if !o.allowChg {
		var b strings.Builder
		for _, d := range diffs {
			fmt.Fprintf(&b, "\n  %s: stored %s, now %s", d.field, d.old, d.new)
		}
		return usagef("study %q was run under a different manifest:%s\nscores measured under different conditions do not compare: use the same flags and machine to resume it, start a new study with --study NEW_NAME, or pass --allow-changes to continue and record the change", o.study, b.String())
	}
	for _, d := range diffs {
		if err := db.RecordChange(ctx, st.Name, storage.Change{At: time.Now(), Field: d.field, Old: d.old, New: d.new}); err != nil {
			return err
		}
		logf("study %q: %s changed (%s -> %s), recorded (--allow-changes)", st.Name, d.field, d.old, d.new)
	}
	return nil
}
