package spacefile

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autotune/autotune/space"
)

func serverInfo(t *testing.T) *space.ServerInfo {
	t.Helper()
	b, err := os.ReadFile("../testdata/serverinfo-mariadb-10.11.19.json")
	if err != nil {
		t.Fatal(err)
	}
	var info space.ServerInfo
	if err := json.Unmarshal(b, &info); err != nil {
		t.Fatal(err)
	}
	return &info
}

func resolve(t *testing.T, r *space.Rules) (*space.Space, error) {
	t.Helper()
	return space.Resolve(space.Catalogue(), space.Env{Server: serverInfo(t), Cores: 2, Taskset: true,
		Allocators: map[string]string{"tcmalloc": "/lib/libtcmalloc_minimal.so.4"}, Rules: r})
}

func status(sp *space.Space, name string) space.Entry {
	for _, e := range sp.Entries() {
		if e.Knob.Name == name {
			return e
		}
	}
	return space.Entry{}
}

func TestParseAndApply(t *testing.T) {
	src := `# narrow, fix, pick
include = ["innodb_*", "transaction_isolation"]
exclude = ["innodb_change_buffering"]

[knobs.innodb_buffer_pool_size]
min = "256M"
max = "2G"

[knobs.innodb_io_capacity]
fixed = 2000

[knobs.innodb_flush_method]
choices = ["fsync", "O_DIRECT"]

[knobs.innodb_adaptive_hash_index]
choices = [true]

[knobs.innodb_max_dirty_pages_pct]
min = 50.5
`
	r, err := Parse("t.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if r.Knobs["innodb_io_capacity"].Fixed != "2000" || r.Knobs["innodb_buffer_pool_size"].Line != 5 || r.Knobs["innodb_adaptive_hash_index"].Choices[0] != "ON" {
		t.Fatalf("rules %+v", r.Knobs)
	}
	sp, err := resolve(t, r)
	if err != nil {
		t.Fatal(err)
	}
	if e := status(sp, "innodb_buffer_pool_size"); e.Status != space.Tunable || e.Knob.Range() != "256M..2G (log)" {
		t.Errorf("buffer pool: %s %s", e.Status, e.Knob.Range())
	}
	if e := status(sp, "innodb_io_capacity"); e.Status != space.Pinned || e.Value != "2000" || !strings.Contains(e.Reason, "t.toml line 9") {
		t.Errorf("io capacity: %+v", e)
	}
	if e := status(sp, "innodb_flush_method"); strings.Join(e.Knob.Choices, " ") != "fsync O_DIRECT" {
		t.Errorf("flush method choices %v", e.Knob.Choices)
	}
	if e := status(sp, "innodb_adaptive_hash_index"); e.Status != space.Pinned || e.Value != "ON" {
		t.Errorf("one choice pins: %+v", e)
	}
	if e := status(sp, "innodb_max_dirty_pages_pct"); e.Knob.Min != 50.5 || e.Knob.Max != 99 {
		t.Errorf("max dirty range %s", e.Knob.Range())
	}
	for _, n := range []string{"innodb_change_buffering", "allocator", "query_cache_size"} {
		if e := status(sp, n); e.Status != space.Excluded {
			t.Errorf("%s: %s, want excluded", n, e.Status)
		}
	}
	// Durability pins are untouched by include lists.
	if e := status(sp, "innodb_doublewrite"); e.Status != space.Pinned {
		t.Errorf("doublewrite %s", e.Status)
	}
	if got := sp.Fixed()["innodb_io_capacity"]; got != "2000" {
		t.Errorf("Fixed = %v", sp.Fixed())
	}
}

func TestErrorsNameFileAndLine(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"syntax", "include = [\"a\"\n[knobs.x\n", "bad.toml line 2"},
		{"unknown top key", "inclde = [\"innodb_*\"]\n", `bad.toml line 1: unknown key "inclde"`},
		{"unknown knob key", "[knobs.innodb_io_capacity]\nmaxx = 5\n", `line 2: unknown key "knobs.innodb_io_capacity.maxx"`},
		{"wrong type", "[knobs.innodb_io_capacity]\nmin = [1]\n", "knobs.innodb_io_capacity.min"},
		{"empty choices", "[knobs.innodb_flush_method]\nchoices = []\n", "choices is empty"},
		{"empty rule", "[knobs.innodb_flush_method]\n", "has no min, max, choices or fixed"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("bad.toml", []byte(tc.src))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

func TestResolveErrors(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"unknown knob", "[knobs.innodb_buffer_pool]\nmax = \"1G\"\n", `line 1: unknown knob "innodb_buffer_pool"`},
		{"pattern matches nothing", "include = [\"mysql_*\"]\n", `"mysql_*" matches no knob`},
		{"widening", "[knobs.innodb_buffer_pool_size]\nmax = \"64G\"\n", "lies outside the range searched on this server"},
		{"unsupported knob", "[knobs.innodb_thread_concurrency]\nfixed = 8\n", "removed in MariaDB 10.6.0"},
		{"durability pin", "[knobs.innodb_flush_log_at_trx_commit]\nfixed = 2\n", "--durability strict"},
		{"bad choice", "[knobs.innodb_flush_method]\nchoices = [\"nosync\"]\n", `choice "nosync"`},
		{"choice the server lacks", "[knobs.allocator]\nchoices = [\"jemalloc\"]\n", "not offered on this server"},
		{"min above max", "[knobs.innodb_purge_threads]\nmin = 8\nmax = 4\n", "min 8 above max 4"},
		{"choices on a number", "[knobs.innodb_purge_threads]\nchoices = [1, 2]\n", "takes min and max"},
		{"fixed outside server range", "[knobs.innodb_old_blocks_pct]\nfixed = 99\n", "outside 5..95"},
		{"rule on excluded knob", "exclude = [\"innodb_*\"]\n[knobs.innodb_purge_threads]\nmax = 4\n", "excluded"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Parse("s.toml", []byte(tc.src))
			if err != nil {
				t.Fatal(err)
			}
			_, err = resolve(t, r)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "s.toml") {
				t.Fatalf("err = %v, want %q naming the file", err, tc.want)
			}
		})
	}
}

// TestExamples: every space file under examples/ loads and resolves
// against the machine's MariaDB.
func TestExamples(t *testing.T) {
	files, _ := filepath.Glob("../../examples/*.toml")
	if len(files) == 0 {
		t.Fatal("no examples")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			r, err := Load(f)
			if err != nil {
				t.Fatal(err)
			}
			sp, err := resolve(t, r)
			if err != nil {
				t.Fatal(err)
			}
			if len(sp.Knobs()) == 0 {
				t.Fatal("searches nothing")
			}
			if strings.Contains(f, "dynamic-only") {
				for _, k := range sp.Knobs() {
					if !k.Dynamic || k.Layer != space.LayerServer {
						t.Errorf("%s is not a dynamic server knob", k.Name)
					}
				}
			}
		})
	}
}
