package space

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// redoCase is the field case redo-log-knob-by-flavor, copied unchanged
// from the shared cases: one tuning dimension (the redo log's size)
// spelled innodb_log_file_size (× innodb_log_files_in_group) or
// innodb_redo_log_capacity by flavour and version.
const redoCase = "testdata/redo-log-knob-by-flavor"

// TestRedoCapacityByFlavor: the redo log's size is one knob, resolved on
// each server to the variable that sizes it there, written (trial option
// file, export) in that server's spelling, never in both families; the
// file count is searched only where it exists and counts.
func TestRedoCapacityByFlavor(t *testing.T) {
	for _, tc := range []struct {
		v Version
		// vars are the redo variables the server lists (observed-variables.txt
		// for MariaDB 10.5 and 10.6; the expected.md table for the others).
		vars           []string
		option, files  string // the redo knob's option; the file count's status
		otherFamilyOff bool
	}{
		{Version{MariaDB, 10, 5, 29}, []string{"innodb_log_file_size", "innodb_log_files_in_group"}, "innodb_log_file_size", "unsupported", true},
		{Version{MariaDB, 10, 6, 28}, []string{"innodb_log_file_size"}, "innodb_log_file_size", "unsupported", true},
		{Version{MariaDB, 10, 11, 19}, []string{"innodb_log_file_size"}, "innodb_log_file_size", "unsupported", true},
		{Version{MariaDB, 11, 4, 2}, []string{"innodb_log_file_size"}, "innodb_log_file_size", "unsupported", true},
		{Version{MySQL, 5, 7, 44}, []string{"innodb_log_file_size", "innodb_log_files_in_group"}, "innodb_log_file_size", "tunable", true},
		{Version{MySQL, 8, 0, 29}, []string{"innodb_log_file_size", "innodb_log_files_in_group"}, "innodb_log_file_size", "tunable", true},
		{Version{MySQL, 8, 0, 36}, []string{"innodb_log_file_size", "innodb_log_files_in_group", "innodb_redo_log_capacity"}, "innodb_redo_log_capacity", "unsupported", true},
		{Version{MySQL, 8, 4, 3}, []string{"innodb_log_file_size", "innodb_log_files_in_group", "innodb_redo_log_capacity"}, "innodb_redo_log_capacity", "unsupported", true},
		{Version{MySQL, 9, 1, 0}, []string{"innodb_redo_log_capacity"}, "innodb_redo_log_capacity", "unsupported", true},
	} {
		info := ServerInfo{Version: tc.v, VersionText: tc.v.String(), Vars: map[string]ServerVar{}}
		for _, n := range tc.vars {
			info.Vars[n] = ServerVar{Name: n, Value: "100663296", Default: "100663296", Type: "BIGINT UNSIGNED"}
		}
		if tc.files == "tunable" {
			info.Vars["innodb_log_files_in_group"] = ServerVar{Name: "innodb_log_files_in_group", Value: "2", Default: "2", Type: "BIGINT UNSIGNED"}
		}
		es, sp := entries(t, Env{Server: &info, Durability: Relaxed})
		e := es["innodb_log_file_size"]
		if e.Status != Tunable || e.Variable != tc.option {
			t.Errorf("%s: the redo knob is %s as %q (%s), want tunable as %s", tc.v, e.Status, e.Variable, e.Reason, tc.option)
		}
		if got := string(es["innodb_log_files_in_group"].Status); got != tc.files {
			t.Errorf("%s: innodb_log_files_in_group %s (%s), want %s", tc.v, got, es["innodb_log_files_in_group"].Reason, tc.files)
		}
		if got := OptionName("innodb_log_file_size", tc.v); got != tc.option {
			t.Errorf("%s: OptionName %s, want %s", tc.v, got, tc.option)
		}
		var b bytes.Buffer
		if err := sp.WriteOptions(&b, Config{"innodb_log_file_size": "2147483648"}); err != nil {
			t.Fatal(err)
		}
		if want := tc.option + " = 2G\n"; b.String() != want {
			t.Errorf("%s: option file %q, want %q", tc.v, b.String(), want)
		}
	}

	// A study of MySQL 8.0.30+ that searched the older spelling (each of
	// innodb_log_files_in_group files) is written as the capacity it made.
	old := Config{"innodb_log_file_size": "536870912", "innodb_log_files_in_group": "2", "innodb_io_capacity": "2000"}
	got := ForServer(old, Version{MySQL, 8, 0, 36})
	if got["innodb_log_file_size"] != "1073741824" || got["innodb_log_files_in_group"] != "" || got["innodb_io_capacity"] != "2000" || old["innodb_log_files_in_group"] != "2" {
		t.Errorf("ForServer on MySQL 8.0.36: %v (from %v)", got, old)
	}
	if got := ForServer(old, Version{MySQL, 8, 0, 29}); got["innodb_log_file_size"] != "536870912" || got["innodb_log_files_in_group"] != "2" {
		t.Errorf("ForServer on MySQL 8.0.29 changed %v", got)
	}

	// The server's own lines about the old knobs are caught, so a trial
	// that set them fails instead of measuring a configuration it did not
	// run.
	lines, err := os.ReadFile(filepath.Join(redoCase, "mysql-8.0-error-log-lines.txt"))
	if err != nil {
		t.Fatal(err)
	}
	dep := Deprecations(string(lines))
	for _, n := range []string{"innodb_log_file_size", "innodb_log_files_in_group"} {
		if !strings.Contains(strings.ToLower(dep[n]), "deprecated") {
			t.Errorf("Deprecations: %s: %q, want the server's line", n, dep[n])
		}
	}
	mariadb := "2026-12-06 19:25:38 0 [Warning] 'innodb-log-files-in-group' was removed. It does nothing now and exists only for compatibility with old my.cnf files.\n" +
		"2026-12-06 19:25:38 0 [Warning] The parameter innodb_log_checksums is deprecated and has no effect.\n"
	dep = Deprecations(mariadb)
	if dep["innodb_log_files_in_group"] == "" || dep["innodb_log_checksums"] == "" || len(dep) != 2 {
		t.Errorf("Deprecations of MariaDB's lines: %v", dep)
	}
	if len(Deprecations("2026-12-06 19:25:38 0 [Note] InnoDB: Resizing redo log from 96.000MiB to 2.000GiB\n")) != 0 {
		t.Error("a note about the redo log read as a deprecation")
	}
}
