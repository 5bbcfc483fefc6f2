package runner

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/autotune/autotune/internal/realtest"
	"github.com/autotune/autotune/space"
)

// knobValue returns knob k's value at position pos: "min" (first choice),
// "max" (last choice), "default", or "between": a numeric knob's value 37 %
// of the way from its minimum to its maximum, a fraction where the knob
// takes fractions (and the default for a choice knob).
func knobValue(t *testing.T, k space.Knob, pos string) string {
	t.Helper()
	var v string
	var err error
	switch {
	case pos == "default" || pos == "between" && (k.Kind == space.Enum || k.Kind == space.Bool):
		return k.Default
	case pos == "between" && k.Scale == space.Log:
		v, err = k.FromFloat(math.Exp(math.Log(k.Min) + 0.37*(math.Log(k.Max)-math.Log(k.Min))))
	case pos == "between":
		v, err = k.FromFloat(k.Min + 0.37*(k.Max-k.Min))
	case k.Kind == space.Enum || k.Kind == space.Bool:
		opts := k.Options()
		if pos == "min" {
			return opts[0]
		}
		return opts[len(opts)-1]
	case pos == "min":
		v, err = k.FromFloat(k.Min)
	default:
		v, err = k.FromFloat(k.Max)
	}
	if err != nil {
		t.Fatalf("%s %s: %v", k.Name, pos, err)
	}
	return v
}

// TestEveryTunableKnobAcceptedAndReadBack starts the machine's server with
// every tunable knob of the resolved space (durability relaxed, so the
// durability knobs are tested too) at its minimum, its maximum and its
// default, and reads each back with SELECT @@GLOBAL: the server must run
// exactly what was written. Restart-only knobs are batched: one start per
// value set, plus one per enum choice not covered by first/last/default,
// plus one per enum choice needed to keep a value the constraint repair
// would take out.
// Dynamic knobs are also changed on the running server with SET GLOBAL to
// every value set and every choice, without restarts. Environment knobs are
// checked in the server process: the preloaded allocator in
// /proc/PID/maps, the CPU placement in /proc/PID/status.
func TestEveryTunableKnobAcceptedAndReadBack(t *testing.T) {
	realtest.EachServer(t, testEveryTunableKnobAcceptedAndReadBack)
}

func testEveryTunableKnobAcceptedAndReadBack(t *testing.T, s realtest.Server) {
	info := knobReadback(t, s, t.TempDir())
	// A server that memory-maps its redo log on tmpfs (MariaDB 11.x)
	// resolves and runs differently with its workdir there: the knobs
	// must read back there too (innodb_log_buffer_size 50M read back as
	// the log's capacity, 938463232, on 11.8).
	if _, ok := info.Vars["innodb_log_file_mmap"]; ok {
		if st, err := os.Stat("/dev/shm"); err == nil && st.IsDir() {
			t.Run("workdir-on-tmpfs", func(t *testing.T) {
				dir, err := os.MkdirTemp("/dev/shm", "autotune-knobs-")
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { os.RemoveAll(dir) })
				knobReadback(t, s, dir)
			})
		}
	}
}

