package study

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/autotune/autotune/exportfile"
	"github.com/autotune/autotune/internal/atomicfile"
	"github.com/autotune/autotune/internal/secret"
	"github.com/autotune/autotune/runner"
	"github.com/autotune/autotune/space"
	"github.com/autotune/autotune/storage"
	"github.com/autotune/autotune/study/result"
)

// ApplyConfig is the configuration of `autotune apply`: put the settings
// of File (or of trial Trial of study Study in DB, −1 the best) on the
// running server DSN, watch them against the old ones on the server's
// own traffic, keep them on a pass, take them back otherwise.
type ApplyConfig struct {
	// DSN is the server (without a password: ServerPassword reads it from
	// $AUTOTUNE_PASSWORD or PasswordFile).
	DSN, PasswordFile string
	// File is the option file applied; when "", trial Trial of Study.
	File  string
	Study string
	Trial int
	// DB is the store: the study's, and where the apply's audit trail
	// and saved state go.
	DB string
	// Durability is the crash-safety policy: under "strict" (the
	// default) a durability knob is never made less safe.
	Durability string
	// IncludeFile is the option file a pass is persisted in on MariaDB
	// (which has no SET PERSIST): one the server's my.cnf !includes.
	IncludeFile string
	// Watch is the watch's length; Window one window's; BurnIn the wait
	// after each switch before a window is measured.
	Watch, Window, BurnIn time.Duration
	// Margin is the slowdown a pass tolerates (0.05: 5 %).
	Margin float64
	// MaxMemory is the memory tripwire: the server's resident memory
	// (bytes; 0: 90 % of the host's RAM when the server runs on this
	// host). MaxLag is the replication-lag tripwire (0: 60 s).
	MaxMemory int64
	MaxLag    time.Duration
	// Seed orders the arms of each pair (0: from the clock).
	Seed uint64
	// Yes consents to the plan; without it Confirm is asked (nil:
	// nothing changes).
	Yes     bool
	Confirm func(result.ApplyPlan) (bool, error) `json:"-"`
	// RecoverOnly finishes or undoes earlier, interrupted applies on the
	// server and applies nothing.
	RecoverOnly bool
	// Timeout bounds each statement (0: 30 s; SET GLOBAL ten times it).
	Timeout time.Duration
}

// applyLock is the server-wide user lock one apply holds (GET_LOCK), and
// lockWait how long an apply waits for it.
const (
	applyLock = "autotune_apply"
	lockWait  = 10 * time.Second
)

// applySaved is what an apply saves before its first change, so that a
// killed apply is undone by the next (recoverApply).
type applySaved struct {
	// Runtime are the original @@GLOBAL values of the variables changed.
	Runtime map[string]string `json:"runtime"`
	// Persisted are MySQL's persisted values of those variables before
	// the apply (performance_schema.persisted_variables); absent: none.
	Persisted map[string]string `json:"persisted,omitempty"`
	// Include is the include file (MariaDB): its path, whether it
	// existed and its content.
	Include        string `json:"include,omitempty"`
	IncludeExisted bool   `json:"include_existed,omitempty"`
	IncludeContent string `json:"include_content,omitempty"`
	// ResponseTime is set when the apply turned MariaDB's
	// query_response_time statistics on; Loaded and StatsOn say how they
	// were before.
	ResponseTime bool `json:"response_time,omitempty"`
	Loaded       bool `json:"response_time_loaded,omitempty"`
	StatsOn      bool `json:"response_time_stats_on,omitempty"`
	// MySQL is set on a MySQL server (SET PERSIST).
	MySQL bool `json:"mysql,omitempty"`
}

// applier is one run of Apply.
type applier struct {
	c     ApplyConfig
	prog  Progress
	ex    *runner.Existing
	db    *storage.DB
	id    int64
	v     space.Version
	plan  result.ApplyPlan
	saved applySaved
	// old and new are the runtime values of the dynamic changes, by
	// variable; knobs their catalogue knobs (nil: unknown).
	old, new map[string]string
	knobs    map[string]*space.Knob
	order    []string
}

func (a *applier) step(kind, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	a.prog.Emit(result.ApplyStep{Kind: kind, Message: msg})
	if a.db != nil && a.id > 0 {
		_ = a.db.AddApplyEvent(context.WithoutCancel(context.Background()), storage.ApplyEvent{Apply: a.id, At: time.Now(), Kind: kind, Detail: msg})
	}
}

func (a *applier) phase(ctx context.Context, phase, verdict, reason string) error {
	return a.db.SetApplyPhase(context.WithoutCancel(ctx), a.id, phase, verdict, reason)
}

