package study

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/autotune/autotune/runner"
	"github.com/autotune/autotune/space"
	"github.com/autotune/autotune/space/spacefile"
	"github.com/autotune/autotune/storage"
)

// servers is the resolved set of server binaries of a study: the default
// first, keyed by build name.
type servers struct {
	names []string
	bins  map[string]runner.Binary
}

func (s servers) first() runner.Binary { return s.bins[s.names[0]] }

// all returns the binaries in the order of names.
func (s servers) all() []runner.Binary {
	out := make([]runner.Binary, 0, len(s.names))
	for _, n := range s.names {
		out = append(out, s.bins[n])
	}
	return out
}

// singleServer is the build list of a run without --server-build choices.
func singleServer(bin runner.Binary) servers {
	return servers{names: []string{"default"}, bins: map[string]runner.Binary{"default": bin}}
}

// findServers resolves Space.Mysqld or the server build list.
func findServers(ctx context.Context, s Space) (servers, error) {
	if len(s.ServerBuilds) == 0 {
		bin, err := runner.FindServer(ctx, s.Mysqld)
		if err != nil {
			return servers{}, err
		}
		return singleServer(bin), nil
	}
	out := servers{bins: map[string]runner.Binary{}}
	for _, b := range s.ServerBuilds {
		bin, err := runner.FindServer(ctx, b.Path)
		if err != nil {
			return out, fmt.Errorf("--server-build %s: %w", b.Name, err)
		}
		out.names = append(out.names, b.Name)
		out.bins[b.Name] = bin
	}
	return out, nil
}

// resolved is a study's knob space and what it was resolved against.
type resolved struct {
	sp         *space.Space
	info       space.ServerInfo
	fac        runner.Facilities
	servers    servers
	durability space.Durability
}

// ResolveSpace probes every server build on a fresh tiny datadir under
// probeDir (a sandbox directory), detects the host's launcher facilities,
// reads the space file and resolves the knob catalogue. Server builds must
// share flavour and major.minor version (the dataset snapshot is shared):
// a UsageError otherwise, as for a bad space file.
func resolveSpace(ctx context.Context, s Space, probeDir string) (resolved, error) {
	var r resolved
	d, err := space.ParseDurability(s.Durability)
	if err != nil {
		return r, Usagef("--durability: %v", err)
	}
	r.durability = d
	if r.servers, err = findServers(ctx, s); err != nil {
		return r, err
	}
	var bins []runner.Binary
	for _, name := range r.servers.names {
		bins = append(bins, r.servers.bins[name])
	}
	infos, err := runner.Probe(ctx, probeDir, bins...)
	if err != nil {
		what := "read the server variables (each build started on a fresh datadir)"
		switch {
		case len(s.ServerBuilds) > 0:
			what = "--server-build: " + what
		case s.Mysqld != "":
			what = "--mysqld " + s.Mysqld + ": " + what
		}
		return r, fmt.Errorf("%s: %w", what, err)
	}
	for i, info := range infos[1:] {
		a, b := infos[0].Version, info.Version
		if a.Flavor != b.Flavor || a.Major != b.Major || a.Minor != b.Minor {
			return r, Usagef("--server-build %s is %s but %s is %s: builds must share flavour and major.minor version (the dataset snapshot is shared)",
				r.servers.names[i+1], b, r.servers.names[0], a)
		}
	}
	r.info = space.Intersect(infos)
	r.fac = runner.DetectFacilities(ctx, r.servers.all()...)
	env := r.fac.Env(space.Env{Server: &r.info, Durability: d, BenchTCPOnly: s.benchTCPOnly})
	if len(r.servers.names) > 1 {
		env.ServerBuilds = r.servers.names
	}
	for _, b := range s.BenchBuilds {
		env.BenchmarkBuilds = append(env.BenchmarkBuilds, b.Name)
	}
	if s.File != "" {
		rules, err := spacefile.Load(s.File)
		if err != nil {
			return r, UsageError{Err: err}
		}
		env.Rules = rules
	}
	r.sp, err = space.Resolve(space.Catalogue(), env)
	if err != nil {
		return r, UsageError{Err: err}
	}
	return r, nil
}

// ParseMemoryBudget parses a size ("12G") or a share of ram ("75%") into
// bytes; the error names the accepted forms.
func ParseMemoryBudget(s string, ram int64) (int64, error) {
	s = strings.TrimSpace(s)
	if p, ok := strings.CutSuffix(s, "%"); ok {
		f, err := strconv.ParseFloat(p, 64)
		n := int64(f / 100 * float64(ram))
		if err != nil || !(f > 0 && f <= 100) || n <= 0 { // !(…) also refuses NaN
			return 0, fmt.Errorf("%q: want a share of RAM in (0, 100]%%, or a size such as 12G", s)
		}
		return n, nil
	}
	n, err := space.ParseBytes(s)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("%q: want a size such as 12G, or a share of RAM such as 75%%", s)
	}
	return n, nil
}

// spacePlan is what a study adds to its resolved space: the stored space
// settings, the base config of every trial and the memory budget.
type spacePlan struct {
	manifest *storage.SpaceManifest
	base     space.Config
	budget   int64
	notes    []string
}

