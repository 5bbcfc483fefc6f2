package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/autotune/autotune/measure"
	"github.com/autotune/autotune/runner"
	"github.com/autotune/autotune/space"
)

// savedState is what autotune must put back on an existing server:
// written next to the include file (0600) before the first change, removed
// after the restore, so that a killed autotune's next run restores it
// first.
type savedState struct {
	// Globals are the original @@GLOBAL values of every tuned knob.
	Globals map[string]string `json:"globals"`
	// Include is the original content of the include file; HadInclude is
	// false when there was none.
	Include    string `json:"include"`
	HadInclude bool   `json:"had_include"`
}

// StatePath is where the original settings of an existing server are kept
// while a study changes them: next to the include file.
func StatePath(include string) string { return include + ".autotune-saved.json" }

// ExistingTarget is the Target of a server autotune did not start: each trial's
// knobs are written into an include file that the server's my.cnf
// !includes, dynamic knobs are changed with SET GLOBAL and, when a static
// knob changes, the server is restarted by the user's command. Knobs a
// trial leaves out get their original values. Close puts the original
// settings back. Trials see an evolving dataset: there is no snapshot.
type ExistingTarget struct {
	ex      *runner.Existing
	sp      *space.Space
	include string
	orig    savedState
	cur     map[string]string // the server's current values
	logf    func(string, ...any)
}

// OpenExisting returns the target of server ex with knob space sp and
// include file include (an absolute path). It first restores settings an
// earlier, killed autotune left behind (StatePath), then reads and saves
// the original values of every knob of sp and the include file. Errors
// name the file or the server call that failed.
func OpenExisting(ctx context.Context, ex *runner.Existing, sp *space.Space, include string, logf func(string, ...any)) (*ExistingTarget, error) {
	r := &ExistingTarget{ex: ex, sp: sp, include: include, logf: logf}
	if b, err := os.ReadFile(StatePath(include)); err == nil {
		if err := json.Unmarshal(b, &r.orig); err != nil {
			return nil, fmt.Errorf("%s: %w (delete it once the server's settings are as you want them)", StatePath(include), err)
		}
		logf("an earlier autotune did not finish restoring the server's settings (%s): restoring them now", StatePath(include))
		if err := r.Close(ctx); err != nil {
			return nil, fmt.Errorf("restore the settings saved in %s: %w", StatePath(include), err)
		}
	}
	var err error
	if r.orig.Globals, err = r.globals(ctx); err != nil {
		return nil, err
	}
	r.cur = make(map[string]string, len(r.orig.Globals))
	for k, v := range r.orig.Globals {
		r.cur[k] = v
	}
	r.orig.Include, r.orig.HadInclude = "", false
	if b, err := os.ReadFile(include); err == nil {
		r.orig.Include, r.orig.HadInclude = string(b), true
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("--config-file %s: %w", include, err)
	}
	state, _ := json.Marshal(r.orig)
	if err := os.WriteFile(StatePath(include), state, 0o600); err != nil {
		return nil, fmt.Errorf("save the original settings: %w", err)
	}
	return r, nil
}

// Prepare loads b's dataset into schema sbtest when the schema holds no
// sbtest tables, and refuses a schema with fewer tables than b needs or
// whose sbtest1 holds fewer rows than its table size (sysbench would
// look for rows that are not there). A
// benchmark without sbtest tables (Dataset.Tables 0: the replay, on the
// data the server holds) prepares itself: b.Prepare checks its data is
// there.
func (r *ExistingTarget) Prepare(ctx context.Context, b Benchmark, logf func(string, ...any)) error {
	ds := b.Dataset()
	if ds.Tables == 0 {
		return b.Prepare(ctx, r.ex.Target())
	}
	n, err := r.ex.QueryInt(ctx, "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = 'sbtest' AND table_name LIKE 'sbtest%'")
	if err != nil {
		return err
	}
	switch {
	case n == 0:
		logf("loading the dataset: %d tables x %d rows into schema sbtest (%s prepare)", ds.Tables, ds.TableSize, ds.Workload)
		if err := r.ex.Exec(ctx, "CREATE DATABASE IF NOT EXISTS sbtest"); err != nil {
			return err
		}
		if err := b.Prepare(ctx, r.ex.Target()); err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return err
		}
	case n < int64(ds.Tables):
		return fmt.Errorf("schema sbtest on %s holds %d sbtest tables, fewer than --tables %d: drop the schema sbtest or use --tables %d", r.ex.Addr(), n, ds.Tables, n)
	default:
		// sysbench draws row ids from 1..--table-size: tables loaded with
		// fewer rows would make part of its statements find nothing.
		rows, err := r.ex.QueryInt(ctx, "SELECT COALESCE(MAX(id), 0) FROM sbtest.sbtest1")
		if err != nil {
			return fmt.Errorf("server %s: rows of sbtest.sbtest1 (checking --table-size %d): %w", r.ex.Addr(), ds.TableSize, err)
		}
		if rows < int64(ds.TableSize) {
			return fmt.Errorf("schema sbtest on %s holds tables of %d rows, fewer than --table-size %d: drop the schema sbtest or use --table-size %d", r.ex.Addr(), rows, ds.TableSize, rows)
		}
	}
	return nil
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

