package space

import (
	"bufio"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The cases under testdata/mycnf are built from option files and server
// output reported in the field; each expected.md cites the public reports
// and says what a reader must do.
const mycnfCases = "testdata/mycnf"

func caseFile(name string) string { return filepath.Join(mycnfCases, name) }

var maria = Version{Flavor: MariaDB, Major: 10, Minor: 11, Patch: 19}

func effective(t *testing.T, of *OptionFile) map[string]Option {
	t.Helper()
	m := map[string]Option{}
	for _, o := range of.Effective(ServerGroups(maria)) {
		m[o.Name] = o
	}
	return m
}

// mycnf-includedir-selection, scenario A: include order, file selection,
// a missing !include skipped, the value after !includedir winning.
func TestMycnfIncludedirSelection(t *testing.T) {
	root := caseFile("mycnf-includedir-selection")
	main := filepath.Join(root, "etc/mysql/my.cnf")
	for _, tc := range []struct {
		name      string
		firstDot  bool
		maxConn   string
		siteLocal bool
	}{
		{"last-dot extension (MySQL 8.0, current MariaDB)", false, "500", true},
		{"first-dot extension (MySQL 5.7)", true, "300", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			of, err := ReadOptionFile(main, ReadOptions{Root: root, FirstDotExtension: tc.firstDot})
			if err != nil {
				t.Fatal(err)
			}
			eff := effective(t, of)
			for name, want := range map[string]string{"innodb_buffer_pool_size": "512M", "innodb_flush_log_at_trx_commit": "2", "max_connections": tc.maxConn, "datadir": "/var/lib/mysql"} {
				if got := eff[name].Value; got != want {
					t.Errorf("%s = %q, want %q", name, got, want)
				}
			}
			if n, _ := ParseBytes(eff["innodb_buffer_pool_size"].Value); n != 536870912 {
				t.Errorf("buffer pool %d bytes", n)
			}
			read := map[string]bool{}
			for _, o := range of.Options {
				read[filepath.Base(o.File)] = true
			}
			for _, never := range []string{"my.cnf.local", "40-old.cnf.bak", "README"} {
				if read[never] {
					t.Errorf("%s must never be read", never)
				}
			}
			if read["30-site.local.cnf"] != tc.siteLocal {
				t.Errorf("30-site.local.cnf read = %v, want %v", read["30-site.local.cnf"], tc.siteLocal)
			}
			notes := strings.Join(of.Notes, "\n")
			if !strings.Contains(notes, "tuner-override.cnf: no such file, skipped") {
				t.Errorf("notes %q: the missing !include must be reported, not fatal", notes)
			}
			red := strings.Join(of.Redefined(ServerGroups(maria)), "\n")
			if tc.siteLocal && !strings.Contains(red, "max_connections: 10-base.cnf (line 3), 30-site.local.cnf (line 2)") {
				t.Errorf("Redefined = %q: max_connections is order-dependent", red)
			}
		})
	}
}

// Scenario B: an included file without a group header is fatal, named by
// file and line. Scenario C: a missing include directory is fatal.
func TestMycnfIncludedirErrors(t *testing.T) {
	src := caseFile("mycnf-includedir-selection")
	root := t.TempDir()
	copyTree(t, filepath.Join(src, "etc"), filepath.Join(root, "etc"))
	copyTree(t, filepath.Join(src, "scenario-b-conf.d"), filepath.Join(root, "etc/mysql/conf.d"))
	_, err := ReadOptionFile(filepath.Join(root, "etc/mysql/my.cnf"), ReadOptions{Root: root})
	var fe *FileError
	if !errors.As(err, &fe) || !strings.HasSuffix(fe.File, "conf.d/60-nogroup.cnf") || fe.Line != 2 || !strings.Contains(fe.Msg, "option without preceding group") {
		t.Fatalf("scenario B: err = %v", err)
	}

	if err := os.RemoveAll(filepath.Join(root, "etc/mysql/conf.d")); err != nil {
		t.Fatal(err)
	}
	_, err = ReadOptionFile(filepath.Join(root, "etc/mysql/my.cnf"), ReadOptions{Root: root})
	if !errors.As(err, &fe) || !strings.Contains(fe.Msg, "cannot read include directory") {
		t.Fatalf("scenario C: err = %v", err)
	}
}