// planSpace derives the space plan from the resolved space and the host:
// it limits the buffer pool to half the RAM and the memory budget (to the
// budget alone under a host profile, profiled: the cgroup's limit, not
// the machine, stops a pool too large, and the study learns it from the
// out-of-memory kill), and reads the baseline my.cnf.
func planSpace(ctx context.Context, s Space, rs resolved, host runner.Host, profiled bool) (spacePlan, error) {
	budget, err := ParseMemoryBudget(s.MemoryBudget, host.RAMBytes)
	if err != nil {
		return spacePlan{}, Usagef("--memory-budget: %v", err)
	}
	st := &storage.SpaceManifest{Durability: string(rs.durability), MemoryBudget: budget, Apply: s.Apply}
	if s.File != "" {
		b, err := os.ReadFile(s.File)
		if err != nil {
			return spacePlan{}, fmt.Errorf("--space %q: %w", s.File, err)
		}
		sum := sha256.Sum256(b)
		st.SpaceFile, st.SpaceFileSHA256 = s.File, hex.EncodeToString(sum[:])
	}
	if len(rs.servers.names) > 1 || len(s.ServerBuilds) > 0 {
		for _, n := range rs.servers.names {
			bin := rs.servers.bins[n]
			b, err := identified(storage.Build{Name: n, Path: bin.Path, Version: versionWord(bin.Version)}, "--server-build")
			if err != nil {
				return spacePlan{}, err
			}
			st.ServerBuilds = append(st.ServerBuilds, b)
		}
	}
	for _, b := range s.BenchBuilds {
		b, err := identified(b, "--benchmark-build")
		if err != nil {
			return spacePlan{}, err
		}
		st.BenchmarkBuilds = append(st.BenchmarkBuilds, b)
	}
	limit := float64(min(host.RAMBytes/2, budget))
	if profiled {
		limit = float64(min(host.RAMBytes, budget))
	}
	if err := rs.sp.Limit("innodb_buffer_pool_size", limit); err != nil && rs.sp.Searched("innodb_buffer_pool_size") {
		return spacePlan{}, fmt.Errorf("--memory-budget %s: %w", space.HumanBytes(budget), err)
	}
	p := spacePlan{manifest: st, base: rs.sp.Fixed(), budget: budget}
	if s.BaselineCnf != "" {
		bl, err := loadBaseline(ctx, s.BaselineCnf, rs.sp, rs.info, rs.servers.first())
		if err != nil {
			return spacePlan{}, err
		}
		st.Baseline = &bl
		p.base = bl.Config.Merge(rs.sp.Fixed())
		p.notes = bl.Notes
	}
	return p, nil
}

// identified returns build b with its binary's digest (SHA256), so that
// a binary replaced at the same path changes the study's fingerprint
// (storage.Fingerprint); the error names flag and the build.
func identified(b storage.Build, flag string) (storage.Build, error) {
	sum, err := runner.FileSHA256(b.Path)
	if err != nil {
		return b, fmt.Errorf("%s %s=%s: %w", flag, b.Name, b.Path, err)
	}
	b.SHA256 = sum
	return b, nil
}

// versionWord returns the version in a server's --version text
// ("mariadbd  Ver 10.11.19-MariaDB-0+deb12u1 for debian-linux-gnu ..." →
// "10.11.19-MariaDB-0+deb12u1"), or the text when it has no "Ver".
func versionWord(text string) string {
	f := strings.Fields(text)
	for i, w := range f {
		if w == "Ver" && i+1 < len(f) {
			return f[i+1]
		}
	}
	return strings.TrimSpace(text)
}

// report prints what the study searches.
func (p spacePlan) report(logf func(string, ...any), sp *space.Space) {
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
		logf("pinned (--durability %s / space file): %s", p.manifest.Durability, strings.Join(pinned, " "))
	}
	logf("not searched on this server: %d knobs (autotune knobs shows why)", len(unsup))
	logf("memory budget %s; apply mode %s", space.HumanBytes(p.budget), p.manifest.Apply)
	if bl := p.manifest.Baseline; bl != nil {
		logf("baseline (trial 0) from %s: %s", bl.File, strings.Join(sp.Changes(bl.Config), " "))
		for _, n := range p.notes {
			logf("  note: %s", n)
		}
	}
}

// Resolved is a knob space resolved against a server (autotune knobs).
type Resolved struct {
	// Space is the resolved space.
	Space *space.Space
	// Info is what the server (the builds' common part) reported.
	Info space.ServerInfo
	// Builds are the server binaries, the default first.
	Builds []storage.Build
	// Durability is the policy the space was resolved under.
	Durability space.Durability
}

// ResolveSpace resolves the knob catalogue against the servers of s,
// probed on fresh datadirs under probeDir (see resolveSpace).
func ResolveSpace(ctx context.Context, s Space, probeDir string) (Resolved, error) {
	rs, err := resolveSpace(ctx, s, probeDir)
	if err != nil {
		return Resolved{}, err
	}
	r := Resolved{Space: rs.sp, Info: rs.info, Durability: rs.durability}
	for _, n := range rs.servers.names {
		r.Builds = append(r.Builds, storage.Build{Name: n, Path: rs.servers.bins[n].Path})
	}
	return r, nil
}