// globals reads the server's value of every knob of the space, keyed by
// knob name (each read under its variable on this server, Space.Variable:
// innodb_redo_log_capacity for innodb_log_file_size on MySQL 8.0.30+).
func (r *ExistingTarget) globals(ctx context.Context) (map[string]string, error) {
	var vars []string
	for _, k := range r.sp.Knobs() {
		vars = append(vars, r.sp.Variable(k.Name))
	}
	got, err := r.ex.Globals(ctx, vars)
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(vars))
	for i, k := range r.sp.Knobs() {
		out[k.Name] = got[vars[i]]
	}
	return out, nil
}

func (r *ExistingTarget) restoreInclude() error {
	if !r.orig.HadInclude {
		if err := os.Remove(r.include); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		return nil
	}
	return writeInclude(r.include, r.orig.Include)
}

// Apply implements Target: the include file, a restart when a static knob
// changes, SET GLOBAL for dynamic ones. A refused restart puts the
// original include back and restarts again (an error when the server does
// not come back either); a refused SET GLOBAL is *Refused.
func (r *ExistingTarget) Apply(ctx context.Context, req Request) (Applied, error) {
	t0 := time.Now()
	cfg, out := req.Trial.Params, req.Out
	req.Enter(measure.PhaseStarting)
	content := r.orig.Include
	if len(cfg) > 0 || !r.orig.HadInclude {
		var b bytes.Buffer
		fmt.Fprintf(&b, "# written by autotune for trial %d of a study; the original content is put back when it ends\n[mysqld]\n", req.Trial.Number)
		if err := r.sp.WriteOptions(&b, cfg); err != nil {
			return Applied{}, err
		}
		content = b.String()
	}
	err := r.apply(ctx, cfg, content, &out.Restarted)
	out.Phases["apply"] = time.Since(t0).Seconds()
	if err != nil {
		return Applied{}, err
	}
	if v, err := r.ex.Version(ctx); err == nil {
		out.ServerVersion = v
	}
	return Applied{Server: r.ex.Target(), Release: func(bool, *measure.Outcome) {}}, nil
}

func (r *ExistingTarget) apply(ctx context.Context, cfg space.Config, content string, restarted *bool) error {
	want := map[string]string{}
	for _, k := range r.sp.Knobs() {
		if v, ok := cfg[k.Name]; ok {
			want[k.Name] = v
		} else {
			want[k.Name] = r.orig.Globals[k.Name]
		}
	}
	if err := writeInclude(r.include, content); err != nil {
		return err
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
				return ctx.Err()
			}
			// The server may be down with settings it refuses: put the
			// original include back and restart, or stop the study.
			failure := "restart with the trial's settings failed: " + err.Error()
			if rerr := r.restoreInclude(); rerr != nil {
				return rerr
			}
			if rerr := r.ex.Restart(ctx); rerr != nil {
				return fmt.Errorf("the server did not come back with its original settings either: %w (trial: %v)", rerr, err)
			}
			var gerr error
			if r.cur, gerr = r.globals(ctx); gerr != nil {
				return gerr
			}
			return &Refused{Failure: failure}
		}
		var err error
		if r.cur, err = r.globals(ctx); err != nil {
			return err
		}
		for _, k := range r.sp.Knobs() {
			if !k.Dynamic && !same(k, want[k.Name], r.cur[k.Name]) {
				return &Refused{Failure: fmt.Sprintf("after the restart %s is %s, not %s: does the server's my.cnf !include %s (after its own settings)?", k.Name, r.cur[k.Name], want[k.Name], r.include)}
			}
		}
	}
	for _, k := range r.sp.Knobs() {
		if !k.Dynamic || same(k, want[k.Name], r.cur[k.Name]) {
			continue
		}
		if err := r.ex.SetGlobal(ctx, r.sp.Variable(k.Name), want[k.Name]); err != nil {
			var me *mysql.MySQLError
			if errors.As(err, &me) {
				return &Refused{Failure: "server refused " + err.Error()}
			}
			return err
		}
		r.cur[k.Name] = want[k.Name]
	}
	return nil
}

// Close puts the original settings back: the include file, a restart when
// a static knob differs from its original, SET GLOBAL for the dynamic
// ones; then checks every knob and removes the saved state. It ignores
// ctx's cancellation (it runs after Ctrl-C) but not a 5-minute limit.
func (r *ExistingTarget) Close(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Minute)
	defer cancel()
	if err := r.restoreInclude(); err != nil {
		return err
	}
	cur, err := r.globals(ctx)
	if err != nil {
		return err
	}
	for _, k := range r.sp.Knobs() {
		if !k.Dynamic && !same(k, r.orig.Globals[k.Name], cur[k.Name]) {
			r.logf("restarting the server to restore %s = %s", k.Name, r.orig.Globals[k.Name])
			if err := r.ex.Restart(ctx); err != nil {
				return err
			}
			if cur, err = r.globals(ctx); err != nil {
				return err
			}
			break
		}
	}
	for _, k := range r.sp.Knobs() {
		if k.Dynamic && !same(k, r.orig.Globals[k.Name], cur[k.Name]) {
			if err := r.ex.SetGlobal(ctx, r.sp.Variable(k.Name), r.orig.Globals[k.Name]); err != nil {
				return err
			}
		}
	}
	// Some changes (a buffer pool resize) complete in the background.
	deadline := time.Now().Add(30 * time.Second)
	for {
		cur, err = r.globals(ctx)
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
	if err := os.Remove(StatePath(r.include)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}

// Addr is the server's address without credentials.
func (r *ExistingTarget) Addr() string { return r.ex.Addr() }