func copyTree(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.Walk(from, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		dst := filepath.Join(to, rel)
		if info.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// readTSV reads a tab-separated file with a header line into rows of
// column → value.
func readTSV(t *testing.T, path string) []map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	var head []string
	var rows []map[string]string
	for sc.Scan() {
		cols := strings.Split(sc.Text(), "\t")
		if head == nil {
			head = cols
			continue
		}
		row := map[string]string{}
		for i, c := range cols {
			if i < len(head) {
				row[head[i]] = c
			}
		}
		rows = append(rows, row)
	}
	return rows
}

// mycnf-name-normalization-loose: one option under several spellings,
// last wins; loose- prefixes; typos and case caught before launch.
func TestMycnfNameNormalizationLoose(t *testing.T) {
	dir := caseFile("mycnf-name-normalization-loose")
	of, err := ReadOptionFile(filepath.Join(dir, "my.cnf"), ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	eff := effective(t, of)
	info := mariadb1011(t)
	known := func(n string) bool { _, ok := info.Vars[n]; return ok }
	fatal, notes := UnknownOptions(of.Effective(ServerGroups(maria)), known)
	src, _ := os.ReadFile(filepath.Join(dir, "my.cnf"))
	lines := strings.Split(string(src), "\n")
	for _, row := range readTSV(t, filepath.Join(dir, "expected.tsv")) {
		name := strings.ReplaceAll(row["canonical_name"], "-", "_")
		o, ok := eff[name]
		if !ok {
			t.Errorf("%s missing", name)
			continue
		}
		// expected.tsv numbers the lines after the blank line 9 one lower
		// than the file has them (it says 10 for the line 11 holding
		// "innodb_buffer_pool_size = 2G"); the server counts physical
		// lines, so the winning line is checked by its content: the last
		// line of the file that sets this option, under any spelling.
		lastLine := 0
		for i, l := range lines {
			if p, err := parseOptionLine(strings.TrimSpace(l)); err == nil && p.Name == name && !strings.HasPrefix(strings.TrimSpace(l), "#") && !strings.HasPrefix(strings.TrimSpace(l), "[") {
				lastLine = i + 1
			}
		}
		if want, _ := strconv.Atoi(row["line_that_wins"]); o.Line != lastLine || (o.Line != want && o.Line != want+1) {
			t.Errorf("%s: winning line %d, want the last definition %d (expected.tsv: %d)", name, o.Line, lastLine, want)
		}
		switch ev := row["effective_value"]; {
		case strings.HasSuffix(ev, "(loose)"):
			if !o.Loose || o.Value != strings.TrimSuffix(ev, " (loose)") {
				t.Errorf("%s: %+v, want loose %s", name, o, ev)
			}
			if !strings.Contains(strings.Join(notes, "\n"), "line "+row["line_that_wins"]+": "+o.RawName) {
				t.Errorf("%s: not noted as a loose unknown option: %v", name, notes)
			}
		case strings.HasPrefix(ev, "UNKNOWN"):
			if o.Loose || !strings.Contains(strings.Join(fatal, "\n"), "line "+row["line_that_wins"]+": "+o.RawName+": unknown variable") {
				t.Errorf("%s: not flagged fatal before launch: %v", name, fatal)
			}
		default:
			if o.Value != ev {
				t.Errorf("%s = %q, want %q", name, o.Value, ev)
			}
			want, _ := strconv.ParseInt(row["bytes_or_number"], 10, 64)
			if n, err := ParseBytes(o.Value); err != nil || n != want {
				t.Errorf("%s = %d bytes (%v), want %d", name, n, err, want)
			}
		}
	}
	if len(fatal) != 2 {
		t.Errorf("fatal findings %v, want looase-gcf-360 and Max_Connections", fatal)
	}
}

// mycnf-option-before-group: options before any group and a broken group
// header are fatal, with file and line; all findings are reported.
func TestMycnfOptionBeforeGroup(t *testing.T) {
	dir := caseFile("mycnf-option-before-group")
	_, err := ReadOptionFile(filepath.Join(dir, "dot-my.cnf"), ReadOptions{})
	var fe *FileError
	if !errors.As(err, &fe) || fe.Line != 1 || !strings.Contains(fe.Msg, "option without preceding group") || !strings.HasSuffix(fe.File, "dot-my.cnf") {
		t.Fatalf("dot-my.cnf: %v", err)
	}
	if strings.Contains(err.Error(), "PLACEHOLDER") {
		t.Fatal("the error must not echo values (a password)")
	}
	_, err = ReadOptionFile(filepath.Join(dir, "server.cnf"), ReadOptions{})
	if !errors.As(err, &fe) || fe.Line != 2 || !strings.Contains(fe.Msg, "option without preceding group") {
		t.Fatalf("server.cnf: first finding: %v", err)
	}
	if len(fe.More) != 1 || !strings.Contains(fe.More[0], "line 6: wrong group definition") {
		t.Fatalf("server.cnf: further findings %v, want the broken [mysqld_safe header at line 6", fe.More)
	}
}

// mycnf-readback-normalization: requested against effective values,
// classified MATCH / ADJUSTED / CLAMPED / MISMATCH.
func TestMycnfReadbackNormalization(t *testing.T) {
	dir := caseFile("mycnf-readback-normalization")
	of, err := ReadOptionFile(filepath.Join(dir, "candidate.cnf"), ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	eff := map[string]string{}
	for _, r := range readTSV(t, filepath.Join(dir, "show-global-variables.tsv")) {
		eff[r["Variable_name"]] = r["Value"]
	}
	log, _ := os.ReadFile(filepath.Join(dir, "error-log-excerpt.log"))
	warnings := ServerWarnings(string(log))
	got := map[string]Readback{}
	lookup := Lookup()
	for _, o := range of.Effective(ServerGroups(Version{Flavor: MySQL, Major: 8, Minor: 4})) {
		var kp *Knob
		if k, ok := lookup.Knob(o.Name); ok {
			kp = &k
		}
		got[o.Name] = CompareValue(kp, o.Name, o.Setting(), eff[o.Name], warnings)
	}
	for _, row := range readTSV(t, filepath.Join(dir, "expected.tsv")) {
		want := ReadbackStatus(strings.Fields(row["status"])[0])
		r := got[row["variable"]]
		if r.Status != want {
			t.Errorf("%s: %s (requested %q, effective %q), want %s", row["variable"], r.Status, r.Requested, r.Effective, want)
		}
	}
	if w := got["max_connections"].Warning; !strings.Contains(w, "adjusted to 100000") {
		t.Errorf("the server's warning is kept next to the knob: %q", w)
	}
	if w := got["log_slow_extra"].Warning; !strings.Contains(w, "was not recognized. Set to OFF") {
		t.Errorf("log_slow_extra warning %q", w)
	}
}

// mycnf-valueless-flags: flags parse as present without a value, and
// client groups do not leak into the server's view.
func TestMycnfValuelessFlags(t *testing.T) {
	dir := caseFile("mycnf-valueless-flags")
	of, err := ReadOptionFile(filepath.Join(dir, "my.cnf"), ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	eff := effective(t, of)
	for _, flag := range []string{"skip_external_locking", "skip_name_resolve", "log_bin", "innodb_file_per_table"} {
		o, ok := eff[flag]
		if !ok || o.HasValue || o.Value != "" || o.Setting() != "ON" {
			t.Errorf("%s: %+v, want a valueless flag", flag, o)
		}
	}
	for _, leak := range []string{"quick", "quote_names", "no_auto_rehash", "max_allowed_packet", "port"} {
		if _, ok := eff[leak]; ok {
			t.Errorf("%s leaked from a client group into the server's settings", leak)
		}
	}
	if eff["max_connections"].Value != "200" {
		t.Errorf("max_connections %q", eff["max_connections"].Value)
	}
	var all []Option
	for _, o := range of.Options {
		if o.Group == "mysqldump" || o.Group == "mysql" {
			all = append(all, o)
		}
	}
	if len(all) != 4 || all[0].Name != "quick" || all[0].HasValue {
		t.Errorf("client groups: %+v", all)
	}
}

// mycnf-writer-file-mode: a world-writable option file is ignored by the
// server; the reader says so instead of using its values.
func TestMycnfWorldWritableIgnored(t *testing.T) {
	dir := caseFile("mycnf-writer-file-mode")
	src, _ := os.ReadFile(filepath.Join(dir, "99-tuner-candidate.cnf"))
	p := filepath.Join(t.TempDir(), "99-tuner-candidate.cnf")
	if err := os.WriteFile(p, src, 0o644); err != nil {
		t.Fatal(err)
	}
	of, err := ReadOptionFile(p, ReadOptions{})
	if err != nil || effective(t, of)["innodb_buffer_pool_size"].Value != "6G" {
		t.Fatalf("0644: %v %+v", err, of)
	}
	if err := os.Chmod(p, 0o666); err != nil {
		t.Fatal(err)
	}
	of, err = ReadOptionFile(p, ReadOptions{})
	if err != nil || len(of.Options) != 0 || !strings.Contains(strings.Join(of.Notes, " "), "world-writable") {
		t.Fatalf("0666: %v %+v", err, of)
	}
}

func TestOptionLineSyntax(t *testing.T) {
	tests := []struct {
		line     string
		name     string
		value    string
		hasValue bool
		loose    bool
		err      string
	}{
		{"innodb_buffer_pool_size=1G", "innodb_buffer_pool_size", "1G", true, false, ""},
		{"innodb-log-file-size  =  256M   # redo", "innodb_log_file_size", "256M", true, false, ""},
		{`init_connect = "SET NAMES utf8mb4 # not a comment"`, "init_connect", "SET NAMES utf8mb4 # not a comment", true, false, ""},
		{`log_error = '/var/log/my sql.err'`, "log_error", "/var/log/my sql.err", true, false, ""},
		{`ssl_cipher = "a\"b\\c\sd"`, "ssl_cipher", `a"b\c d`, true, false, ""},
		{"loose-innodb-file-format = Barracuda", "innodb_file_format", "Barracuda", true, true, ""},
		{"skip-name-resolve", "skip_name_resolve", "", false, false, ""},
		{"sql_mode =", "sql_mode", "", true, false, ""},
		// Quotes are removed only when the value starts and ends with the
		// same one; otherwise the server keeps them (and LintValue warns).
		{`password = "unterminated`, "password", `"unterminated`, true, false, ""},
		{`wsrep_provider_options="pc.ignore_sb=true";`, "wsrep_provider_options", `"pc.ignore_sb=true";`, true, false, ""},
		{`x = "`, "x", `"`, true, false, ""},
		{`ft_stopword_file = C:\new`, "ft_stopword_file", "C:\new", true, false, ""}, // escapes apply unquoted too
		{"= 5", "", "", false, false, "without a name"},
	}
	for _, tc := range tests {
		o, err := parseOptionLine(tc.line)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: err %v, want %q", tc.line, err, tc.err)
			}
			continue
		}
		if err != nil || o.Name != tc.name || o.Value != tc.value || o.HasValue != tc.hasValue || o.Loose != tc.loose {
			t.Errorf("%q: %+v %v", tc.line, o, err)
		}
	}
}

func FuzzReadOptionFile(f *testing.F) {
	for _, s := range []string{"[mysqld]\na=1\n", "x\n[y", "[mysqld]\n!include nowhere\nb = \"q\\\"\" # c\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p := filepath.Join(t.TempDir(), "f.cnf")
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		of, err := ReadOptionFile(p, ReadOptions{Root: t.TempDir()})
		if err == nil {
			for _, o := range of.Options {
				if o.Line < 1 || o.Name == "" {
					t.Fatalf("option %+v", o)
				}
			}
		}
	})
}
