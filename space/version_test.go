package space

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseVersion(t *testing.T) {
	tests := []struct {
		version, comment string
		want             Version
	}{
		{"10.11.19-MariaDB-0+deb12u1", "Debian 12", Version{MariaDB, 10, 11, 19}},
		{"mariadbd  Ver 10.11.19-MariaDB-0+deb12u1 for debian-linux-gnu on x86_64 (Debian 12)", "", Version{MariaDB, 10, 11, 19}},
		{"11.4.2-MariaDB", "", Version{MariaDB, 11, 4, 2}},
		{"8.0.36", "MySQL Community Server - GPL", Version{MySQL, 8, 0, 36}},
		{"8.0.36-28", "Percona Server (GPL), Release 28, Revision 47601f19", Version{Percona, 8, 0, 36}},
		{"/usr/sbin/mysqld  Ver 8.4.0 for Linux on x86_64 (MySQL Community Server - GPL)", "", Version{MySQL, 8, 4, 0}},
		{"5.7", "", Version{MySQL, 5, 7, 0}},
	}
	for _, tc := range tests {
		got, err := ParseVersion(tc.version, tc.comment)
		if err != nil || got != tc.want {
			t.Errorf("ParseVersion(%q, %q) = %v, %v; want %v", tc.version, tc.comment, got, err, tc.want)
		}
	}
	for _, bad := range []string{"", "MariaDB", "10", "v10.11"} {
		if _, err := ParseVersion(bad, ""); err == nil {
			t.Errorf("ParseVersion(%q): want an error", bad)
		}
	}
	a, b := Version{MariaDB, 10, 11, 19}, Version{MariaDB, 10, 6, 0}
	if a.Compare(b) != 1 || b.Compare(a) != -1 || a.Compare(a) != 0 {
		t.Error("Compare")
	}
}

// global-status-source-and-deltas, rule 4: version strings as servers and
// clients report them (free-form suffixes, MariaDB's "5.5.5-" handshake
// prefix) parse into flavour and numbers, and versions compare as tuples.
func TestParseVersionFieldStrings(t *testing.T) {
	dir := "testdata/global-status-source-and-deltas"
	b, err := os.ReadFile(filepath.Join(dir, "expected.json"))
	if err != nil {
		t.Fatal(err)
	}
	var want struct {
		Versions []struct {
			Raw                 string
			Flavor              string
			Major, Minor, Patch int
		}
		VersionChecks map[string]bool `json:"version_checks"`
	}
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	list, err := os.ReadFile(filepath.Join(dir, "server-versions.txt"))
	if err != nil {
		t.Fatal(err)
	}
	raws := strings.Fields(string(list))
	if len(raws) != len(want.Versions) || len(raws) != 8 {
		t.Fatalf("%d versions in server-versions.txt, %d expected", len(raws), len(want.Versions))
	}
	for i, w := range want.Versions {
		if raws[i] != w.Raw {
			t.Fatalf("server-versions.txt line %d %q, expected.json %q", i+1, raws[i], w.Raw)
		}
		got, err := ParseVersion(w.Raw, "")
		if err != nil {
			t.Errorf("%s: %v", w.Raw, err)
			continue
		}
		// "mysql-compatible" (Percona, a cloud fork) is MySQL's family:
		// without @@version_comment the flavour is MySQL.
		fl := MySQL
		if w.Flavor == "mariadb" {
			fl = MariaDB
		}
		if got != (Version{Flavor: fl, Major: w.Major, Minor: w.Minor, Patch: w.Patch}) {
			t.Errorf("%s: %v, want %s %d.%d.%d", w.Raw, got, w.Flavor, w.Major, w.Minor, w.Patch)
		}
	}
	if len(want.VersionChecks) != 3 {
		t.Fatalf("version_checks: %v", want.VersionChecks)
	}
	for check, holds := range want.VersionChecks {
		a, b, ok := strings.Cut(check, " >= ")
		if !ok {
			t.Fatalf("check %q", check)
		}
		va, err1 := ParseVersion(a, "")
		vb, err2 := ParseVersion(b, "")
		if err1 != nil || err2 != nil || (va.Compare(vb) >= 0) != holds {
			t.Errorf("%s: Compare(%v, %v) = %d, want %v", check, va, vb, va.Compare(vb), holds)
		}
	}
}

func TestCatalogueDefaultsHold(t *testing.T) {
	for text, want := range map[string]bool{
		"10.11.19-MariaDB-0+deb12u1": true, "10.11.2-MariaDB": true, "5.5.5-10.11.6-MariaDB": true,
		"10.6.12-MariaDB": false, "11.4.2-MariaDB": false, "8.0.36": false, "5.7.44": false,
	} {
		v, err := ParseVersion(text, "")
		if err != nil {
			t.Fatal(err)
		}
		if got := CatalogueDefaultsHold(v); got != want {
			t.Errorf("CatalogueDefaultsHold(%s) = %v, want %v", text, got, want)
		}
	}
}
