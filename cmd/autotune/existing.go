package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/google/shlex"
	"github.com/spf13/pflag"

	"github.com/autotune/autotune/internal/secret"
	"github.com/autotune/autotune/runner"
	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/space"
	"github.com/autotune/autotune/storage"
)

// existingOptions are the flags of `autotune search` that tune a server
// autotune did not start.
type existingOptions struct {
	dsn          string
	configFile   string
	restartCmd   string
	allowRestart bool
	notSandbox   bool
	passwordFile string
}

// existingPasswordEnv holds the password of --dsn's user.
const existingPasswordEnv = "AUTOTUNE_PASSWORD"

func (o *existingOptions) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.dsn, "dsn", "", "tune an existing server instead of a sandbox: USER@unix(/path/to/socket)/ or USER@tcp(HOST:PORT)/ (no password here: $"+existingPasswordEnv+" or --password-file)")
	fs.StringVar(&o.configFile, "config-file", "", "with --dsn: option file autotune writes each trial's knobs into; the server's my.cnf must !include it (autotune never edits my.cnf itself); restored at the end")
	fs.StringVar(&o.restartCmd, "restart-cmd", "", "with --dsn --allow-restart: command that restarts the server, split into words like a shell does (quotes and backslashes) but run without a shell: no $VARS, globs, pipes or ;")
	fs.BoolVar(&o.allowRestart, "allow-restart", false, "with --dsn: also tune knobs that need a restart, running --restart-cmd (without it, only knobs SET GLOBAL can change are tuned)")
	fs.BoolVar(&o.notSandbox, "i-understand-this-is-not-a-sandbox", false, "with --dsn: run although the server holds schemas other than sbtest (its data is not touched, but its users will feel the benchmark and the trial settings)")
	fs.StringVar(&o.passwordFile, "password-file", "", "with --dsn: MySQL option file with a [client] password= line for the --dsn user (mode 0600)")
}

// validate checks the existing-server flags (errors are usage errors).
func (o *existingOptions) validate() error {
	if o.dsn == "" {
		if o.configFile != "" || o.restartCmd != "" || o.allowRestart || o.notSandbox || o.passwordFile != "" {
			return usagef("--config-file, --restart-cmd, --allow-restart, --password-file and --i-understand-this-is-not-a-sandbox need --dsn (an existing server)")
		}
		return nil
	}
	cfg, err := mysql.ParseDSN(o.dsn)
	if err != nil {
		return usagef("--dsn %q: want USER@unix(/path/to/socket)/ or USER@tcp(HOST:PORT)/: %v", storage.RedactDSN(o.dsn), err)
	}
	if cfg.Passwd != "" {
		return usagef("--dsn %q holds a password: put it in $%s or an option file given with --password-file, never on the command line", storage.RedactDSN(o.dsn), existingPasswordEnv)
	}
	if o.configFile == "" {
		return usagef("--dsn needs --config-file PATH: the include file autotune writes each trial's settings into")
	}
	if o.allowRestart && o.restartCmd == "" {
		return usagef("--allow-restart needs --restart-cmd 'COMMAND', e.g. 'systemctl restart mariadb'")
	}
	if o.restartCmd != "" {
		argv, err := shlex.Split(o.restartCmd)
		if err != nil || len(argv) == 0 {
			return usagef("--restart-cmd %q: want a command and its arguments (quoted like in a shell; no shell features): %v", o.restartCmd, err)
		}
	}
	return nil
}

// savedState is what autotune must put back: written next to the include
// file (0600) before the first change, removed after the restore, so that
// a killed autotune's next run restores it first.
type savedState struct {
	// Globals are the original @@GLOBAL values of every tuned knob.
	Globals map[string]string `json:"globals"`
	// Include is the original content of the include file; HadInclude is
	// false when there was none.
	Include    string `json:"include"`
	HadInclude bool   `json:"had_include"`
}

func statePath(configFile string) string { return configFile + ".autotune-saved.json" }

// existingRunner measures trials on an existing server.
type existingRunner struct {
	ex               *runner.Existing
	sp               *space.Space
	bench            runner.Sysbench
	include          string
	orig             savedState
	cur              map[string]string // the server's current values
	warmup, duration time.Duration
	lambda           float64
	logf             func(string, ...any)
}

