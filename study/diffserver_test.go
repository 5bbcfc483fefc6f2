package study

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autotune/autotune/internal/golden"
	"github.com/autotune/autotune/report"
	"github.com/autotune/autotune/space"
	"github.com/autotune/autotune/study/result"
)

// fakeServer is what a server answers to runner.Existing.VariableInfo: of
// all its variables, the ones asked for.
func fakeServer(all map[string]space.ServerVar, asked []string) map[string]space.ServerVar {
	out := map[string]space.ServerVar{}
	for _, n := range asked {
		if sv, ok := all[n]; ok {
			sv.Name = n
			out[n] = sv
		}
	}
	return out
}

// rw and ro are variables of a server that says whether SET GLOBAL can
// change them (MariaDB); mysqlVar one that does not (MySQL).
func rw(v string) space.ServerVar { return space.ServerVar{Value: v, ReadOnlyKnown: true} }
func ro(v string) space.ServerVar {
	return space.ServerVar{Value: v, ReadOnly: true, ReadOnlyKnown: true}
}
func mysqlVar(v string) space.ServerVar { return space.ServerVar{Value: v} }

// TestServerDiffGolden runs option files and a trial through the
// comparison of `autotune diff --dsn` and its rendering, against servers
// that answer like MariaDB 10.11 and MySQL 8.0.36: sizes, booleans, enum
// case, dashes, loose- and skip-/enable- prefixes, the server's own
// variable and option names, variables the catalogue does not know, and
// dynamic against restart, as the server or the catalogue tells.
func TestServerDiffGolden(t *testing.T) {
	mariadb := map[string]space.ServerVar{
		"innodb_buffer_pool_size":    rw("134217728"),
		"innodb_log_file_size":       rw("100663296"),
		"innodb_doublewrite":         ro("ON"),
		"innodb_adaptive_hash_index": rw("OFF"),
		"innodb_flush_method":        ro("O_DIRECT"),
		"innodb_change_buffering":    rw("none"),
		"innodb_io_capacity":         rw("200"),
		"innodb_log_buffer_size":     ro("16777216"),
		"max_connections":            rw("151"),
		"max_allowed_packet":         rw("16777216"),
		"innodb_adaptive_flushing":   rw("ON"),
		"tx_isolation":               rw("REPEATABLE-READ"),
		"transaction_isolation":      rw("REPEATABLE-READ"),
		"innodb_max_dirty_pages_pct": rw("90.000000"),
		"performance_schema":         ro("OFF"),
		"innodb_file_per_table":      rw("ON"),
		"character_set_server":       rw("utf8mb4"),
		"innodb_purge_threads":       ro("4"),
	}
	mysql := map[string]space.ServerVar{
		"innodb_redo_log_capacity":        mysqlVar("104857600"),
		"transaction_isolation":           mysqlVar("REPEATABLE-READ"),
		"max_connections":                 mysqlVar("151"),
		"innodb_log_buffer_size":          mysqlVar("16777216"),
		"log_bin_trust_function_creators": mysqlVar("OFF"),
		"innodb_stats_on_metadata":        mysqlVar("OFF"),
		"innodb_buffer_pool_size":         mysqlVar("134217728"),
	}
	cases := []struct {
		name, version, comment string
		file                   string
		params                 space.Config
		server                 map[string]space.ServerVar
	}{
		{name: "mariadb", version: "10.11.6-MariaDB", file: "diffserver-mariadb.cnf", server: mariadb},
		{name: "mysql", version: "8.0.36", comment: "MySQL Community Server - GPL", file: "diffserver-mysql.cnf", server: mysql},
		// A trial of a study that searched the redo log as files × size,
		// against MySQL 8.0.36 (one innodb_redo_log_capacity), with an
		// environment knob no server variable stands for.
		{name: "trial-mysql", version: "8.0.36", comment: "MySQL Community Server - GPL", server: mysql, params: space.Config{
			"innodb_log_file_size": "536870912", "innodb_log_files_in_group": "2", "innodb_buffer_pool_size": "134217728",
			"allocator": "jemalloc", "transaction_isolation": "READ-COMMITTED"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v, err := space.ParseVersion(c.version, c.comment)
			if err != nil {
				t.Fatal(err)
			}
			d := result.ServerDiff{Server: "app@unix(/run/mysqld/mysqld.sock)/", Version: c.version}
			var wants []wanted
			if c.file != "" {
				of, err := readOptionFileFor(filepath.Join("testdata", c.file), v)
				if err != nil {
					t.Fatal(err)
				}
				wants = fileWants(of.Effective(space.ServerGroups(v)))
				d.Against = "testdata/" + c.file
			} else {
				wants = trialWants(space.ForServer(c.params, v))
				d.Against = `trial 7 of study "s" (sampled) in trials.db`
			}
			asked := queryNames(wants, v)
			for _, n := range asked {
				if !isIdent(n) {
					t.Errorf("asked the server about %q", n)
				}
			}
			d.Rows, d.NotCompared, d.Notes = compareServer(wants, fakeServer(c.server, asked), v)
			var out bytes.Buffer
			report.WriteServerDiff(&out, d)
			golden.Check(t, "diffserver-"+c.name+".golden", out.Bytes())
		})
	}
}