// Apply puts the settings of c.File (or a study's trial) on the running
// server c.DSN as docs/apply.md describes: it finishes earlier,
// interrupted applies on the server first; plans (the diff, each setting
// classified for this server, a memory check) and asks consent (c.Yes or
// c.Confirm); saves the originals in the store; sets the dynamic settings
// with SET GLOBAL (waiting for what completes in the background);
// alternates old and new settings in windows on the server's own traffic
// for c.Watch, judging from its statement statistics, with tripwires; on a
// pass persists the new settings (SET PERSIST on MySQL, c.IncludeFile on
// MariaDB), otherwise puts the old ones back. Restart-only settings are
// listed, never applied.
//
// Errors: bad input as UsageError (two password sources, a bad DSN, a
// refused plan: a file for another server, a durability knob under
// strict, a MariaDB without --include-file, memory beyond the host's);
// a server that cannot be reached or whose user may not SET GLOBAL; a
// second apply on the same server; a setting the server refuses (the old
// ones are put back first). Each names the server by its redacted DSN.
// The result is valid (the plan at least) with most errors.
func Apply(ctx context.Context, c ApplyConfig, prog Progress) (result.Applied, error) {
	c = applyDefaults(c)
	var out result.Applied
	ex, err := openServer(c.DSN, c.PasswordFile)
	if err != nil {
		return out, err
	}
	ex.QueryTimeout = c.Timeout
	a := &applier{c: c, prog: prog, ex: ex}
	red := secret.RedactDSN(c.DSN)
	identity, err := ex.Identity(ctx)
	if err != nil {
		return out, fmt.Errorf("apply --dsn %s: cannot read the server: %w", red, err)
	}
	// A killed apply's lock goes when the server sees its connection
	// close, which a busy server may take a moment to do.
	release, err := ex.Lock(ctx, applyLock, lockWait)
	if err != nil {
		return out, fmt.Errorf("apply --dsn %s: another autotune apply runs on this server (%v): wait for it to end; nothing was changed", red, err)
	}
	defer release()
	db, err := storage.Open(c.DB)
	if err != nil {
		return out, err
	}
	defer db.Close()
	a.db = db
	if out.Recovered, err = a.recoverPending(ctx, identity); err != nil {
		return out, err
	}
	if c.RecoverOnly {
		return out, nil
	}
	if err := a.makePlan(ctx, identity); err != nil {
		return out, err
	}
	out.Plan = a.plan
	for _, ch := range a.plan.Changes {
		if ch.Class == result.ApplyRestartOnly {
			out.RestartLater = append(out.RestartLater, ch)
		}
	}
	prog.Emit(result.ApplyPlanned{Plan: a.plan})
	if len(a.plan.Refusals) > 0 {
		return out, UsageError{Err: fmt.Errorf("apply --dsn %s: nothing was changed: %s", red, strings.Join(a.plan.Refusals, "; "))}
	}
	if len(a.order) == 0 {
		a.step("note", "nothing to change at runtime: the server already runs every dynamic setting of %s", a.plan.Against)
		return out, nil
	}
	ok := c.Yes
	if !ok && c.Confirm != nil {
		if ok, err = c.Confirm(a.plan); err != nil {
			return out, err
		}
	}
	if !ok {
		return out, UsageError{Err: fmt.Errorf("apply --dsn %s: nothing was changed: give --yes to apply the plan (or answer yes on a terminal)", red)}
	}
	changes, _ := json.Marshal(a.plan.Changes)
	a.id, err = db.CreateApply(ctx, storage.ApplyRecord{Server: identity, DSN: red, Source: a.plan.Against, Started: time.Now(), Phase: storage.ApplyPlanned, Changes: string(changes)})
	if err != nil {
		return out, err
	}
	out.ID = a.id
	if err := a.checkPrivilege(ctx); err != nil {
		_ = a.phase(ctx, storage.ApplyAborted, "", err.Error())
		return out, fmt.Errorf("apply --dsn %s: nothing was changed: %w", red, err)
	}
	source, err := a.prepareStatistics(ctx)
	if err != nil {
		_ = a.phase(ctx, storage.ApplyAborted, "", err.Error())
		return out, fmt.Errorf("apply --dsn %s: nothing was changed: %w", red, err)
	}
	if err := a.saveOriginals(ctx); err != nil {
		_ = a.phase(ctx, storage.ApplyAborted, "", err.Error())
		return out, err
	}
	if err := a.phase(ctx, storage.ApplyApplying, "", ""); err != nil {
		return out, err
	}
	if err := a.setArm(ctx, a.new, "new"); err != nil {
		reason := err.Error()
		rerr := a.revert(ctx, "", reason)
		out.Reverted = rerr == nil
		return out, errors.Join(fmt.Errorf("apply --dsn %s: %w; the original settings were put back", red, err), rerr)
	}
	if err := a.phase(ctx, storage.ApplyWatching, "", ""); err != nil {
		return out, err
	}
	windows, verdict, werr := a.watch(ctx, source)
	out.Windows, out.Verdict = windows, verdict
	if werr != nil {
		// Interrupted (Ctrl-C) or the server stopped answering: put the
		// old settings back where it answers; the saved state lets the
		// next apply do it otherwise.
		rerr := a.revert(context.WithoutCancel(ctx), "", "watch interrupted: "+werr.Error())
		out.Reverted = rerr == nil
		return out, errors.Join(werr, rerr)
	}
	prog.Emit(result.ApplyJudged{Verdict: verdict})
	if verdict.Verdict == result.VerdictPass {
		persisted, err := a.persist(ctx)
		out.Persisted = persisted
		if err != nil {
			return out, fmt.Errorf("apply --dsn %s: persist: %w (the next apply on this server finishes it)", red, err)
		}
		return out, nil
	}
	err = a.revert(context.WithoutCancel(ctx), verdict.Verdict, verdict.Reason)
	out.Reverted = err == nil
	if err != nil {
		return out, err
	}
	return out, NotKept{Verdict: verdict}
}

