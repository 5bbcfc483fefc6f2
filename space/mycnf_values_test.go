package space

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autotune/autotune/internal/golden"
)

// mycnf-quotes-inline-comments: every value read as the server reads it
// (not refused, not "cleaned"), lint findings for values that look like
// mistakes, values written back so that they read back the same, and
// comments kept by an edit.
func TestMycnfQuotesInlineComments(t *testing.T) {
	dir := caseFile("mycnf-quotes-inline-comments")
	path := filepath.Join(dir, "my.cnf")
	of, err := ReadOptionFile(path, ReadOptions{})
	if err != nil {
		t.Fatalf("the server reads this file; so must the reader: %v", err)
	}
	byGroup := map[string]Option{}
	for _, o := range of.Options {
		byGroup[o.Group+"/"+o.Name] = o
	}

	// Rule 1: exactly the values of expected-values.tsv; rule 2: a lint
	// finding where its notes say LINT, of that severity, and none
	// elsewhere.
	lintAt := map[int][]Lint{}
	for _, l := range of.Lint {
		lintAt[l.Line] = append(lintAt[l.Line], l)
	}
	rows := readTSV(t, filepath.Join(dir, "expected-values.tsv"))
	if len(rows) != 10 {
		t.Fatalf("expected-values.tsv: %d rows, want 10", len(rows))
	}
	linted := 0
	for _, row := range rows {
		want := strings.NewReplacer("<LF>", "\n", "<TAB>", "\t").Replace(row["value_as_server_sees_it"])
		o, ok := byGroup[row["group"]+"/"+row["option"]]
		if !ok {
			t.Errorf("[%s] %s: not read", row["group"], row["option"])
			continue
		}
		if o.Value != want {
			t.Errorf("[%s] %s = %q, want %q (what the server receives)", row["group"], row["option"], o.Value, want)
		}
		notes := row["notes"]
		got := lintAt[o.Line]
		switch {
		case strings.Contains(notes, "LINT ERROR"):
			linted++
			if len(got) != 1 || got[0].Severity != LintError {
				t.Errorf("%s: lint %v, want one error", row["option"], got)
			}
		case strings.Contains(notes, "LINT WARNING"):
			linted++
			if len(got) != 1 || got[0].Severity != LintWarning {
				t.Errorf("%s: lint %v, want one warning", row["option"], got)
			}
		default:
			if len(got) != 0 {
				t.Errorf("%s: unexpected lint %v", row["option"], got)
			}
		}
	}
	if linted != 4 || len(of.Lint) != 4 {
		t.Errorf("%d lint findings for %d expected: %v", len(of.Lint), linted, of.Lint)
	}
	var lint bytes.Buffer
	for _, l := range of.Lint {
		lint.WriteString(l.String() + "\n")
	}
	golden.Check(t, "mycnf/mycnf-quotes-inline-comments/lint.golden", lint.Bytes())
}

// FormatOptionValue round trip: whatever the value, the reader (like the
// server) reads back what was written, also with a comment after it.
func TestFormatOptionValueRoundTrip(t *testing.T) {
	values := []string{
		"", "1G", "p#ss", " lead", "trail ", "\tboth\t", `a"b`, "it's", `'x'`, `"x"`, `C:\new\table.txt`,
		`\`, `a\`, "x;y", "utf8mb4;", "#", "line\nbreak", `prompt=[\h]\u@\d`, "O_DIRECT", "ibdata1:12M:autoextend",
		`"pc.ignore_sb=true";`, "back\\slash\\n", "\b\r",
	}
	for _, v := range values {
		for _, tail := range []string{"", "   # a comment"} {
			line := "name = " + FormatOptionValue(v) + tail
			p := filepath.Join(t.TempDir(), "f.cnf")
			if err := os.WriteFile(p, []byte("[mysqld]\n"+line+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			of, err := ReadOptionFile(p, ReadOptions{})
			if err != nil || len(of.Options) != 1 || of.Options[0].Value != v {
				t.Errorf("%q written as %q reads back as %+v (%v)", v, line, of, err)
				continue
			}
			// Only values that are odd themselves (a control character,
			// a trailing ';') are linted, never the writer's quoting.
			if odd := strings.ContainsAny(v, "\n\t\r\b") || strings.HasSuffix(v, ";") && !strings.HasPrefix(v, `"`); len(of.Lint) != 0 && !odd {
				t.Errorf("%q written as %q: the writer's own output is linted: %v", v, line, of.Lint)
			}
		}
	}
	for v, want := range map[string]string{"1G": "1G", "p#ss": `"p#ss"`, " x": `" x"`, `a\b`: `"a\\b"`} {
		if got := FormatOptionValue(v); got != want {
			t.Errorf("FormatOptionValue(%q) = %s, want %s", v, got, want)
		}
	}
}