// TestServerDiffNormalisation checks single comparisons the golden files
// cover in bulk, so a regression names its case.
func TestServerDiffNormalisation(t *testing.T) {
	v := space.Version{Flavor: space.MariaDB, Major: 10, Minor: 11, Patch: 6}
	cases := []struct {
		name, value string
		hasValue    bool
		server      map[string]space.ServerVar
		differs     bool
		change      string
		variable    string
	}{
		{"innodb_buffer_pool_size", "128M", true, map[string]space.ServerVar{"innodb_buffer_pool_size": rw("134217728")}, false, result.ChangeDynamic, "innodb_buffer_pool_size"},
		{"innodb_buffer_pool_size", "0.125G", true, map[string]space.ServerVar{"innodb_buffer_pool_size": rw("134217728")}, true, result.ChangeDynamic, "innodb_buffer_pool_size"},
		{"innodb_doublewrite", "true", true, map[string]space.ServerVar{"innodb_doublewrite": ro("ON")}, false, result.ChangeRestart, "innodb_doublewrite"},
		{"innodb_doublewrite", "0", true, map[string]space.ServerVar{"innodb_doublewrite": ro("ON")}, true, result.ChangeRestart, "innodb_doublewrite"},
		{"innodb_doublewrite", "yes", true, map[string]space.ServerVar{"innodb_doublewrite": ro("OFF")}, false, result.ChangeRestart, "innodb_doublewrite"}, // my_getopt: OFF
		{"skip_innodb_doublewrite", "", false, map[string]space.ServerVar{"innodb_doublewrite": ro("ON")}, true, result.ChangeRestart, "innodb_doublewrite"},
		{"disable_innodb_doublewrite", "", false, map[string]space.ServerVar{"innodb_doublewrite": ro("OFF")}, false, result.ChangeRestart, "innodb_doublewrite"},
		{"innodb_flush_method", "fsync", true, map[string]space.ServerVar{"innodb_flush_method": ro("FSYNC")}, false, result.ChangeRestart, "innodb_flush_method"},
		{"transaction_isolation", "READ-COMMITTED", true, map[string]space.ServerVar{"tx_isolation": rw("READ-COMMITTED")}, false, result.ChangeDynamic, "tx_isolation"},
		{"max_connections", "1K", true, map[string]space.ServerVar{"max_connections": rw("1024")}, false, result.ChangeDynamic, "max_connections"},
		{"max_connections", "1000", true, map[string]space.ServerVar{"max_connections": mysqlVar("1024")}, true, result.ChangeUnknown, "max_connections"},
		{"sql_mode", "strict_trans_tables", true, map[string]space.ServerVar{"sql_mode": rw("STRICT_TRANS_TABLES")}, false, result.ChangeDynamic, "sql_mode"},
	}
	for _, c := range cases {
		w := wanted{name: c.name, value: c.value, hasValue: c.hasValue, at: "f line 1"}
		if !c.hasValue {
			w.value = "ON" // space.Option.Setting of a valueless option
		}
		rows, skipped, _ := compareServer([]wanted{w}, fakeServer(c.server, queryNames([]wanted{w}, v)), v)
		if len(rows) != 1 {
			t.Errorf("%s = %s: rows %v, not compared %v", c.name, c.value, rows, skipped)
			continue
		}
		r := rows[0]
		if r.Differs != c.differs || r.Change != c.change || r.Variable != c.variable {
			t.Errorf("%s = %s against %v: differs %v, change %s, variable %s; want %v, %s, %s", c.name, c.value, c.server, r.Differs, r.Change, r.Variable, c.differs, c.change, c.variable)
		}
	}
	// A skip- prefix on a variable that is not a boolean is not read as one.
	w := wanted{name: "skip_max_connections", value: "ON", at: "f line 2"}
	rows, skipped, _ := compareServer([]wanted{w}, fakeServer(map[string]space.ServerVar{"max_connections": rw("151")}, queryNames([]wanted{w}, v)), v)
	if len(rows) != 0 || len(skipped) != 1 || !strings.Contains(skipped[0], "not a system variable") {
		t.Errorf("skip-max-connections: rows %v, not compared %v", rows, skipped)
	}
}