// NotKept is Apply's error when the watch did not pass and the original
// settings run again (exit code 4).
type NotKept struct{ Verdict result.ApplyVerdict }

func (e NotKept) Error() string {
	return fmt.Sprintf("the new settings were not kept (%s): %s", e.Verdict.Verdict, e.Verdict.Reason)
}

// applyDefaults fills c's zero durations and margin.
func applyDefaults(c ApplyConfig) ApplyConfig {
	if c.Watch <= 0 {
		c.Watch = 30 * time.Minute
	}
	if c.Window <= 0 {
		c.Window = 2 * time.Minute
	}
	if c.BurnIn < 0 {
		c.BurnIn = 0
	}
	if c.Margin <= 0 {
		c.Margin = 0.05
	}
	if c.MaxLag <= 0 {
		c.MaxLag = time.Minute
	}
	if c.Timeout <= 0 {
		c.Timeout = 30 * time.Second
	}
	if c.Durability == "" {
		c.Durability = string(space.Strict)
	}
	if c.Seed == 0 {
		c.Seed = uint64(time.Now().UnixNano())
	}
	return c
}

// ApplyPairs is the number of old/new window pairs of a watch: as many as
// fit in watch (each window preceded by its burn-in), at least 2.
func ApplyPairs(watch, window, burnIn time.Duration) int {
	return max(2, int(watch/(2*(window+burnIn))))
}

// makePlan diffs the server against the file or trial and classifies
// each difference for this server; refusals go to the plan.
func (a *applier) makePlan(ctx context.Context, identity string) error {
	c := a.c
	d, err := DiffServer(ctx, ServerDiff{DSN: c.DSN, PasswordFile: c.PasswordFile, Timeout: c.Timeout, File: c.File, DB: c.DB, Study: c.Study, Trial: c.Trial})
	if err != nil {
		return err
	}
	dur, err := space.ParseDurability(c.Durability)
	if err != nil {
		return UsageError{Err: fmt.Errorf("--durability: %w", err)}
	}
	p := result.ApplyPlan{Server: d.Server, Identity: identity, Version: d.Version, Against: d.Against, NotCompared: d.NotCompared,
		Watch: c.Watch, Window: c.Window, BurnIn: c.BurnIn, Pairs: ApplyPairs(c.Watch, c.Window, c.BurnIn), Margin: c.Margin}
	g, err := a.ex.Globals(ctx, []string{"version", "version_comment"})
	if err != nil {
		return err
	}
	a.v, _ = space.ParseVersion(g["version"], g["version_comment"])
	if c.File != "" {
		if h, err := exportfile.Read(c.File); err == nil {
			if why := otherServer(h.Fingerprint, a.v); why != "" {
				p.Refusals = append(p.Refusals, fmt.Sprintf("%s was measured on %s: %s", c.File, why, "apply it to a server of that flavour and version, or run a study on this one"))
			}
		}
	}
	a.old, a.new, a.knobs = map[string]string{}, map[string]string{}, map[string]*space.Knob{}
	cfg := space.Config{}
	for _, r := range d.Rows {
		if !r.Differs {
			p.Unchanged++
			continue
		}
		ch := result.ApplyChange{Variable: r.Variable, Option: r.Option, Old: r.Running, New: r.Wanted, Value: r.Value}
		if r.Knob != nil {
			ch.Knob = r.Knob.Name
			cfg[r.Knob.Name] = r.Value
		}
		switch {
		case r.Knob != nil && r.Knob.Durability && dur == space.Strict && !strings.EqualFold(r.Value, r.Knob.StrictValue):
			ch.Class, ch.Why = result.ApplyRefused, fmt.Sprintf("a durability knob: under --durability strict it stays at %s (give --durability relaxed to change it)", r.Knob.StrictValue)
		case r.Change == result.ChangeDynamic:
			ch.Class = result.ApplyDynamic
			a.order = append(a.order, r.Variable)
			a.new[r.Variable] = r.Value
			a.knobs[r.Variable] = r.Knob
		case r.Change == result.ChangeRestart:
			ch.Class, ch.Why = result.ApplyRestartOnly, "read at start only: left for the next planned restart (autotune apply never restarts a server)"
		default:
			ch.Class, ch.Why = result.ApplyRefused, "the server does not say whether SET GLOBAL changes it"
		}
		p.Changes = append(p.Changes, ch)
	}
	p.Memory = a.memoryCheck(ctx, cfg, &p)
	if a.v.Flavor == space.MariaDB {
		if c.IncludeFile == "" && len(a.order) > 0 {
			p.Refusals = append(p.Refusals, "MariaDB has no SET PERSIST: give --include-file PATH, an option file the server's my.cnf !includes (after its own settings), to persist a pass in")
		}
		p.Persist = fmt.Sprintf("the include file %s, written whole and atomically, its previous content kept in %s", c.IncludeFile, c.IncludeFile+".autotune-backup")
	} else {
		p.Persist = "SET PERSIST (mysqld-auto.cnf)"
	}
	src, loaded, statsOn, err := a.ex.StatementSource(ctx)
	if err != nil {
		return err
	}
	switch {
	case src == runner.SourceGlobalStatus && a.v.Flavor == space.MariaDB:
		p.Statistics = runner.SourceResponseTime + " if the server has it (loaded for the watch and unloaded after; performance_schema is off, and turning it on needs a restart), else " + runner.SourceGlobalStatus + " and Threads_running by Little's law"
		if loaded && !statsOn {
			p.Statistics = runner.SourceResponseTime + " (its statistics turned on for the watch, off after)"
		}
	default:
		p.Statistics = src
		if src == runner.SourceGlobalStatus {
			p.Statistics += " and Threads_running sampled every 5 ms: the statements' mean latency by Little's law, no digest"
		}
	}
	a.plan = p
	return nil
}

