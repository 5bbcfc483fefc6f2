package runner

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autotune/autotune/internal/realtest"
	"github.com/autotune/autotune/space"
)

// serverInfoGolden is the description of the machine's MariaDB that the
// space package's tests resolve against; -update rewrites it from the live
// server.
const serverInfoGolden = "../space/testdata/serverinfo-mariadb-10.11.19.json"

func TestParseHelpVariables(t *testing.T) {
	// The variables table of `mariadbd --verbose --help` (10.11.19, this
	// machine), from the header to the end.
	b, err := os.ReadFile("testdata/help/mariadbd-10.11.19.txt")
	if err != nil {
		t.Fatal(err)
	}
	m := ParseHelpVariables(b)
	for name, want := range map[string]string{
		"innodb_buffer_pool_size":     "134217728",
		"transaction_isolation":       "REPEATABLE-READ",
		"innodb_doublewrite":          "TRUE",
		"innodb_read_ahead_threshold": "56",
		"innodb_flush_method":         "O_DIRECT",
		"allow_suspicious_udfs":       "FALSE",
	} {
		if got, ok := m[name]; !ok || got != want {
			t.Errorf("%s = %q (present %v), want %q", name, got, ok, want)
		}
	}
	for _, absent := range []string{"innodb_thread_concurrency", "innodb_buffer_pool_instances", "to_see_what_variables"} {
		if _, ok := m[absent]; ok {
			t.Errorf("%s must not be in the table", absent)
		}
	}
	if len(m) < 600 {
		t.Errorf("%d variables parsed, want the whole table (~700)", len(m))
	}
	if got := ParseHelpVariables([]byte("Usage: mysqld [OPTIONS]\n--help\n")); len(got) != 0 {
		t.Errorf("no table: got %v", got)
	}
}

func TestParseLdconfig(t *testing.T) {
	out := []byte(`1234 libs found in cache ` + "`/etc/ld.so.cache'" + `
	libtcmalloc_minimal_debug.so.4 (libc6,x86-64) => /lib/x86_64-linux-gnu/libtcmalloc_minimal_debug.so.4
	libtcmalloc_minimal.so.4 (libc6) => /lib/i386-linux-gnu/libtcmalloc_minimal.so.4
	libtcmalloc_minimal.so.4 (libc6,x86-64) => /lib/x86_64-linux-gnu/libtcmalloc_minimal.so.4
	libjemalloc.so.2 (libc6,x86-64) => /lib/x86_64-linux-gnu/libjemalloc.so.2
	libc.so.6 (libc6,x86-64, OS ABI: Linux 3.2.0) => /lib/x86_64-linux-gnu/libc.so.6
`)
	got := ParseLdconfig(out, "amd64")
	want := map[string]string{
		"tcmalloc": "/lib/x86_64-linux-gnu/libtcmalloc_minimal.so.4",
		"jemalloc": "/lib/x86_64-linux-gnu/libjemalloc.so.2",
	}
	if len(got) != len(want) || got["tcmalloc"] != want["tcmalloc"] || got["jemalloc"] != want["jemalloc"] {
		t.Fatalf("ParseLdconfig = %v, want %v", got, want)
	}
	if got := ParseLdconfig([]byte("\tlibjemalloc.so.1 (libc6) => /usr/lib/libjemalloc.so.1\n"), "riscv64"); got["jemalloc"] != "/usr/lib/libjemalloc.so.1" {
		t.Fatalf("other arch: %v", got)
	}
	if got := ParseLdconfig([]byte("\tlibjemalloc.so.2 (libc6) => /lib/i386/libjemalloc.so.2\n"), "amd64"); len(got) != 0 {
		t.Fatalf("32-bit library offered on amd64: %v", got)
	}
}

