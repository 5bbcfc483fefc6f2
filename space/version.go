package space

import (
	"fmt"
	"strconv"
	"strings"
)

// Flavor is a server family. Knob availability and names differ per
// flavour and version.
type Flavor string

const (
	// MariaDB is MariaDB Server (mariadbd).
	MariaDB Flavor = "mariadb"
	// MySQL is Oracle MySQL Server (mysqld).
	MySQL Flavor = "mysql"
	// Percona is Percona Server for MySQL: MySQL plus Percona's own knobs.
	Percona Flavor = "percona"
)

// Version is a server flavour and release, e.g. MariaDB 10.11.19.
type Version struct {
	Flavor              Flavor
	Major, Minor, Patch int
}

// String renders v as "mariadb 10.11.19".
func (v Version) String() string {
	return fmt.Sprintf("%s %d.%d.%d", v.Flavor, v.Major, v.Minor, v.Patch)
}

// IsZero reports whether v is the zero Version (unknown server).
func (v Version) IsZero() bool { return v == Version{} }

// ParseVersion parses the text of SELECT VERSION() (or of `mysqld
// --version`), with the server's @@version_comment when known, into a
// Version. The flavour is MariaDB when either text says "MariaDB", Percona
// when the comment (or text) says "Percona", MySQL otherwise. Examples:
//
//	"10.11.19-MariaDB-0+deb12u1"                         → mariadb 10.11.19
//	"8.0.36", "MySQL Community Server - GPL"            → mysql 8.0.36
//	"8.0.36-28", "Percona Server (GPL), Release 28"     → percona 8.0.36
//	"mariadbd  Ver 10.11.19-MariaDB-0+deb12u1 for ..."  → mariadb 10.11.19
//	"5.5.5-10.6.12-MariaDB"                              → mariadb 10.6.12
//	"5.5.33a-MariaDB-log", "8.0.30-cynos-3.1.17.202"     → mariadb 5.5.33, mysql 8.0.30
//
// Whatever follows the numbers (a letter, "-37-log", "-cynos-...") is a
// free-form suffix and ignored. The "5.5.5-" prefix is what MariaDB 10 and
// later put before their version in the client protocol's handshake, so
// that old clients that compare the first digit keep working; the real
// version follows it. It returns an error naming the text when no
// MAJOR.MINOR[.PATCH] number is found.
func ParseVersion(version, comment string) (Version, error) {
	text := version
	// `mysqld --version` output: "... Ver 8.0.36 for Linux ..."
	if i := strings.Index(text, " Ver "); i >= 0 {
		text = strings.TrimSpace(text[i+5:])
	}
	text = strings.TrimSpace(text)
	if rest, ok := strings.CutPrefix(text, "5.5.5-"); ok && rest != "" && rest[0] >= '1' && rest[0] <= '9' && strings.Contains(strings.ToLower(rest), "mariadb") {
		text = rest
	}
	end := 0
	for end < len(text) && (text[end] == '.' || (text[end] >= '0' && text[end] <= '9')) {
		end++
	}
	parts := strings.Split(strings.Trim(text[:end], "."), ".")
	if end == 0 || len(parts) < 2 {
		return Version{}, fmt.Errorf("server version %q: want MAJOR.MINOR[.PATCH] at the start", version)
	}
	var n [3]int
	for i := 0; i < len(parts) && i < 3; i++ {
		x, err := strconv.Atoi(parts[i])
		if err != nil {
			return Version{}, fmt.Errorf("server version %q: %q is not a number", version, parts[i])
		}
		n[i] = x
	}
	all := strings.ToLower(version + " " + comment)
	fl := MySQL
	switch {
	case strings.Contains(all, "mariadb"):
		fl = MariaDB
	case strings.Contains(all, "percona"):
		fl = Percona
	}
	return Version{Flavor: fl, Major: n[0], Minor: n[1], Patch: n[2]}, nil
}

// CatalogueDefaultsHold reports whether the catalogue's Knob.Default
// values are the compiled-in defaults of server v: they were read from
// MariaDB 10.11, and other flavours and releases differ on some (MySQL
// 8.0's innodb_adaptive_hash_index is ON, MariaDB 10.11's OFF).
func CatalogueDefaultsHold(v Version) bool {
	return v.Flavor == MariaDB && v.Major == 10 && v.Minor == 11
}

// Compare returns -1, 0 or 1 as v's release number is below, equal to or
// above o's; flavours are not compared.
func (v Version) Compare(o Version) int {
	for _, d := range [][2]int{{v.Major, o.Major}, {v.Minor, o.Minor}, {v.Patch, o.Patch}} {
		if d[0] < d[1] {
			return -1
		}
		if d[0] > d[1] {
			return 1
		}
	}
	return 0
}

// release parses "10.11.2" (as written in the catalogue) into a Version of
// flavour fl. It panics on a malformed literal: the catalogue is constant
// data covered by its tests.
func release(fl Flavor, s string) Version {
	v, err := ParseVersion(s, string(fl))
	if err != nil {
		panic(err)
	}
	v.Flavor = fl
	return v
}

// family reports whether a knob fact written for flavour f applies to a
// server of flavour s: Percona Server is MySQL with additions, so MySQL
// facts apply to it too.
func family(f, s Flavor) bool {
	return f == s || (f == MySQL && s == Percona)
}
