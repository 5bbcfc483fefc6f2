package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/autotune/autotune/runner"
	"github.com/autotune/autotune/space"
)

// Apply modes of --apply.
const (
	applyRestart = "restart"
	applyDynamic = "dynamic"
)

// defaultMemoryShare is the share of the host's RAM a study's configs may
// use when --memory-budget is not given.
const defaultMemoryShare = 0.75

// studySpaceOptions are the space flags of `autotune search`: the shared
// spaceOptions plus what only a study needs.
type studySpaceOptions struct {
	spaceOptions
	memoryBudget string
	apply        string
	baselineCnf  string
}

func (o *studySpaceOptions) AddFlags(fs *pflag.FlagSet) {
	o.spaceOptions.AddFlags(fs)
	fs.StringVar(&o.memoryBudget, "memory-budget", "75%", "memory a config may use, as a size (12G) or a share of RAM (75%); a config whose MySQLTuner-style estimate (global buffers + per-connection buffers x max_connections) exceeds it is rejected without starting a server")
	fs.StringVar(&o.baselineCnf, "baseline-cnf", "", "your current my.cnf: read by the MySQL option-file rules, its knob values become trial 0 and the base of every trial; export then shows the change against it")
	fs.StringVar(&o.apply, "apply", applyRestart, "restart: every trial restores the dataset and restarts the server; dynamic: when only dynamic knobs change from the previous trial, apply them with SET GLOBAL on the running server (faster, but the trial inherits the previous trial's dataset and cache state)")
}

func (o *studySpaceOptions) validate() error {
	if err := o.spaceOptions.validate(); err != nil {
		return err
	}
	if _, err := parseBudget(o.memoryBudget, 1<<40); err != nil {
		return usagef("--memory-budget: %v", err)
	}
	if o.baselineCnf != "" {
		if _, err := os.Stat(o.baselineCnf); err != nil {
			return usagef("--baseline-cnf %q: %v", o.baselineCnf, err)
		}
	}
	if o.apply != applyRestart && o.apply != applyDynamic {
		return usagef("--apply %q: want %s or %s", o.apply, applyRestart, applyDynamic)
	}
	return nil
}

// parseBudget parses a size ("12G") or a share of ram ("75%") into bytes.
func parseBudget(s string, ram int64) (int64, error) {
	s = strings.TrimSpace(s)
	if p, ok := strings.CutSuffix(s, "%"); ok {
		f, err := strconv.ParseFloat(p, 64)
		if err != nil || f <= 0 || f > 100 {
			return 0, fmt.Errorf("%q: want a share of RAM in (0, 100]%%, or a size such as 12G", s)
		}
		return int64(f / 100 * float64(ram)), nil
	}
	n, err := space.ParseBytes(s)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("%q: want a size such as 12G, or a share of RAM such as 75%%", s)
	}
	return n, nil
}

// spaceSettings are the space settings stored with a study: changing them
// changes what the study measures, so a resumed study must keep them.
type spaceSettings struct {
	Durability      string    `json:"durability"`
	SpaceFile       string    `json:"space_file,omitempty"`
	SpaceFileSHA256 string    `json:"space_file_sha256,omitempty"`
	ServerBuilds    []build   `json:"server_builds,omitempty"`
	BenchmarkBuilds []build   `json:"benchmark_builds,omitempty"`
	MemoryBudget    int64     `json:"memory_budget_bytes"`
	Apply           string    `json:"apply"`
	Baseline        *baseline `json:"baseline,omitempty"`
}

// studyPlan is what runSearch needs beyond the resolved space: the stored
// settings, the base config of every trial and the budget.
type studyPlan struct {
	settings *spaceSettings
	base     space.Config
	budget   int64
	apply    string
	bpLimit  float64
	notes    []string
}