// otherServer says how the server of fingerprint f differs from v in
// flavour or major.minor version ("" when alike or unknown).
func otherServer(f storage.Fingerprint, v space.Version) string {
	for _, kv := range f {
		if kv[0] != "server" || kv[1] == "" {
			continue
		}
		fv, err := space.ParseVersion(kv[1], "")
		if err != nil {
			return ""
		}
		if fv.Flavor != v.Flavor || fv.Major != v.Major || fv.Minor != v.Minor {
			return fmt.Sprintf("%s %d.%d, and this server is %s %d.%d", fv.Flavor, fv.Major, fv.Minor, v.Flavor, v.Major, v.Minor)
		}
	}
	return ""
}

// memoryCheck estimates the server's memory with cfg's settings and
// compares it with this host's RAM when the server runs here (its pid
// file readable); a configuration over 90 % of it is refused.
func (a *applier) memoryCheck(ctx context.Context, cfg space.Config, p *result.ApplyPlan) string {
	info, err := a.ex.Target().Variables(ctx, runner.Binary{})
	if err != nil {
		return "not checked: " + err.Error()
	}
	h, err := a.ex.ReadHealth(ctx)
	if err != nil || h.RSSBytes < 0 {
		return "not checked: the server does not run on this host (its pid file is not readable here)"
	}
	host, err := runner.ReadHost()
	if err != nil {
		return "not checked: " + err.Error()
	}
	conns := 151
	if v, ok := info.Vars["max_connections"]; ok {
		fmt.Sscan(v.Default, &conns)
	}
	est := space.EstimateMemory(cfg, info.Vars, conns)
	if a.c.MaxMemory == 0 {
		a.c.MaxMemory = host.RAMBytes * 9 / 10
	}
	msg := fmt.Sprintf("estimated %s with the new settings, the host has %s RAM (the server holds %s now)", est, space.HumanBytes(host.RAMBytes), space.HumanBytes(h.RSSBytes))
	if est.Total > host.RAMBytes*9/10 {
		p.Refusals = append(p.Refusals, "memory: "+msg+": more than 90 % of the host's RAM")
	}
	return msg
}

// checkPrivilege sets the first dynamic variable to its own value: a
// user without the privilege to SET GLOBAL is refused before any change.
func (a *applier) checkPrivilege(ctx context.Context) error {
	v := a.order[0]
	if err := a.ex.Exec(ctx, "SET GLOBAL "+v+" = @@GLOBAL."+v); err != nil {
		var me *mysql.MySQLError
		if errors.As(err, &me) && (me.Number == 1227 || me.Number == 1044 || me.Number == 1045) {
			return fmt.Errorf("the user may not change global variables (%s): it needs SYSTEM_VARIABLES_ADMIN or SUPER", me.Message)
		}
		return err
	}
	return nil
}

// prepareStatistics picks the watch's statistics source, loading
// MariaDB's query_response_time plugin (recorded in the saved state) when
// there is no better one.
func (a *applier) prepareStatistics(ctx context.Context) (string, error) {
	src, loaded, statsOn, err := a.ex.StatementSource(ctx)
	if err != nil {
		return "", err
	}
	if src == runner.SourceGlobalStatus && a.v.Flavor == space.MariaDB {
		if err := a.ex.EnableResponseTime(ctx, loaded); err != nil {
			a.step("statistics", "the query_response_time plugin could not be loaded (%v): judging from %s", err, runner.SourceGlobalStatus)
			return src, nil
		}
		a.saved.ResponseTime, a.saved.Loaded, a.saved.StatsOn = true, loaded, statsOn
		src = runner.SourceResponseTime
	}
	a.step("statistics", "judging from %s", src)
	return src, nil
}

// saveOriginals reads what the apply may change and stores it
// (applySaved) before the first change.
func (a *applier) saveOriginals(ctx context.Context) error {
	g, err := a.ex.Globals(ctx, a.order)
	if err != nil {
		return err
	}
	a.saved.Runtime = map[string]string{}
	for _, v := range a.order {
		a.saved.Runtime[v] = g[v]
		a.old[v] = g[v]
	}
	if a.v.Flavor == space.MySQL {
		a.saved.MySQL = true
		if a.saved.Persisted, err = a.persistedVars(ctx); err != nil {
			return err
		}
	} else if a.c.IncludeFile != "" {
		a.saved.Include = a.c.IncludeFile
		b, err := os.ReadFile(a.c.IncludeFile)
		switch {
		case err == nil:
			a.saved.IncludeExisted, a.saved.IncludeContent = true, string(b)
		case !errors.Is(err, os.ErrNotExist):
			return fmt.Errorf("--include-file %s: %w", a.c.IncludeFile, err)
		}
	}
	b, _ := json.Marshal(a.saved)
	return a.db.SetApplySaved(ctx, a.id, string(b))
}

