package study

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/autotune/autotune/engine"
	"github.com/autotune/autotune/internal/secret"
	"github.com/autotune/autotune/runner"
	"github.com/autotune/autotune/space"
	"github.com/autotune/autotune/storage"
)

// PasswordEnv holds the password of an existing server's user.
const PasswordEnv = "AUTOTUNE_PASSWORD"

// CheckPasswordSources returns a UsageError when both $AUTOTUNE_PASSWORD
// (even empty) and an option file passwordFile give the --dsn user's
// password: one of them would be ignored.
func CheckPasswordSources(passwordFile string) error {
	if _, ok := os.LookupEnv(PasswordEnv); ok && passwordFile != "" {
		return Usagef("--password-file %q and $%s both give the --dsn user's password: give one (unset %s, or leave out --password-file)", passwordFile, PasswordEnv, PasswordEnv)
	}
	return nil
}

// ServerPassword returns the password of a --dsn user, for search and
// capture alike: $AUTOTUNE_PASSWORD when set (even empty), else the
// password= line of the [client] group of the option file passwordFile
// (secret.FromOptionFile; its errors), else none (""). Both given is
// CheckPasswordSources's UsageError.
func ServerPassword(passwordFile string) (string, error) {
	if err := CheckPasswordSources(passwordFile); err != nil {
		return "", err
	}
	if pw, ok := os.LookupEnv(PasswordEnv); ok {
		return pw, nil
	}
	if passwordFile != "" {
		return secret.FromOptionFile(passwordFile)
	}
	return "", nil
}

func (r *run) existingAddr() string {
	if t, ok := r.engine.Target.(*engine.ExistingTarget); ok {
		return t.Addr()
	}
	return secret.RedactDSN(r.cfg.Existing.DSN)
}

// existingSpace is the knob space of an existing server: the first
// space's server knobs as the server in use has them (resolved against
// its variables: a knob it lacks is left out, one it renamed is changed
// under its name there), the durability knobs only with relaxed
// durability, and without restarts only the knobs SET GLOBAL can change.
// The buffer pool may take at most half the host's RAM.
func existingSpace(ctx context.Context, ex *runner.Existing, durability space.Durability, allowRestart bool, ram int64) (*space.Space, error) {
	info, err := ex.Target().Variables(ctx, runner.Binary{})
	if err != nil {
		return nil, fmt.Errorf("server %s: %w", ex.Addr(), err)
	}
	full, err := space.Resolve(space.Catalogue(), space.Env{Server: &info, Durability: durability})
	if err != nil {
		return nil, err
	}
	first := map[string]bool{}
	for _, n := range space.FirstKnobs {
		first[n] = true
	}
	sp := full.Restrict(func(k space.Knob) bool {
		return first[k.Name] && k.Layer == space.LayerServer && (allowRestart || k.Dynamic) && (durability == space.Relaxed || !k.Durability)
	})
	if len(sp.Knobs()) == 0 {
		return nil, fmt.Errorf("server %s (%s): none of the knobs autotune tunes on an existing server can be changed there", ex.Addr(), info.VersionText)
	}
	if !sp.Searched("innodb_buffer_pool_size") {
		return sp, nil
	}
	return sp, sp.Limit("innodb_buffer_pool_size", float64(ram/2))
}

// openServer opens the existing server of dsn with the password from the
// environment or passwordFile (ServerPassword). Errors: two password
// sources or an unreadable file, and a DSN runner.OpenExisting refuses (a
// UsageError).
func openServer(dsn, passwordFile string) (*runner.Existing, error) {
	pw, err := ServerPassword(passwordFile)
	if err != nil {
		return nil, err
	}
	ex, err := runner.OpenExisting(dsn, pw)
	if err != nil {
		return nil, UsageError{Err: err}
	}
	return ex, nil
}

// onExisting connects to the existing server, checks that it looks like a
// test server (or NotSandbox), builds its space, saves its original
// settings and makes it the target (Close restores them).
func (r *run) onExisting(ctx context.Context) error {
	x := r.cfg.Existing
	ex, err := openServer(x.DSN, x.PasswordFile)
	if err != nil {
		return err
	}
	if x.AllowRestart {
		ex.RestartCmd = x.RestartCmd
	}
	include, err := filepath.Abs(x.ConfigFile)
	if err != nil {
		return err
	}
	if r.version, err = ex.Version(ctx); err != nil {
		return err
	}
	others, err := ex.OtherSchemas(ctx, "sbtest")
	if err != nil {
		return err
	}
	if len(others) > 0 && !x.NotSandbox {
		return Usagef("server %s holds schemas other than the benchmark's sbtest (%s): it looks like a server people use. autotune changes its global settings and loads it with the benchmark; pass --i-understand-this-is-not-a-sandbox to go ahead anyway", ex.Addr(), strings.Join(others, ", "))
	}
	d, err := space.ParseDurability(r.cfg.Space.Durability)
	if err != nil {
		return Usagef("--durability: %v", err)
	}
	if r.sp, err = existingSpace(ctx, ex, d, x.AllowRestart, r.host.RAMBytes); err != nil {
		return err
	}
	budget, err := ParseMemoryBudget(r.cfg.Space.MemoryBudget, r.host.RAMBytes)
	if err != nil {
		return Usagef("--memory-budget: %v", err)
	}
	target, err := engine.OpenExisting(ctx, ex, r.sp, include, r.logf)
	if err != nil {
		return err
	}
	r.undo = append(r.undo, func() error {
		if err := target.Close(ctx); err != nil {
			r.logf("ERROR: could not restore the server's original settings: %v\nthey are saved in %s; the next autotune run with this --config-file restores them", err, engine.StatePath(include))
			return fmt.Errorf("restore the original settings of %s: %w", ex.Addr(), err)
		}
		r.logf("original settings of %s restored", ex.Addr())
		return nil
	})
	r.engine.Target, r.engine.MemoryBudget = target, budget
	r.engine.ServerVars, r.engine.MaxConnections = memoryVariables(ctx, ex, r.engine.MaxConnections)
	r.spaceM = &storage.SpaceManifest{Durability: string(d), MemoryBudget: budget, Apply: ApplyDynamic}
	// The server runs on this host (loopback only): its RAM is the
	// host's; the dataset's size is the server's to tell.
	r.facts = expertFacts{ramBytes: r.host.RAMBytes, dataBytes: func() (int64, error) {
		n, err := ex.QueryInt(ctx, "SELECT COALESCE(SUM(data_length + index_length), 0) FROM information_schema.tables WHERE table_schema = 'sbtest'")
		if err == nil && n == 0 {
			err = fmt.Errorf("the server reports no size for schema sbtest yet")
		}
		return n, err
	}}
	r.logf("tuning the existing server %s (%s); trials see an evolving dataset", ex.Addr(), r.version)
	return nil
}

// memoryVariables reads the variables of the memory estimate from the
// server in one query (space.MemoryVariables; one it does not have keeps
// the catalogue's default) and its max_connections (conns when
// unreadable).
func memoryVariables(ctx context.Context, ex *runner.Existing, conns int) (map[string]space.ServerVar, int) {
	got, err := ex.Variables(ctx, append(space.MemoryVariables(), "max_connections"))
	if err != nil {
		return nil, conns
	}
	vars := map[string]space.ServerVar{}
	for _, n := range space.MemoryVariables() {
		if v, ok := got[n]; ok {
			vars[n] = space.ServerVar{Name: n, Value: v}
		}
	}
	if n, err := strconv.Atoi(got["max_connections"]); err == nil && n > 0 {
		conns = n
	}
	return vars, conns
}