// knobReadback runs the test above with its sandbox in dir and returns
// what the probe read.
func knobReadback(t *testing.T, s realtest.Server, dir string) space.ServerInfo {
	ctx := context.Background()
	t0 := time.Now()
	bin, err := FindServer(ctx, s.Mysqld)
	if err != nil {
		t.Fatal(err)
	}
	infos, err := Probe(ctx, dir, bin)
	if err != nil {
		t.Fatal(err)
	}
	info := infos[0]
	fac := DetectFacilities(ctx, bin)
	sp, err := space.Resolve(space.Catalogue(), fac.Env(space.Env{Server: &info, Durability: space.Relaxed}))
	if err != nil {
		t.Fatal(err)
	}
	host, err := ReadHost()
	if err != nil {
		t.Fatal(err)
	}
	// As a study does: the buffer pool gets at most half the RAM.
	if err := sp.Limit("innodb_buffer_pool_size", float64(host.RAMBytes/2)); err != nil {
		t.Fatal(err)
	}
	sb, err := OpenSandbox(dir, bin)
	if err != nil {
		t.Fatal(err)
	}
	data := sb.path("data")
	if err := sb.initDatadir(ctx, data); err != nil {
		t.Fatal(err)
	}

	var server, dynamic, restartEnums, env []space.Knob
	for _, k := range sp.Knobs() {
		switch k.Layer {
		case space.LayerServer:
			server = append(server, k)
			if k.Dynamic {
				dynamic = append(dynamic, k)
			} else if k.Kind == space.Enum {
				restartEnums = append(restartEnums, k)
			}
		case space.LayerEnvironment:
			if k.Name != "benchmark_connection" { // the benchmark's side: covered by the study test
				env = append(env, k)
			}
		}
	}
	if len(server) < 25 {
		t.Fatalf("only %d tunable server knobs resolved", len(server))
	}

	type valueSet struct {
		name string
		cfg  space.Config
	}
	all := append(append([]space.Knob{}, server...), env...)
	at := func(pos string) space.Config {
		cfg := space.Config{}
		for _, k := range all {
			cfg[k.Name] = knobValue(t, k, pos)
		}
		return cfg
	}
	var sets []valueSet
	for _, pos := range []string{"min", "max", "default", "between"} {
		sets = append(sets, valueSet{pos, at(pos)})
	}
	// Enum choices of restart-only and environment knobs that first, last
	// and default leave out get starts of their own.
	for extra := 0; ; extra++ {
		cfg := at("default")
		found := false
		for _, k := range append(append([]space.Knob{}, restartEnums...), env...) {
			opts := k.Options()
			var left []string
			for _, c := range opts[1 : len(opts)-1] {
				if c != k.Default {
					left = append(left, c)
				}
			}
			if extra < len(left) {
				cfg[k.Name] = left[extra]
				found = true
			}
		}
		if !found {
			break
		}
		sets = append(sets, valueSet{fmt.Sprintf("choices-%d", extra+1), cfg})
	}
	// The server the dynamic knobs are changed on: defaults, with the
	// thread pool on (so thread_pool_size takes effect).
	dyn := at("default")
	if k, ok := sp.Knob("thread_handling"); ok && slices.Contains(k.Options(), "pool-of-threads") {
		dyn["thread_handling"] = "pool-of-threads"
	}
	sets = append(sets, valueSet{"dynamic", dyn})
	// A study repairs every config (space.Space.Repair); so does this test.
	// Values a repair takes out in the sets above (thread_pool_size without
	// the pool, query_cache_size with the cache OFF) get a set of their own
	// with an enum choice that keeps them (found by trying every choice).
	covered := map[string]bool{}
	for i, set := range sets {
		sets[i].cfg, _ = sp.Repair(set.cfg)
		for n, v := range sets[i].cfg {
			covered[n+"="+v] = true
		}
	}
	def, _ := sp.Repair(at("default"))
	enabled := map[string]space.Config{}
	var enablers []string
	for _, k := range all {
		for _, pos := range []string{"min", "max", "default"} {
			v := knobValue(t, k, pos)
			if covered[k.Name+"="+v] {
				continue
			}
			found := false
			for _, e := range all {
				if found || e.Kind != space.Enum && e.Kind != space.Bool {
					continue
				}
				for _, c := range e.Options() {
					try := def.Clone()
					try[k.Name], try[e.Name] = v, c
					if fixed, _ := sp.Repair(try); fixed[k.Name] == v {
						key := e.Name + "=" + c
						if enabled[key] == nil {
							enabled[key] = def.Clone()
							enabled[key][e.Name] = c
							enablers = append(enablers, key)
						}
						enabled[key][k.Name] = v
						found = true
						break
					}
				}
			}
			if !found {
				t.Errorf("%s=%s: no config keeps it through the repair", k.Name, v)
			}
		}
	}
	for _, key := range enablers {
		cfg, notes := sp.Repair(enabled[key])
		if len(notes) > 0 {
			t.Fatalf("set with %s needs repairs %v", key, notes)
		}
		sets = append(sets, valueSet{"with-" + key, cfg})
	}

	checkRead := func(t *testing.T, srv *Server, cfg space.Config, knobs []space.Knob, what string) {
		t.Helper()
		var vars []string
		for _, k := range knobs {
			vars = append(vars, sp.Variable(k.Name))
		}
		got, err := srv.ReadGlobals(ctx, vars)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		log, _ := os.ReadFile(srv.ErrorLog)
		warn := space.ServerWarnings(string(log))
		for i, k := range knobs {
			if r := space.CompareValue(&k, vars[i], cfg[k.Name], got[vars[i]], warn); r.Status != space.Match {
				t.Errorf("%s: %s = %s written, server runs %q (%s) %s", what, k.Name, cfg[k.Name], got[vars[i]], r.Status, r.Warning)
			}
		}
	}

	starts, sets2 := 0, 0
	for _, set := range sets {
		t.Run(set.name, func(t *testing.T) {
			var opts bytes.Buffer
			if err := sp.WriteOptions(&opts, set.cfg); err != nil {
				t.Fatal(err)
			}
			place, err := PlacementFor(set.cfg, fac)
			if err != nil {
				t.Fatal(err)
			}
			o := sb.Options(data, opts.String(), NextLogName(starts), 20)
			o.Launch = place.Server
			srv, err := Start(ctx, bin, o)
			starts++
			if err != nil {
				t.Fatalf("server refused the %s set: %v\n%s", set.name, err, opts.String())
			}
			defer srv.Stop(time.Minute)
			var set0 []space.Knob
			for _, k := range server {
				if _, ok := set.cfg[k.Name]; ok {
					set0 = append(set0, k)
				}
			}
			checkRead(t, srv, set.cfg, set0, "start with "+set.name)
			checkEnvironment(t, srv, bin, set.cfg, fac)

			if set.name != "dynamic" {
				return
			}
			// Dynamic knobs on the running server: every value set, then
			// every enum choice, then the defaults. The steps are consistent
			// with each other and with the restart knobs at their defaults
			// (log buffer 16M, below the smallest redo log), so no repair
			// is applied.
			cur := set.cfg.Clone()
			steps := []string{"min", "max"}
			maxChoices := 0
			for _, k := range dynamic {
				if n := len(k.Options()); n > maxChoices {
					maxChoices = n
				}
			}
			for j := 0; j < maxChoices; j++ {
				steps = append(steps, fmt.Sprintf("choice-%d", j))
			}
			steps = append(steps, "default")
			for _, step := range steps {
				next := cur.Clone()
				for _, k := range dynamic {
					switch {
					case strings.HasPrefix(step, "choice-"):
						var j int
						fmt.Sscanf(step, "choice-%d", &j)
						if opts := k.Options(); len(opts) > 0 {
							next[k.Name] = opts[j%len(opts)]
						}
					default:
						next[k.Name] = knobValue(t, k, step)
					}
				}
				var as []Assignment
				for _, k := range dynamic {
					if next[k.Name] != cur[k.Name] {
						_, numErr := strconv.ParseFloat(next[k.Name], 64)
						as = append(as, Assignment{Var: sp.Variable(k.Name), Value: next[k.Name], Quoted: numErr != nil})
					}
				}
				if err := srv.SetGlobals(ctx, as); err != nil {
					t.Fatalf("SET GLOBAL to %s: %v", step, err)
				}
				sets2++
				checkRead(t, srv, next, dynamic, "SET GLOBAL to "+step)
				cur = next
			}
		})
	}
	t.Logf("%d server knobs (%d dynamic), %d environment knobs: %d server starts, %d SET GLOBAL rounds, %s",
		len(server), len(dynamic), len(env), starts, sets2, time.Since(t0).Round(time.Second))
	return info
}