// same reports whether two values of knob k are equal (canonical forms
// when both parse, text otherwise).
func same(k space.Knob, a, b string) bool {
	na, ea := k.Normalize(a)
	nb, eb := k.Normalize(b)
	if ea == nil && eb == nil {
		return na == nb
	}
	return strings.EqualFold(strings.TrimSpace(a), strings.TrimSpace(b))
}

// writeInclude writes the include file atomically (temp file + rename).
func writeInclude(path, content string) error {
	tmp := path + ".autotune-tmp"
	if err := os.WriteFile(tmp, []byte(content), 0o644); err != nil {
		return fmt.Errorf("write --config-file %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("write --config-file %s: %w", path, err)
	}
	return nil
}

// apply puts cfg (knobs absent: their original values) on the server:
// the include file, a restart when a static knob changes, SET GLOBAL for
// dynamic ones. failure is non-empty when the server refused the config
// (the trial fails); err means the server could not be brought back.
func (r *existingRunner) apply(ctx context.Context, cfg space.Config, content string, restarted *bool) (failure, errorLog string, err error) {
	want := map[string]string{}
	for _, k := range r.sp.Knobs() {
		if v, ok := cfg[k.Name]; ok {
			want[k.Name] = v
		} else {
			want[k.Name] = r.orig.Globals[k.Name]
		}
	}
	if err := writeInclude(r.include, content); err != nil {
		return "", "", err
	}
	needRestart := false
	for _, k := range r.sp.Knobs() {
		if !k.Dynamic && !same(k, want[k.Name], r.cur[k.Name]) {
			needRestart = true
		}
	}
	if needRestart {
		*restarted = true
		if err := r.ex.Restart(ctx); err != nil {
			if ctx.Err() != nil {
				return "", "", ctx.Err()
			}
			// The server may be down with settings it refuses: put the
			// original include back and restart, or stop the study.
			failure = "restart with the trial's settings failed: " + err.Error()
			if rerr := r.restoreInclude(); rerr != nil {
				return failure, "", rerr
			}
			if rerr := r.ex.Restart(ctx); rerr != nil {
				return failure, "", fmt.Errorf("the server did not come back with its original settings either: %w (trial: %v)", rerr, err)
			}
			r.cur, err = r.ex.Globals(ctx, r.names())
			return failure, "", err
		}
		if r.cur, err = r.ex.Globals(ctx, r.names()); err != nil {
			return "", "", err
		}
		for _, k := range r.sp.Knobs() {
			if !k.Dynamic && !same(k, want[k.Name], r.cur[k.Name]) {
				return fmt.Sprintf("after the restart %s is %s, not %s: does the server's my.cnf !include %s (after its own settings)?", k.Name, r.cur[k.Name], want[k.Name], r.include), "", nil
			}
		}
	}
	for _, k := range r.sp.Knobs() {
		if !k.Dynamic || same(k, want[k.Name], r.cur[k.Name]) {
			continue
		}
		if err := r.ex.SetGlobal(ctx, k.Name, want[k.Name]); err != nil {
			var me *mysql.MySQLError
			if errors.As(err, &me) {
				return "server refused " + err.Error(), "", nil
			}
			return "", "", err
		}
		r.cur[k.Name] = want[k.Name]
	}
	return "", "", nil
}

func (r *existingRunner) names() []string {
	var n []string
	for _, k := range r.sp.Knobs() {
		n = append(n, k.Name)
	}
	return n
}

func (r *existingRunner) restoreInclude() error {
	if !r.orig.HadInclude {
		if err := os.Remove(r.include); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		return nil
	}
	return writeInclude(r.include, r.orig.Include)
}

// run implements search.Objective on the existing server.
func (r *existingRunner) run(ctx context.Context, t search.Trial) (search.Outcome, error) {
	out := search.Outcome{Phases: map[string]float64{}}
	t0 := time.Now()
	content := r.orig.Include
	if len(t.Params) > 0 || !r.orig.HadInclude {
		var b bytes.Buffer
		fmt.Fprintf(&b, "# written by autotune for trial %d of a study; the original content is put back when it ends\n[mysqld]\n", t.Number)
		if err := r.sp.WriteOptions(&b, t.Params); err != nil {
			return out, err
		}
		content = b.String()
	}
	failure, elog, err := r.apply(ctx, t.Params, content, &out.Restarted)
	out.Phases["apply"] = time.Since(t0).Seconds()
	if err != nil {
		return out, err
	}
	if failure != "" {
		out.Failure, out.ErrorLog = failure, elog
		return out, nil
	}
	if v, err := r.ex.Version(ctx); err == nil {
		out.ServerVersion = v
	}
	return out, measure(ctx, r.bench, r.ex.Target(), r.warmup, r.duration, r.lambda, &out)
}

// measure runs the benchmark through warm-up and measurement against srv
// and scores it into out. A benchmark failure fails the trial (out.Failure);
// the error is ctx's.
func measure(ctx context.Context, bench runner.Sysbench, srv *runner.Server, warmup, duration time.Duration, lambda float64, out *search.Outcome) error {
	warm, end := warmup.Seconds(), (warmup + duration).Seconds()
	t0 := time.Now()
	res, berr := bench.Run(ctx, srv, warmup+duration+time.Second, func(iv runner.Interval) {
		if iv.Time > end {
			return
		}
		s := search.Sample{T: iv.Time, Warmup: iv.Time <= warm, TPS: iv.TPS, QPS: iv.QPS,
			Reads: iv.Reads, Writes: iv.Writes, Other: iv.Other, LatPct: iv.LatPct,
			ErrPS: iv.ErrPS, ReconnPS: iv.ReconnPS}
		if iv.LatMS != nil {
			s.LatMS = *iv.LatMS
		}
		out.Samples = append(out.Samples, s)
	})
	elapsed := time.Since(t0).Seconds()
	out.Phases["warmup"] = min(elapsed, warm)
	out.Phases["measure"] = max(0, elapsed-warm)
	if res.Summary != nil {
		if b, err := json.Marshal(res.Summary); err == nil {
			out.Summary = string(b)
		}
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if berr != nil {
		out.Failure = berr.Error()
		var be *runner.BenchError
		if errors.As(berr, &be) {
			out.ErrorLog = "sysbench output:\n" + be.Output
		}
		return nil
	}
	score, mean, sd, p95, err := search.Score(out.Samples, lambda)
	if err != nil {
		out.Failure = err.Error()
		return nil
	}
	out.Score, out.MeanTPS, out.StdTPS, out.P95MS = score, mean, sd, p95
	return nil
}

// restore puts the original settings back: the include file, a restart
// when a static knob differs from its original, SET GLOBAL for the dynamic
// ones; then checks every knob and removes the saved state. It ignores
// ctx's cancellation (it runs after Ctrl-C) but not a 5-minute limit.
func (r *existingRunner) restore(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Minute)
	defer cancel()
	if err := r.restoreInclude(); err != nil {
		return err
	}
	cur, err := r.ex.Globals(ctx, r.names())
	if err != nil {
		return err
	}
	for _, k := range r.sp.Knobs() {
		if !k.Dynamic && !same(k, r.orig.Globals[k.Name], cur[k.Name]) {
			r.logf("restarting the server to restore %s = %s", k.Name, r.orig.Globals[k.Name])
			if err := r.ex.Restart(ctx); err != nil {
				return err
			}
			if cur, err = r.ex.Globals(ctx, r.names()); err != nil {
				return err
			}
			break
		}
	}
	for _, k := range r.sp.Knobs() {
		if k.Dynamic && !same(k, r.orig.Globals[k.Name], cur[k.Name]) {
			if err := r.ex.SetGlobal(ctx, k.Name, r.orig.Globals[k.Name]); err != nil {
				return err
			}
		}
	}
	// Some changes (a buffer pool resize) complete in the background.
	deadline := time.Now().Add(30 * time.Second)
	for {
		cur, err = r.ex.Globals(ctx, r.names())
		if err != nil {
			return err
		}
		var diff []string
		for _, k := range r.sp.Knobs() {
			if !same(k, r.orig.Globals[k.Name], cur[k.Name]) {
				diff = append(diff, fmt.Sprintf("%s is %s, was %s", k.Name, cur[k.Name], r.orig.Globals[k.Name]))
			}
		}
		if len(diff) == 0 {
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("settings not restored: %s", strings.Join(diff, "; "))
		}
		time.Sleep(500 * time.Millisecond)
	}
	r.cur = cur
	return os.Remove(statePath(r.include))
}

// existingPassword returns the --dsn user's password: $AUTOTUNE_PASSWORD,
// else --password-file, else none.
func existingPassword(o *existingOptions) (string, error) {
	if pw, ok := os.LookupEnv(existingPasswordEnv); ok {
		return pw, nil
	}
	if o.passwordFile != "" {
		return secret.FromOptionFile(o.passwordFile)
	}
	return "", nil
}

// runExisting is `autotune search --dsn ...`: a study on a server autotune
// did not start. Trials see an evolving dataset (no snapshot to restore).
func runExisting(ctx context.Context, o *searchOptions, out io.Writer) (retErr error) {
	started := time.Now()
	logf := func(format string, a ...any) { fmt.Fprintf(out, format+"\n", a...) }
	eo := &o.existing
	pw, err := existingPassword(eo)
	if err != nil {
		return err
	}
	ex, err := runner.OpenExisting(eo.dsn, pw)
	if err != nil {
		return usageError{err}
	}
	if eo.restartCmd != "" && eo.allowRestart {
		ex.RestartCmd, _ = shlex.Split(eo.restartCmd)
	}
	include, err := filepath.Abs(eo.configFile)
	if err != nil {
		return err
	}
	host, err := runner.ReadHost()
	if err != nil {
		return err
	}
	version, err := ex.Version(ctx)
	if err != nil {
		return err
	}
	others, err := ex.OtherSchemas(ctx, "sbtest")
	if err != nil {
		return err
	}
	if len(others) > 0 && !eo.notSandbox {
		return usagef("server %s holds schemas other than the benchmark's sbtest (%s): it looks like a server people use. autotune changes its global settings and loads it with the benchmark; pass --i-understand-this-is-not-a-sandbox to go ahead anyway", ex.Addr(), strings.Join(others, ", "))
	}

	// The space: the first space's twelve server knobs (the whole
	// catalogue is resolved against a live server only in the sandbox);
	// the durability knobs only with --durability relaxed; without
	// restarts, only knobs SET GLOBAL can change.
	first, err := space.FirstSpace()
	if err != nil {
		return err
	}
	relaxed := o.knobs.durability == string(space.Relaxed)
	var knobs []space.Knob
	for _, k := range first.Knobs() {
		if !relaxed && (k.Name == "innodb_flush_log_at_trx_commit" || k.Name == "innodb_doublewrite") {
			continue
		}
		if !eo.allowRestart && !k.Dynamic {
			continue
		}
		knobs = append(knobs, k)
	}
	sp, err := space.New(knobs)
	if err != nil {
		return err
	}
	if err := sp.Limit("innodb_buffer_pool_size", float64(host.RAMBytes/2)); err != nil {
		return err
	}
	r := &existingRunner{ex: ex, sp: sp, include: include, warmup: o.warmup, duration: o.duration, lambda: o.lambda, logf: logf,
		bench: runner.Sysbench{Path: o.sysbench, Workload: o.workload, Tables: o.tables, TableSize: o.tableSize, Threads: o.threads[0]}}

	// A killed autotune left settings behind: restore them first.
	if b, err := os.ReadFile(statePath(include)); err == nil {
		if err := json.Unmarshal(b, &r.orig); err != nil {
			return fmt.Errorf("%s: %w (delete it once the server's settings are as you want them)", statePath(include), err)
		}
		logf("an earlier autotune did not finish restoring the server's settings (%s): restoring them now", statePath(include))
		if err := r.restore(ctx); err != nil {
			return fmt.Errorf("restore the settings saved in %s: %w", statePath(include), err)
		}
	}
	if r.orig.Globals, err = ex.Globals(ctx, r.names()); err != nil {
		return err
	}
	r.cur = make(map[string]string, len(r.orig.Globals))
	for k, v := range r.orig.Globals {
		r.cur[k] = v
	}
	if b, err := os.ReadFile(include); err == nil {
		r.orig.Include, r.orig.HadInclude = string(b), true
	} else if !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("--config-file %s: %w", include, err)
	}
	state, _ := json.Marshal(r.orig)
	if err := os.WriteFile(statePath(include), state, 0o600); err != nil {
		return fmt.Errorf("save the original settings: %w", err)
	}
	defer func() {
		if err := r.restore(ctx); err != nil {
			logf("ERROR: could not restore the server's original settings: %v\nthey are saved in %s; the next autotune run with this --config-file restores them", err, statePath(include))
			if retErr == nil {
				retErr = err
			}
			return
		}
		logf("original settings of %s restored", ex.Addr())
	}()

	// The dataset: loaded once if missing, then used as it evolves.
	n, err := ex.QueryInt(ctx, "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = 'sbtest' AND table_name LIKE 'sbtest%'")
	if err != nil {
		return err
	}
	switch {
	case n == 0:
		logf("loading the dataset: %d tables x %d rows into schema sbtest (sysbench prepare)", o.tables, o.tableSize)
		if err := ex.Exec(ctx, "CREATE DATABASE IF NOT EXISTS sbtest"); err != nil {
			return err
		}
		if err := r.bench.Prepare(ctx, ex.Target()); err != nil {
			if ctx.Err() != nil {
				return context.Canceled
			}
			return err
		}
	case n < int64(o.tables):
		return fmt.Errorf("schema sbtest on %s holds %d sbtest tables, fewer than --tables %d: drop the schema sbtest or use --tables %d", ex.Addr(), n, o.tables, n)
	}

	db, err := storage.Open(o.db)
	if err != nil {
		return err
	}
	defer db.Close()
	release, err := acquireStudyLock(ctx, db, o.db, o.study)
	if err != nil {
		return err
	}
	defer release()
	bs := o.settings()
	settingsJSON, _ := json.Marshal(struct {
		benchSettings
		Target       string `json:"target"`
		AllowRestart bool   `json:"allow_restart"`
	}{bs, "existing " + ex.Addr(), eo.allowRestart})
	st, found, err := db.Study(ctx, o.study)
	if err != nil {
		return err
	}
	if found {
		if err := checkManifest(ctx, db, st, o, string(settingsJSON), runner.Binary{Version: version}, host, logf); err != nil {
			return err
		}
	} else {
		seed := o.seed
		if seed == 0 {
			seed = rand.Int64N(1<<31) + 1
		}
		st = storage.Study{Name: o.study, Settings: string(settingsJSON), Seed: seed, ServerVersion: version,
			Cores: host.Cores, RAMBytes: host.RAMBytes, Created: started}
		if err := db.CreateStudy(ctx, st); err != nil {
			return err
		}
		logf("new study %q (seed %d) on the existing server %s (%s); trials see an evolving dataset", o.study, st.Seed, ex.Addr(), version)
	}
	if _, err := db.MarkInterrupted(ctx, o.study); err != nil {
		return err
	}
	next, err := db.NextTrialNumber(ctx, o.study)
	if err != nil {
		return err
	}
	strategy, err := search.NewTPE(sp, st.Seed+int64(next))
	if err != nil {
		return err
	}
	study := &search.Study{
		Name: o.study, Strategy: strategy, Store: db,
		Objective: func(ctx context.Context, t search.Trial) (search.Outcome, error) {
			logf("trial %d (%s) started", t.Number, t.Kind)
			return r.run(ctx, t)
		},
		Budget: o.budget, Spent: st.Spent, Start: started, MaxTrials: o.trials,
		OnTrial: func(e search.Event) { logf("%s", trialLine(sp, e)) },
	}
	res, err := study.Run(ctx)
	if err != nil {
		if errors.Is(err, context.Canceled) {
			fmt.Fprintf(out, "\ninterrupted: the running trial was abandoned (not counted); the server's original settings are put back next.\nresume with the same command: autotune search --dsn ... --study %s --db %s ...\n", o.study, o.db)
			return context.Canceled
		}
		return err
	}
	logf("study %q stopped: %s after %d trials, %s of budget used", o.study, res.Reason, len(res.Trials), res.Spent.Round(time.Second))
	printOutcome(out, sp, res.Best, res.Baseline)
	return nil
}