func TestPlacementFor(t *testing.T) {
	f := Facilities{Allocators: map[string]string{"tcmalloc": "/lib/tc.so"}, Taskset: "/usr/bin/taskset", Numactl: "/usr/bin/numactl", Cores: 2, NUMANodes: 2}
	p, err := PlacementFor(space.Config{"allocator": "tcmalloc", "cpu_placement": "split", "numa_policy": "interleave", "benchmark_connection": "tcp"}, f)
	if err != nil {
		t.Fatal(err)
	}
	if p.Server.Preload != "/lib/tc.so" || p.Server.CPUs != "1" || p.Bench.CPUs != "0" || !p.Server.Interleave || !p.TCP {
		t.Fatalf("placement %+v", p)
	}
	argv := p.Server.argv("/usr/sbin/mariadbd", []string{"--defaults-file=/x/my.cnf"})
	want := "/usr/bin/numactl --interleave=all /usr/bin/taskset -c 1 /usr/sbin/mariadbd --defaults-file=/x/my.cnf"
	if strings.Join(argv, " ") != want {
		t.Fatalf("argv %q, want %q", argv, want)
	}
	cmd := p.Server.Command("/usr/sbin/mariadbd")
	n := 0
	for _, e := range cmd.Env {
		if strings.HasPrefix(e, "LD_PRELOAD=") {
			n++
			if e != "LD_PRELOAD=/lib/tc.so" {
				t.Fatalf("env %q", e)
			}
		}
	}
	if n != 1 {
		t.Fatalf("%d LD_PRELOAD entries", n)
	}
	f4 := f
	f4.Cores = 4
	p, _ = PlacementFor(space.Config{"cpu_placement": "split"}, f4)
	if p.Bench.CPUs != "0-1" || p.Server.CPUs != "2-3" {
		t.Fatalf("4 cores: %+v", p)
	}
	if p, err := PlacementFor(space.Config{}, Facilities{}); err != nil || p.Server.Preload != "" || p.TCP {
		t.Fatalf("defaults: %+v %v", p, err)
	}
	for _, bad := range []space.Config{{"allocator": "jemalloc"}, {"cpu_placement": "split", "allocator": "system"}, {"benchmark_connection": "pipe"}} {
		if _, err := PlacementFor(bad, Facilities{Cores: 1}); err == nil {
			t.Errorf("%v: want an error", bad)
		}
	}
}

// TestProbeReadsLiveServer starts the machine's server on a fresh datadir
// and checks what Variables reads. With -update it rewrites the server
// description the space tests use; otherwise, when the live version is the
// recorded one, the knob-relevant variables must match it.
func TestProbeReadsLiveServer(t *testing.T) {
	realtest.Require(t)
	ctx := context.Background()
	bin, err := FindServer(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	infos, err := Probe(ctx, t.TempDir(), bin)
	if err != nil {
		t.Fatal(err)
	}
	info := infos[0]
	bp, ok := info.Vars["innodb_buffer_pool_size"]
	if !ok || !bp.HasRange || bp.Value == "" || !bp.ReadOnlyKnown {
		t.Fatalf("innodb_buffer_pool_size: %+v", bp)
	}
	if info.Version.IsZero() || info.VersionText == "" {
		t.Fatalf("version: %+v", info)
	}
	if sbUpdate() {
		b, _ := json.MarshalIndent(info, "", " ")
		if err := os.MkdirAll(filepath.Dir(serverInfoGolden), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(serverInfoGolden, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	b, err := os.ReadFile(serverInfoGolden)
	if err != nil {
		t.Fatal(err)
	}
	var rec space.ServerInfo
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatal(err)
	}
	if rec.VersionText != info.VersionText {
		t.Skipf("live server %s, recorded %s: nothing to compare", info.VersionText, rec.VersionText)
	}
	for _, k := range space.Catalogue() {
		for _, name := range []string{k.Name, "tx_isolation"} {
			a, inA := rec.Vars[name]
			b, inB := info.Vars[name]
			if inA != inB || (inA && (a.Value != b.Value || a.ReadOnly != b.ReadOnly || a.Min != b.Min || a.Max != b.Max)) {
				t.Errorf("%s: recorded %+v, live %+v", name, a, b)
			}
		}
	}
}