// checkEnvironment checks the launcher's work in the server process.
func checkEnvironment(t *testing.T, srv *Server, bin Binary, cfg space.Config, fac Facilities) {
	t.Helper()
	pid := srv.Pid()
	if a := cfg["allocator"]; a != "" {
		maps, err := os.ReadFile(fmt.Sprintf("/proc/%d/maps", pid))
		if err != nil {
			t.Fatal(err)
		}
		for name, lib := range fac.Allocators {
			if in := strings.Contains(string(maps), lib); in != (name == a) {
				t.Errorf("allocator %s: %s mapped in the server = %v", a, lib, in)
			}
			if name != a || bin.Root == "" {
				continue
			}
			// The server's library is the root's own, not the host's
			// (/proc/PID/root resolves in the server's mount namespace).
			seen, err1 := os.Stat(fmt.Sprintf("/proc/%d/root%s", pid, lib))
			own, err2 := os.Stat(filepath.Join(bin.Root, lib))
			if err1 != nil || err2 != nil || !os.SameFile(seen, own) {
				t.Errorf("allocator %s: the server's %s is not the root's own (%v, %v)", a, lib, err1, err2)
			}
		}
	}
	if c := cfg["cpu_placement"]; c != "" {
		st, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
		if err != nil {
			t.Fatal(err)
		}
		want := cpuList(0, fac.Cores)
		if c == "split" {
			want = cpuList(fac.Cores/2, fac.Cores)
		}
		if !strings.Contains(string(st), "Cpus_allowed_list:\t"+want+"\n") {
			t.Errorf("cpu_placement %s: want Cpus_allowed_list %s in\n%s", c, want, st)
		}
	}
}