// persistedVars reads MySQL's persisted values of the changed variables.
func (a *applier) persistedVars(ctx context.Context) (map[string]string, error) {
	out := map[string]string{}
	for _, v := range a.order {
		val, err := a.ex.QueryString(ctx, "SELECT VARIABLE_VALUE FROM performance_schema.persisted_variables WHERE VARIABLE_NAME = ?", v)
		if err != nil {
			if errors.Is(err, errNoRow) {
				continue
			}
			return nil, fmt.Errorf("read the persisted value of %s: %w", v, err)
		}
		out[v] = val
	}
	return out, nil
}

// setArm sets the dynamic variables to values (the "old" or "new" arm)
// and waits for what completes in the background. A value the server
// refuses is an error quoting it.
func (a *applier) setArm(ctx context.Context, values map[string]string, arm string) error {
	cur, err := a.ex.Globals(ctx, a.order)
	if err != nil {
		return err
	}
	var set []string
	for _, v := range a.order {
		want := values[v]
		if sameValue(a.knobs[v], cur[v], want) {
			continue
		}
		if err := a.ex.SetGlobal(ctx, v, want); err != nil {
			var me *mysql.MySQLError
			if errors.As(err, &me) {
				return fmt.Errorf("the server refused %s = %s: %s", v, want, me.Message)
			}
			return err
		}
		set = append(set, v+" = "+want)
	}
	if len(set) == 0 {
		return nil
	}
	if err := a.waitSettled(ctx, values); err != nil {
		return err
	}
	a.step("set", "%s settings: %s", arm, strings.Join(set, ", "))
	return nil
}