// mycnf-version-specific-groups: which groups each target reads, the
// effective values in file order, client groups kept out, unknown options
// flagged, and a note when only other versions' groups set an option.
func TestMycnfVersionSpecificGroups(t *testing.T) {
	dir := caseFile("mycnf-version-specific-groups")
	of, err := ReadOptionFile(filepath.Join(dir, "my.cnf"), ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	targets := map[string]Version{}
	var order []string
	for _, row := range readTSV(t, filepath.Join(dir, "targets.tsv")) {
		v, err := ParseVersion(row["version_string"], "")
		if err != nil {
			t.Fatal(err)
		}
		targets[row["target"]] = v
		order = append(order, row["target"])
	}
	if len(order) != 4 {
		t.Fatalf("targets.tsv: %v", order)
	}

	// Rule 1: the read set from flavor and exact major.minor.
	wantGroups := map[string][]string{
		"A": {"mysqld", "server", "mysqld-8.0"},
		"B": {"mysqld", "server", "mysqld-8.4"},
		"C": {"mysqld", "server", "mysqld-10.3", "mariadb", "mariadb-10.3", "client-server", "galera"},
		"D": {"mysqld", "server", "mysqld-10.11", "mariadb", "mariadb-10.11", "client-server", "galera"},
	}
	for tg, want := range wantGroups {
		got := map[string]bool{}
		for _, g := range ServerGroups(targets[tg]) {
			got[g] = true
		}
		for _, g := range want {
			if !got[g] {
				t.Errorf("target %s (%s): [%s] not read", tg, targets[tg], g)
			}
		}
		for g := range got {
			if m := versionGroup.FindStringSubmatch(g); m != nil && !strings.HasSuffix(g, fmtMM(targets[tg])) {
				t.Errorf("target %s: reads a group of another version [%s]", tg, g)
			}
		}
	}

	// Rules 2 and 3: expected-effective.tsv, in file order; [mysqld_safe]
	// and [client] never leak in.
	col := map[string]string{"A": "A_mysql_8.0.36", "B": "B_mysql_8.4.0", "C": "C_mariadb_10.3.39", "D": "D_mariadb_10.11.6"}
	info := mariadb1011(t) // the MariaDB variables stand in for both MariaDB targets
	for _, tg := range order {
		eff := map[string]Option{}
		for _, o := range of.Effective(ServerGroups(targets[tg])) {
			eff[o.Name] = o
		}
		for _, row := range readTSV(t, filepath.Join(dir, "expected-effective.tsv")) {
			want := strings.Fields(row[col[tg]])[0]
			for _, name := range strings.Split(strings.Fields(row["option"])[0], "/") {
				name = strings.ReplaceAll(strings.TrimSpace(name), "-", "_")
				if name == "" {
					continue
				}
				o, ok := eff[name]
				switch {
				case want == "-" && ok:
					t.Errorf("target %s: %s = %q from [%s], want not set by this file", tg, name, o.Setting(), o.Group)
				case want != "-" && !ok:
					t.Errorf("target %s: %s not set, want %s", tg, name, want)
				case want != "-" && !sameSetting(o.Setting(), want):
					t.Errorf("target %s: %s = %q from [%s], want %s", tg, name, o.Setting(), o.Group, want)
				}
			}
		}
		// Rule 4: gtid_mode is unknown to MariaDB and not loose-: the
		// server would abort at start.
		if targets[tg].Flavor == MariaDB {
			known := func(n string) bool { _, ok := info.Vars[n]; return ok || n == "socket" }
			fatal, _ := UnknownOptions(of.Effective(ServerGroups(targets[tg])), known)
			if len(fatal) != 1 || !strings.Contains(fatal[0], "gtid_mode: unknown variable") {
				t.Errorf("target %s: fatal %v, want gtid_mode", tg, fatal)
			}
		}
	}

	// Rule 5: a note for every target whose file holds other versions'
	// groups; for 8.4 it says none is for this version, and that
	// max_connections = 400 does not apply (this server gets 200).
	var notes bytes.Buffer
	for _, tg := range order {
		for _, n := range of.OtherVersionGroups(targets[tg]) {
			notes.WriteString(tg + ": " + n + "\n")
		}
	}
	golden.Check(t, "mycnf/mycnf-version-specific-groups/other-version-groups.golden", notes.Bytes())
	b := strings.Join(of.OtherVersionGroups(targets["B"]), "\n")
	for _, want := range []string{"a group this file does not have", "[mysqld-8.0] max_connections = 400", "this server gets 200", "[mysqld-5.7] expire_logs_days = 10"} {
		if !strings.Contains(b, want) {
			t.Errorf("target B note %q lacks %q", b, want)
		}
	}
	if a := strings.Join(of.OtherVersionGroups(targets["A"]), "\n"); strings.Contains(a, "does not have") || strings.Contains(a, "[mysqld-8.0] ") {
		t.Errorf("target A reads [mysqld-8.0]: %q", a)
	}

	// Rule 6: the candidate goes to [mysqld], which every target reads;
	// WriteOptions writes no group header of its own.
	for tg, v := range targets {
		if ServerGroups(v)[0] != "mysqld" {
			t.Errorf("target %s does not read [mysqld]", tg)
		}
	}
	var w bytes.Buffer
	sp := Default()
	if err := sp.WriteOptions(&w, Config{"innodb_buffer_pool_size": "1073741824"}); err != nil || strings.Contains(w.String(), "[") {
		t.Errorf("WriteOptions: %q %v", w.String(), err)
	}
}

func fmtMM(v Version) string { return fmt.Sprintf("-%d.%d", v.Major, v.Minor) }

// sameSetting compares an option's value with an expected one, booleans
// by meaning (the server reads skip-name-resolve = 1 as ON).
func sameSetting(got, want string) bool {
	if got == want {
		return true
	}
	on := map[string]bool{"1": true, "ON": true, "TRUE": true}
	return on[strings.ToUpper(got)] && on[strings.ToUpper(want)]
}
