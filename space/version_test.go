package space

import "testing"

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
