package workload

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestFileRoundTrip: Write then Read gives the workload back, plain and
// gzip-compressed, masked or not; the file is 0600.
func TestFileRoundTrip(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"mysql-8.0-slow.log", "mariadb-10.11-sysbench-general.log"} {
		w := readLog(t, name)
		for _, v := range []*Workload{w, Mask(w)} {
			for _, file := range []string{"w.jsonl", "w.jsonl.gz"} {
				path := filepath.Join(dir, file)
				if err := Write(path, v); err != nil {
					t.Fatal(err)
				}
				st, err := os.Stat(path)
				if err != nil || st.Mode().Perm() != 0o600 {
					t.Fatalf("%s: %v mode %v, want 0600", file, err, st.Mode())
				}
				got, err := Read(path)
				if err != nil {
					t.Fatal(err)
				}
				want := *v
				want.Start = want.Start.UTC()
				got.Start = got.Start.UTC()
				if !reflect.DeepEqual(got, &want) {
					t.Errorf("%s %s (masked %v): read back\n%+v\nwant\n%+v", name, file, v.Masked, got, &want)
				}
			}
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("files left in %s: %v, want only the two written", dir, entries)
	}
}

// TestReadBadFiles: what is not a whole workload file of a known version
// is an error naming the file and line.
func TestReadBadFiles(t *testing.T) {
	var good bytes.Buffer
	if err := Encode(&good, readLog(t, "mysql-5.7-slow.log")); err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(good.String(), "\n")
	for _, tc := range []struct {
		name, text, want string
	}{
		{"empty", "", "x.jsonl is empty"},
		{"a log", "# Time: 2024-01-02T10:00:00Z\n", "x.jsonl line 1: want the header"},
		{"newer version", strings.Replace(lines[0], `"version":1`, `"version":2`, 1) + strings.Join(lines[1:], ""), "line 1: format version 2: this autotune reads versions 1 to 1"},
		{"truncated", strings.Join(lines[:len(lines)-3], ""), "truncated file?"},
		{"statement first", lines[0] + lines[2], "line 2: statement before the first connection line"},
		{"bad json", lines[0] + "{nope\n", "line 2: want a JSON object"},
		{"going back in time", lines[0] + lines[1] + strings.Replace(lines[3], `"at_us":2000`, `"at_us":-1`, 1), "line 3: at_us -1"},
		{"neither", lines[0] + `{"foo":1}` + "\n", "line 2: want a connection line"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Decode(strings.NewReader(tc.text), "x.jsonl")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
}
