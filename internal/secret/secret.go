// Package secret reads database passwords from the places autotune accepts
// them (an environment variable or a MySQL option file), so that a password
// never has to be typed on a command line, where shell history, `ps` and
// logs would keep it.
package secret

import (
	"bufio"
	"fmt"
	"os"
	"strings"

	"github.com/go-sql-driver/mysql"
)

// FromOptionFile returns the password of the [client] group (or, failing
// that, of any group named in groups) of the MySQL option file at path, as
// the client programs read it (MySQL manual "Using Option Files"): lines
// "password = VALUE" or "password=VALUE", VALUE optionally in single or
// double quotes. A file without any group header is read as holding just
// the password (its first line, trimmed). It returns an error naming path
// when the file cannot be read, is readable by group or others (like the
// MySQL clients, which warn about world-writable ones, autotune wants
// 0600), or has no password.
func FromOptionFile(path string, groups ...string) (string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return "", fmt.Errorf("password file %s: %w", path, err)
	}
	if st.Mode().Perm()&0o077 != 0 {
		return "", fmt.Errorf("password file %s: mode %04o lets other users read it; chmod 600 it", path, st.Mode().Perm())
	}
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("password file %s: %w", path, err)
	}
	defer f.Close()
	want := map[string]bool{"client": true}
	for _, g := range groups {
		want[g] = true
	}
	sc := bufio.NewScanner(f)
	group, sawGroup, first := "", false, ""
	lineNo := 0
	for sc.Scan() {
		lineNo++
		line := strings.TrimSpace(sc.Text())
		if lineNo == 1 {
			first = line
		}
		if line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		if line[0] == '[' && strings.HasSuffix(line, "]") {
			group, sawGroup = strings.TrimSpace(line[1:len(line)-1]), true
			continue
		}
		if !want[group] {
			continue
		}
		key, val, ok := strings.Cut(line, "=")
		if !ok || strings.TrimSpace(key) != "password" {
			continue
		}
		return unquote(strings.TrimSpace(val)), nil
	}
	if err := sc.Err(); err != nil {
		return "", fmt.Errorf("password file %s: %w", path, err)
	}
	if !sawGroup && first != "" {
		return first, nil
	}
	return "", fmt.Errorf("password file %s: no password= line in a [client] group", path)
}

func unquote(v string) string {
	if len(v) >= 2 && (v[0] == '\'' || v[0] == '"') && v[len(v)-1] == v[0] {
		return v[1 : len(v)-1]
	}
	return v
}

// RedactDSN returns a go-sql-driver DSN fit for messages: a password
// between "user:" and the last "@" is replaced by "xxx"
// ("app:pw@tcp(db1:3306)/" → "app:xxx@tcp(db1:3306)/"); a DSN without one
// is returned as it is.
func RedactDSN(dsn string) string {
	at := strings.LastIndex(dsn, "@")
	if at < 0 {
		return dsn
	}
	if i := strings.Index(dsn[:at], ":"); i >= 0 {
		return dsn[:i] + ":xxx" + dsn[at:]
	}
	return dsn
}

// ParseUserDSN parses the go-sql-driver DSN of a server the user names with
// --dsn ("app@unix(/run/mysqld/mysqld.sock)/" or "app@tcp(db1:3306)/").
// Errors (each naming --dsn, the DSN redacted): a DSN the driver cannot
// parse, one that holds a password (it would be on the command line: the
// password comes from $AUTOTUNE_PASSWORD or --password-file), one without
// a user.
func ParseUserDSN(dsn string) (*mysql.Config, error) {
	cfg, err := mysql.ParseDSN(dsn)
	switch {
	case err != nil:
		return nil, fmt.Errorf("--dsn %q: want USER@unix(/path/to/socket)/ or USER@tcp(HOST:PORT)/: %v", RedactDSN(dsn), err)
	case cfg.Passwd != "":
		return nil, fmt.Errorf("--dsn %q holds a password: put it in $AUTOTUNE_PASSWORD or an option file given with --password-file, never on the command line", RedactDSN(dsn))
	case cfg.User == "":
		return nil, fmt.Errorf("--dsn %q: no user: want USER@unix(/path/to/socket)/ or USER@tcp(HOST:PORT)/", RedactDSN(dsn))
	}
	return cfg, nil
}