// plan derives the study plan from the resolved space and the host.
func (o *studySpaceOptions) plan(ctx context.Context, rs resolved, host runner.Host) (studyPlan, error) {
	budget, err := parseBudget(o.memoryBudget, host.RAMBytes)
	if err != nil {
		return studyPlan{}, usagef("--memory-budget: %v", err)
	}
	st := &spaceSettings{Durability: string(rs.durability), MemoryBudget: budget, Apply: o.apply}
	if o.spaceFile != "" {
		b, err := os.ReadFile(o.spaceFile)
		if err != nil {
			return studyPlan{}, fmt.Errorf("--space %q: %w", o.spaceFile, err)
		}
		sum := sha256.Sum256(b)
		st.SpaceFile, st.SpaceFileSHA256 = o.spaceFile, hex.EncodeToString(sum[:])
	}
	if len(rs.servers.names) > 1 || len(o.serverBuilds) > 0 {
		for _, n := range rs.servers.names {
			st.ServerBuilds = append(st.ServerBuilds, build{Name: n, Path: rs.servers.bins[n].Path})
		}
	}
	st.BenchmarkBuilds = rs.benches
	// Never let the buffer pool take more than half of the host's RAM, nor
	// more than the memory budget.
	limit := float64(min(host.RAMBytes/2, budget))
	if err := rs.sp.Limit("innodb_buffer_pool_size", limit); err != nil && rs.sp.Searched("innodb_buffer_pool_size") {
		return studyPlan{}, fmt.Errorf("--memory-budget %s: %w", space.HumanBytes(budget), err)
	}
	p := studyPlan{settings: st, base: rs.sp.Fixed(), budget: budget, apply: o.apply, bpLimit: limit}
	if o.baselineCnf != "" {
		bl, err := loadBaseline(ctx, o.baselineCnf, rs.sp, rs.info, rs.servers.first())
		if err != nil {
			return studyPlan{}, err
		}
		st.Baseline = &bl
		p.base = bl.Config.Merge(rs.sp.Fixed())
		p.notes = bl.Notes
	}
	return p, nil
}

// report prints what the study searches.
func (p studyPlan) report(logf func(string, ...any), sp *space.Space) {
	var tun, pinned, unsup []string
	for _, e := range sp.Entries() {
		switch e.Status {
		case space.Tunable:
			tun = append(tun, e.Knob.Name)
		case space.Pinned:
			pinned = append(pinned, e.Knob.Name+"="+e.Knob.Render(e.Value))
		case space.Unsupported:
			unsup = append(unsup, e.Knob.Name)
		}
	}
	logf("searching %d knobs: %s", len(tun), strings.Join(tun, " "))
	if len(pinned) > 0 {
		logf("pinned (--durability %s / space file): %s", p.settings.Durability, strings.Join(pinned, " "))
	}
	logf("not searched on this server: %d knobs (autotune knobs shows why)", len(unsup))
	logf("memory budget %s; apply mode %s", space.HumanBytes(p.budget), p.apply)
	if bl := p.settings.Baseline; bl != nil {
		logf("baseline (trial 0) from %s: %s", bl.File, strings.Join(sp.Changes(bl.Config), " "))
		for _, n := range p.notes {
			logf("  note: %s", n)
		}
	}
}

// setup hands the plan's runtime parts to the trial runner.
func (p studyPlan) setup(tr *trialRunner, rs resolved) {
	tr.servers = rs.servers
	tr.benches = map[string]string{}
	for _, b := range rs.benches {
		tr.benches[b.Name] = b.Path
	}
	if len(rs.benches) > 0 {
		tr.bench.Path = rs.benches[0].Path
	}
	tr.fac = rs.fac
	tr.vars = rs.info.Vars
	tr.budget = p.budget
	tr.dynamic = p.apply == applyDynamic
}

// durabilityNote says in the exported my.cnf which policy held.
func durabilityNote(policy string) string {
	switch space.Durability(policy) {
	case space.Strict:
		return "strict (innodb_flush_log_at_trx_commit=1, innodb_doublewrite=ON and, where binary logging is on, sync_binlog=1 were pinned: as crash-safe as the defaults)"
	case space.Relaxed:
		return "relaxed (the search could trade crash safety for speed: check innodb_flush_log_at_trx_commit, innodb_doublewrite, sync_binlog below)"
	}
	return policy
}

// environmentNotes describes the trial's non-option knobs (runtime
// environment, builds) for the exported file's header: they are not
// my.cnf options, so they are comments saying how to reproduce them.
func environmentNotes(sp *space.Space, cfg space.Config) []string {
	var out []string
	for _, k := range sp.All() {
		v, ok := cfg[k.Name]
		if !ok || k.Layer == space.LayerServer || v == k.Default {
			continue
		}
		how := ""
		switch k.Name {
		case "allocator":
			how = " (start the server with LD_PRELOAD set to the " + v + " library)"
		case "cpu_placement":
			how = " (server and benchmark were pinned to separate cores with taskset)"
		case "numa_policy":
			how = " (start the server under numactl --interleave=all)"
		case "benchmark_connection":
			how = " (the benchmark connected this way; a client setting, not the server's)"
		case "server_build", "benchmark_build":
			how = " (the binary named in the study's --server-build/--benchmark-build list)"
		}
		out = append(out, "not an option: "+k.Name+"="+v+how)
	}
	return out
}

// writeFileMode writes b to path through a temporary file in the same
// directory, renamed over path, with exactly mode (not subject to the
// umask, and not the mode of a file it replaces): a world-writable option
// file is ignored by the server (shared/cases/mycnf-writer-file-mode).
func writeFileMode(path string, b []byte, mode os.FileMode) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp) // after a successful rename there is nothing to remove
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(mode); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