// waitSettled waits, at most 10 minutes, until a buffer pool resize and a
// redo log resize the server runs in the background have ended
// (Innodb_buffer_pool_resize_status, Innodb_redo_log_resize_status), then
// reports values the server holds otherwise than asked (it rounds a
// buffer pool to its chunks).
func (a *applier) waitSettled(ctx context.Context, values map[string]string) error {
	deadline := time.Now().Add(10 * time.Minute)
	for {
		busy, err := a.ex.ResizeInProgress(ctx)
		if err != nil {
			return err
		}
		if busy == "" {
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("still resizing after 10 minutes: %s", busy)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
	cur, err := a.ex.Globals(ctx, a.order)
	if err != nil {
		return err
	}
	for _, v := range a.order {
		if !sameValue(a.knobs[v], cur[v], values[v]) {
			a.step("note", "the server holds %s = %s, asked %s", v, cur[v], values[v])
		}
	}
	return nil
}

// sameValue compares two values of a variable: by knob k's canonical
// form when both parse, else as text without case.
func sameValue(k *space.Knob, a, b string) bool {
	if k != nil {
		na, ea := k.Normalize(a)
		nb, eb := k.Normalize(b)
		if ea == nil && eb == nil {
			return na == nb
		}
	}
	return strings.EqualFold(strings.TrimSpace(a), strings.TrimSpace(b))
}

// revert puts the original settings back (runtime; the persisted ones
// were not touched before a pass) and the statistics source as it was,
// checks them, and ends the apply as reverted.
func (a *applier) revert(ctx context.Context, verdict, reason string) error {
	_ = a.phase(ctx, storage.ApplyReverting, verdict, reason)
	if err := a.setArm(ctx, a.old, "old"); err != nil {
		return fmt.Errorf("put the original settings back: %w (the next autotune apply --recover on this server retries)", err)
	}
	if err := a.restoreStatistics(ctx); err != nil {
		return err
	}
	if err := a.checkRuntime(ctx, a.old); err != nil {
		return err
	}
	a.step("revert", "the original settings run again: %s", joinValues(a.order, a.old))
	return a.phase(ctx, storage.ApplyReverted, verdict, reason)
}

// restoreStatistics unloads what prepareStatistics loaded.
func (a *applier) restoreStatistics(ctx context.Context) error {
	if !a.saved.ResponseTime {
		return nil
	}
	if err := a.ex.DisableResponseTime(ctx, a.saved.Loaded, a.saved.StatsOn); err != nil {
		return fmt.Errorf("unload the query_response_time statistics: %w", err)
	}
	return nil
}

// checkRuntime returns an error naming each variable whose running
// value is not values'.
func (a *applier) checkRuntime(ctx context.Context, values map[string]string) error {
	cur, err := a.ex.Globals(ctx, a.order)
	if err != nil {
		return err
	}
	var diff []string
	for _, v := range a.order {
		if !sameValue(a.knobs[v], cur[v], values[v]) {
			diff = append(diff, fmt.Sprintf("%s is %s, want %s", v, cur[v], values[v]))
		}
	}
	if len(diff) > 0 {
		return fmt.Errorf("the server's settings are not as they should be: %s", strings.Join(diff, "; "))
	}
	return nil
}

func joinValues(order []string, values map[string]string) string {
	var s []string
	for _, v := range order {
		s = append(s, v+" = "+values[v])
	}
	return strings.Join(s, ", ")
}

// persist makes the new settings survive a restart after a pass, checks
// the persisted values equal the running ones, and ends the apply as
// passed.
func (a *applier) persist(ctx context.Context) ([]string, error) {
	if err := a.phase(ctx, storage.ApplyPersisting, result.VerdictPass, ""); err != nil {
		return nil, err
	}
	if err := a.setArm(ctx, a.new, "new"); err != nil {
		return nil, err
	}
	if err := a.restoreStatistics(ctx); err != nil {
		return nil, err
	}
	persisted, err := a.writePersisted(ctx)
	if err != nil {
		return nil, err
	}
	if err := a.checkRuntime(ctx, a.new); err != nil {
		return nil, err
	}
	a.step("persist", "persisted: %s", strings.Join(persisted, ", "))
	return persisted, a.phase(ctx, storage.ApplyPassed, result.VerdictPass, "persisted")
}

// writePersisted persists a.new: SET PERSIST on MySQL, the include file
// on MariaDB (the previous content kept in its backup, the new settings
// appended in a [mysqld] group of their own, which wins over earlier
// lines), then reads them back.
func (a *applier) writePersisted(ctx context.Context) ([]string, error) {
	var out []string
	if a.saved.MySQL {
		for _, v := range a.order {
			if err := a.ex.Exec(ctx, "SET PERSIST "+v+" = "+runner.SQLLiteral(a.new[v])); err != nil {
				return out, err
			}
			out = append(out, v+" = "+a.new[v]+" (SET PERSIST)")
		}
		got, err := a.persistedVars(ctx)
		if err != nil {
			return out, err
		}
		for _, v := range a.order {
			if !sameValue(a.knobs[v], got[v], a.new[v]) {
				return out, fmt.Errorf("persisted %s is %q, want %s", v, got[v], a.new[v])
			}
		}
		return out, nil
	}
	path := a.saved.Include
	if err := atomicfile.WriteFile(path+".autotune-backup", []byte(a.saved.IncludeContent), 0o644); err != nil {
		return out, err
	}
	var b strings.Builder
	b.WriteString(a.saved.IncludeContent)
	if a.saved.IncludeContent != "" && !strings.HasSuffix(a.saved.IncludeContent, "\n") {
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "# autotune apply %d, %s: %s passed its watch\n[mysqld]\n", a.id, time.Now().UTC().Format(time.RFC3339), a.plan.Against)
	for _, ch := range a.plan.Changes {
		if ch.Class == result.ApplyDynamic {
			fmt.Fprintf(&b, "%s = %s\n", ch.Option, a.new[ch.Variable])
			out = append(out, ch.Option+" = "+a.new[ch.Variable]+" ("+path+")")
		}
	}
	if err := atomicfile.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		return out, err
	}
	of, err := readOptionFileFor(path, a.v)
	if err != nil {
		return out, err
	}
	got := map[string]string{}
	for _, w := range fileWants(of.Effective(space.ServerGroups(a.v))) {
		got[w.name] = w.value
	}
	for _, ch := range a.plan.Changes {
		if ch.Class != result.ApplyDynamic {
			continue
		}
		name := strings.ReplaceAll(ch.Option, "-", "_")
		if !sameValue(a.knobs[ch.Variable], got[name], a.new[ch.Variable]) {
			return out, fmt.Errorf("%s holds %s = %q after writing, want %s", path, name, got[name], a.new[ch.Variable])
		}
	}
	return out, nil
}

// recoverPending finishes or undoes the applies on this server that an
// earlier run left pending (killed, or the server stopped answering): one
// that was persisting after a pass is finished; any other is undone (its
// saved originals put back, runtime and persisted).
func (a *applier) recoverPending(ctx context.Context, identity string) ([]string, error) {
	all, err := a.db.Applies(ctx, identity)
	if err != nil {
		return nil, err
	}
	var done []string
	for _, rec := range all {
		if !storage.PendingPhase(rec.Phase) {
			continue
		}
		r := &applier{c: a.c, prog: a.prog, ex: a.ex, db: a.db, id: rec.ID, v: a.v,
			old: map[string]string{}, new: map[string]string{}, knobs: map[string]*space.Knob{}}
		g, err := a.ex.Globals(ctx, []string{"version", "version_comment"})
		if err != nil {
			return done, err
		}
		r.v, _ = space.ParseVersion(g["version"], g["version_comment"])
		if rec.Saved != "" {
			if err := json.Unmarshal([]byte(rec.Saved), &r.saved); err != nil {
				return done, fmt.Errorf("apply %d's saved state: %w", rec.ID, err)
			}
		}
		var changes []result.ApplyChange
		_ = json.Unmarshal([]byte(rec.Changes), &changes)
		r.plan = result.ApplyPlan{Against: rec.Source, Changes: changes}
		cat := space.Lookup()
		for _, ch := range changes {
			if ch.Class != result.ApplyDynamic {
				continue
			}
			r.order = append(r.order, ch.Variable)
			r.new[ch.Variable] = ch.Value
			r.old[ch.Variable] = r.saved.Runtime[ch.Variable]
			if ch.Knob != "" {
				if k, ok := cat.Knob(ch.Knob); ok {
					r.knobs[ch.Variable] = &k
				}
			}
		}
		if r.saved.Runtime == nil {
			// Killed before the originals were saved: nothing changed.
			_ = r.phase(ctx, storage.ApplyAborted, "", "recovered: interrupted before any change")
			done = append(done, fmt.Sprintf("apply %d: interrupted before any change", rec.ID))
			continue
		}
		what := fmt.Sprintf("apply %d (%s), interrupted while %s", rec.ID, rec.Source, rec.Phase)
		if rec.Phase == storage.ApplyPersisting {
			r.step("recover", "%s: finishing its persist", what)
			if _, err := r.persist(ctx); err != nil {
				return done, fmt.Errorf("recover %s: %w", what, err)
			}
			done = append(done, what+": its pass is persisted")
			continue
		}
		r.step("recover", "%s: putting the original settings back", what)
		if err := r.undoPersisted(ctx); err != nil {
			return done, fmt.Errorf("recover %s: %w", what, err)
		}
		if err := r.revert(ctx, rec.Verdict, "recovered: "+what); err != nil {
			return done, fmt.Errorf("recover %s: %w", what, err)
		}
		done = append(done, what+": the original settings run again")
	}
	return done, nil
}

// undoPersisted puts the persisted settings back as saved: MySQL's
// persisted values (RESET PERSIST of those that were not), MariaDB's
// include file.
func (a *applier) undoPersisted(ctx context.Context) error {
	if a.saved.MySQL {
		for _, v := range a.order {
			if old, ok := a.saved.Persisted[v]; ok {
				if err := a.ex.Exec(ctx, "SET PERSIST_ONLY "+v+" = "+runner.SQLLiteral(old)); err != nil {
					return err
				}
				continue
			}
			if err := a.ex.Exec(ctx, "RESET PERSIST IF EXISTS "+v); err != nil {
				return err
			}
		}
		return nil
	}
	if a.saved.Include == "" {
		return nil
	}
	if a.saved.IncludeExisted {
		return atomicfile.WriteFile(a.saved.Include, []byte(a.saved.IncludeContent), 0o644)
	}
	if err := os.Remove(a.saved.Include); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}

// watch alternates the old and new settings in pairs of windows, each
// pair in a random order, a burn-in after each switch, reading the
// server's statement statistics at each window's ends and its health
// every second (tripwires). It returns the windows and the verdict; an
// error when interrupted or when the server stopped answering.
func (a *applier) watch(ctx context.Context, source string) ([]result.ApplyWindow, result.ApplyVerdict, error) {
	c := a.c
	rng := rand.New(rand.NewPCG(c.Seed, 0x61707079))
	pairs := ApplyPairs(c.Watch, c.Window, c.BurnIn)
	tw := newTripwires(c.MaxMemory, c.MaxLag)
	if err := tw.baseline(ctx, a.ex); err != nil {
		return nil, result.ApplyVerdict{}, err
	}
	var windows []result.ApplyWindow
	var ratios []float64
	arm := "new"
	for p := 1; p <= pairs; p++ {
		order := []string{"old", "new"}
		if rng.IntN(2) == 1 {
			order = []string{"new", "old"}
		}
		stats := map[string][2]runner.StatementStats{}
		littles := map[string]float64{}
		for _, want := range order {
			if want != arm {
				values := a.new
				if want == "old" {
					values = a.old
				}
				if err := a.setArm(ctx, values, want); err != nil {
					return windows, result.ApplyVerdict{}, err
				}
				arm = want
				a.step("switch", "pair %d: %s settings", p, arm)
			}
			if trip, err := tw.run(ctx, a.ex, arm, c.BurnIn); err != nil || trip != nil {
				return windows, a.tripped(trip, source), err
			}
			before, err := a.ex.ReadStatements(ctx, source)
			if err != nil {
				return windows, result.ApplyVerdict{}, err
			}
			running := make(chan float64, 1)
			if source == runner.SourceGlobalStatus {
				// No statement times: their mean by Little's law, from
				// Threads_running sampled through the window.
				go func() {
					l, _, err := a.ex.MeanRunning(ctx, c.Window, 5*time.Millisecond)
					if err != nil {
						l = -1
					}
					running <- l
				}()
			} else {
				running <- -1
			}
			if trip, err := tw.run(ctx, a.ex, arm, c.Window); err != nil || trip != nil {
				return windows, a.tripped(trip, source), err
			}
			l := <-running
			after, err := a.ex.ReadStatements(ctx, source)
			if err != nil {
				return windows, result.ApplyVerdict{}, err
			}
			stats[arm] = [2]runner.StatementStats{before, after}
			w := windowOf(p, arm, before, after)
			if l >= 0 && w.PerSecond > 0 {
				w.MeanMS = 1000 * l / w.PerSecond
				littles[arm] = w.MeanMS
			}
			windows = append(windows, w)
			a.prog.Emit(result.ApplyWindowEnded{Window: w})
			a.step("window", "pair %d %s: %d statements, %.1f/s, mean %.3f ms", p, arm, w.Calls, w.PerSecond, w.MeanMS)
			if arm == "old" {
				tw.oldWindow(w, before, after)
			} else if trip := tw.digestsMultiplied(before, after); trip != nil {
				return windows, a.tripped(trip, source), nil
			}
		}
		if o, n := littles["old"], littles["new"]; o > 0 && n > 0 {
			ratios = append(ratios, math.Log(n/o))
		} else if r, ok := pairRatio(source, stats["old"], stats["new"]); ok {
			ratios = append(ratios, r)
		}
	}
	return windows, judge(ratios, c.Margin, source), nil
}

// tripped is the verdict of a tripwire (nil: none).
func (a *applier) tripped(t *result.ApplyTripped, source string) result.ApplyVerdict {
	if t == nil {
		return result.ApplyVerdict{}
	}
	a.prog.Emit(*t)
	a.step("tripwire", "%s: %s (limit %s): the old settings go back at once", t.Name, t.Value, t.Limit)
	return result.ApplyVerdict{Verdict: result.VerdictTripwire, Source: source,
		Tripwire: fmt.Sprintf("%s: %s (limit %s)", t.Name, t.Value, t.Limit),
		Reason:   fmt.Sprintf("tripwire %s: %s, beyond %s", t.Name, t.Value, t.Limit)}
}

// windowOf summarises a window from its two readings.
func windowOf(pair int, arm string, before, after runner.StatementStats) result.ApplyWindow {
	w := result.ApplyWindow{Pair: pair, Arm: arm, Start: before.At, End: after.At}
	var secs float64
	for k, d := range after.Digests {
		b := before.Digests[k]
		w.Calls += d.Calls - b.Calls
		secs += d.Seconds - b.Seconds
	}
	if el := after.At.Sub(before.At).Seconds(); el > 0 {
		w.PerSecond = float64(w.Calls) / el
	}
	if w.Calls > 0 {
		w.MeanMS = 1000 * secs / float64(w.Calls)
	}
	return w
}

// pairRatio is one pair's log slowdown of the new settings: with
// statement time, the mean over the digests seen in both windows (at
// least 5 calls each) of log(new mean latency / old), weighted by the
// digest's time in both; without (global status), log(old rate / new
// rate). ok is false when no digest qualifies.
func pairRatio(source string, old, new [2]runner.StatementStats) (float64, bool) {
	if source == runner.SourceGlobalStatus {
		o, n := windowOf(0, "", old[0], old[1]), windowOf(0, "", new[0], new[1])
		if o.PerSecond <= 0 || n.PerSecond <= 0 {
			return 0, false
		}
		return math.Log(o.PerSecond / n.PerSecond), true
	}
	var sum, weight float64
	for k, n1 := range new[1].Digests {
		n0, o0, o1 := new[0].Digests[k], old[0].Digests[k], old[1].Digests[k]
		nc, oc := n1.Calls-n0.Calls, o1.Calls-o0.Calls
		ns, os := n1.Seconds-n0.Seconds, o1.Seconds-o0.Seconds
		if nc < 5 || oc < 5 || ns <= 0 || os <= 0 {
			continue
		}
		w := ns + os
		sum += w * math.Log((ns/float64(nc))/(os/float64(oc)))
		weight += w
	}
	if weight == 0 {
		return 0, false
	}
	return sum / weight, true
}

// judge turns the pairs' log slowdowns into the verdict: a 95 % t
// interval of their mean; fail when its lower end is above 0 (slower
// with 95 % confidence), pass when its upper end is below margin, else
// inconclusive. Fewer than 2 pairs are inconclusive: one before/after
// comparison decides nothing.
func judge(ratios []float64, margin float64, source string) result.ApplyVerdict {
	v := result.ApplyVerdict{Pairs: len(ratios), Source: source}
	if len(ratios) < 2 {
		v.Verdict = result.VerdictInconclusive
		v.Reason = fmt.Sprintf("%d pairs of windows had statements to compare, at least 2 are needed: watch longer (--watch) or when the server has traffic", len(ratios))
		return v
	}
	n := float64(len(ratios))
	var mean, ss float64
	for _, r := range ratios {
		mean += r
	}
	mean /= n
	for _, r := range ratios {
		ss += (r - mean) * (r - mean)
	}
	se := math.Sqrt(ss/(n-1)) / math.Sqrt(n)
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: n - 1}.Quantile(0.975)
	lo, hi := mean-t*se, mean+t*se
	pct := func(x float64) float64 { return 100 * (math.Exp(x) - 1) }
	v.Pct, v.LoPct, v.HiPct = pct(mean), pct(lo), pct(hi)
	switch {
	case lo > 0:
		v.Verdict = result.VerdictFail
		v.Reason = fmt.Sprintf("the new settings are slower by %+.1f %% (95 %% CI %+.1f .. %+.1f %%, %d pairs)", v.Pct, v.LoPct, v.HiPct, len(ratios))
	case hi < math.Log(1+margin):
		v.Verdict = result.VerdictPass
		v.Reason = fmt.Sprintf("the new settings are not slower by more than %.0f %% (%+.1f %%, 95 %% CI %+.1f .. %+.1f %%, %d pairs)", 100*margin, v.Pct, v.LoPct, v.HiPct, len(ratios))
	default:
		v.Verdict = result.VerdictInconclusive
		v.Reason = fmt.Sprintf("%+.1f %% (95 %% CI %+.1f .. %+.1f %%, %d pairs) neither shows a slowdown nor rules out one beyond %.0f %%: watch longer (--watch) or at a steadier hour", v.Pct, v.LoPct, v.HiPct, len(ratios), 100*margin)
	}
	return v
}

// errNoRow is runner's no-row error (QueryString).
var errNoRow = runner.ErrNoRow
