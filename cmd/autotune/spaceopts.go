package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/spf13/pflag"

	"github.com/autotune/autotune/runner"
	"github.com/autotune/autotune/space"
	"github.com/autotune/autotune/spacefile"
)

// spaceOptions are the flags that shape the search space, shared by
// `autotune search` and `autotune knobs`.
type spaceOptions struct {
	mysqld       string
	durability   string
	spaceFile    string
	serverBuilds []string
	benchBuilds  []string
}

func (o *spaceOptions) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.mysqld, "mysqld", "", "server binary (default: mariadbd or mysqld on PATH or in /usr/sbin)")
	fs.StringVar(&o.durability, "durability", "strict", "strict pins innodb_flush_log_at_trx_commit=1, innodb_doublewrite=ON and sync_binlog=1 (where binary logging is on); relaxed lets the search change them")
	fs.StringVar(&o.spaceFile, "space", "", "space file (TOML): include/exclude knobs, narrow ranges, fix values (see examples/)")
	fs.StringArrayVar(&o.serverBuilds, "server-build", nil, "NAME=PATH of a server binary to choose among (repeatable; two or more make server_build a searched knob; the first is the default and builds the dataset)")
	fs.StringArrayVar(&o.benchBuilds, "benchmark-build", nil, "NAME=PATH of a sysbench binary to choose among (repeatable; two or more make benchmark_build a searched knob)")
}

var buildName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.+-]*$`)

// build is one NAME=PATH of --server-build / --benchmark-build.
type build struct {
	Name string `json:"name"`
	Path string `json:"path"`
}

// parseBuilds parses NAME=PATH values; errors name the flag and the value.
func parseBuilds(flag string, vals []string) ([]build, error) {
	var out []build
	seen := map[string]bool{}
	for _, v := range vals {
		name, path, ok := strings.Cut(v, "=")
		if !ok || !buildName.MatchString(name) || path == "" {
			return nil, usagef("%s %q: want NAME=PATH, NAME of letters, digits, '.', '_', '+', '-'", flag, v)
		}
		if seen[name] {
			return nil, usagef("%s %q: build name %s given twice", flag, v, name)
		}
		seen[name] = true
		abs, err := filepath.Abs(path)
		if err != nil {
			return nil, usagef("%s %q: %v", flag, v, err)
		}
		if st, err := os.Stat(abs); err != nil || !st.Mode().IsRegular() || st.Mode()&0o111 == 0 {
			return nil, usagef("%s %q: %s is not an executable file", flag, v, abs)
		}
		out = append(out, build{Name: name, Path: abs})
	}
	return out, nil
}

// validate checks the space flags.
func (o *spaceOptions) validate() error {
	if _, err := space.ParseDurability(o.durability); err != nil {
		return usagef("--durability: %v", err)
	}
	if len(o.serverBuilds) > 0 && o.mysqld != "" {
		return usagef("--mysqld and --server-build: give one (the first --server-build is the default server)")
	}
	if _, err := parseBuilds("--server-build", o.serverBuilds); err != nil {
		return err
	}
	if _, err := parseBuilds("--benchmark-build", o.benchBuilds); err != nil {
		return err
	}
	if o.spaceFile != "" {
		if _, err := os.Stat(o.spaceFile); err != nil {
			return usagef("--space %q: %v", o.spaceFile, err)
		}
	}
	return nil
}

// servers is the resolved set of server binaries of a study: the default
// first, keyed by build name.
type servers struct {
	names []string
	bins  map[string]runner.Binary
}

func (s servers) first() runner.Binary { return s.bins[s.names[0]] }

// singleServer is the build list of a run without --server-build choices.
func singleServer(bin runner.Binary) servers {
	return servers{names: []string{"default"}, bins: map[string]runner.Binary{"default": bin}}
}

// findServers resolves --mysqld or the --server-build list.
func (o *spaceOptions) findServers(ctx context.Context) (servers, error) {
	out := servers{bins: map[string]runner.Binary{}}
	builds, err := parseBuilds("--server-build", o.serverBuilds)
	if err != nil {
		return out, err
	}
	if len(builds) == 0 {
		bin, err := runner.FindServer(ctx, o.mysqld)
		if err != nil {
			return out, err
		}
		return singleServer(bin), nil
	}
	for _, b := range builds {
		bin, err := runner.FindServer(ctx, b.Path)
		if err != nil {
			return out, fmt.Errorf("--server-build %s: %w", b.Name, err)
		}
		out.names = append(out.names, b.Name)
		out.bins[b.Name] = bin
	}
	return out, nil
}

// resolved is a study's space and what it was resolved against.
type resolved struct {
	sp         *space.Space
	info       space.ServerInfo
	fac        runner.Facilities
	servers    servers
	benches    []build
	durability space.Durability
}

// resolveSpace probes every server build on a fresh tiny datadir under
// probeDir (a sandbox directory), detects the host's launcher facilities,
// reads the space file and resolves the catalogue. Server builds must be
// the same flavour and major.minor version: the dataset snapshot is shared.
func (o *spaceOptions) resolveSpace(ctx context.Context, probeDir string, logf func(string, ...any)) (resolved, error) {
	var r resolved
	d, err := space.ParseDurability(o.durability)
	if err != nil {
		return r, usagef("--durability: %v", err)
	}
	r.durability = d
	if r.servers, err = o.findServers(ctx); err != nil {
		return r, err
	}
	if r.benches, err = parseBuilds("--benchmark-build", o.benchBuilds); err != nil {
		return r, err
	}
	var bins []runner.Binary
	for _, name := range r.servers.names {
		bins = append(bins, r.servers.bins[name])
	}
	infos, err := runner.Probe(ctx, probeDir, bins...)
	if err != nil {
		return r, fmt.Errorf("read the server variables (each build started on a fresh datadir): %w", err)
	}
	for i, info := range infos[1:] {
		a, b := infos[0].Version, info.Version
		if a.Flavor != b.Flavor || a.Major != b.Major || a.Minor != b.Minor {
			return r, usagef("--server-build %s is %s but %s is %s: builds must share flavour and major.minor version (the dataset snapshot is shared)",
				r.servers.names[i+1], b, r.servers.names[0], a)
		}
	}
	r.info = space.Intersect(infos)
	r.fac = runner.DetectFacilities(ctx)
	env := r.fac.Env(space.Env{Server: &r.info, Durability: d})
	if len(r.servers.names) > 1 {
		env.ServerBuilds = r.servers.names
	}
	for _, b := range r.benches {
		env.BenchmarkBuilds = append(env.BenchmarkBuilds, b.Name)
	}
	if o.spaceFile != "" {
		rules, err := spacefile.Load(o.spaceFile)
		if err != nil {
			return r, usageError{err}
		}
		env.Rules = rules
	}
	r.sp, err = space.Resolve(space.Catalogue(), env)
	if err != nil {
		return r, usageError{err}
	}
	return r, nil
}
