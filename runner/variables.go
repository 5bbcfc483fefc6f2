package runner

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/autotune/autotune/space"
)

// Variables reads what the running server says about itself: SELECT
// VERSION() and @@version_comment, @@log_bin, and every system variable
// with its global value, default, type, accepted range, block size, value
// list and read-only flag.
//
// MariaDB answers all of it from information_schema.SYSTEM_VARIABLES. MySQL
// has no such table: names, values and ranges come from
// performance_schema.global_variables and variables_info, and defaults from
// `mysqld --verbose --help` (DefaultsFromHelp); MySQL's read-only flags are
// not known there, so the catalogue's dynamic flag stands (ReadOnlyKnown
// false).
//
// It returns an error when a query fails.
func (s *Server) Variables(ctx context.Context, bin Binary) (space.ServerInfo, error) {
	db, err := sql.Open("mysql", s.DSN(""))
	if err != nil {
		return space.ServerInfo{}, err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	qctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()

	var version, comment string
	var logBin sql.NullString
	if err := db.QueryRowContext(qctx, "SELECT VERSION(), @@version_comment, @@log_bin").Scan(&version, &comment, &logBin); err != nil {
		return space.ServerInfo{}, fmt.Errorf("read server version: %w", err)
	}
	v, err := space.ParseVersion(version, comment)
	if err != nil {
		return space.ServerInfo{}, err
	}
	info := space.ServerInfo{Version: v, VersionText: version, Vars: map[string]space.ServerVar{},
		BinlogOn: logBin.Valid && (logBin.String == "1" || strings.EqualFold(logBin.String, "ON"))}
	if v.Flavor == space.MariaDB {
		err = mariadbVariables(qctx, db, info.Vars)
	} else {
		err = mysqlVariables(qctx, db, bin, info.Vars)
	}
	if err != nil {
		return space.ServerInfo{}, err
	}
	return info, nil
}

func mariadbVariables(ctx context.Context, db *sql.DB, out map[string]space.ServerVar) error {
	rows, err := db.QueryContext(ctx, `SELECT VARIABLE_NAME, GLOBAL_VALUE, DEFAULT_VALUE, VARIABLE_TYPE,
		NUMERIC_MIN_VALUE, NUMERIC_MAX_VALUE, NUMERIC_BLOCK_SIZE, ENUM_VALUE_LIST, READ_ONLY
		FROM information_schema.SYSTEM_VARIABLES`)
	if err != nil {
		return fmt.Errorf("read information_schema.SYSTEM_VARIABLES: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var name string
		var val, def, typ, lo, hi, block, enum, ro sql.NullString
		if err := rows.Scan(&name, &val, &def, &typ, &lo, &hi, &block, &enum, &ro); err != nil {
			return fmt.Errorf("read information_schema.SYSTEM_VARIABLES: %w", err)
		}
		sv := space.ServerVar{Name: strings.ToLower(name), Value: val.String, Default: def.String, Type: typ.String,
			ReadOnly: strings.EqualFold(ro.String, "YES"), ReadOnlyKnown: ro.Valid}
		if lo.Valid && hi.Valid {
			a, err1 := strconv.ParseFloat(lo.String, 64)
			b, err2 := strconv.ParseFloat(hi.String, 64)
			if err1 == nil && err2 == nil {
				sv.HasRange, sv.Min, sv.Max = true, a, b
			}
		}
		if block.Valid {
			sv.Block, _ = strconv.ParseInt(block.String, 10, 64)
		}
		if enum.Valid && enum.String != "" {
			sv.Enum = strings.Split(enum.String, ",")
		}
		out[sv.Name] = sv
	}
	return rows.Err()
}

func mysqlVariables(ctx context.Context, db *sql.DB, bin Binary, out map[string]space.ServerVar) error {
	rows, err := db.QueryContext(ctx, `SELECT VARIABLE_NAME, VARIABLE_VALUE FROM performance_schema.global_variables`)
	if err != nil {
		return fmt.Errorf("read performance_schema.global_variables: %w", err)
	}
	for rows.Next() {
		var name string
		var val sql.NullString
		if err := rows.Scan(&name, &val); err != nil {
			rows.Close()
			return fmt.Errorf("read performance_schema.global_variables: %w", err)
		}
		out[strings.ToLower(name)] = space.ServerVar{Name: strings.ToLower(name), Value: val.String}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	rows, err = db.QueryContext(ctx, `SELECT VARIABLE_NAME, MIN_VALUE, MAX_VALUE FROM performance_schema.variables_info`)
	if err == nil {
		for rows.Next() {
			var name string
			var lo, hi sql.NullString
			if err := rows.Scan(&name, &lo, &hi); err != nil {
				break
			}
			sv, ok := out[strings.ToLower(name)]
			if !ok || !lo.Valid || !hi.Valid {
				continue
			}
			a, err1 := strconv.ParseFloat(lo.String, 64)
			b, err2 := strconv.ParseFloat(hi.String, 64)
			if err1 == nil && err2 == nil && !(a == 0 && b == 0) {
				sv.HasRange, sv.Min, sv.Max = true, a, b
				out[sv.Name] = sv
			}
		}
		rows.Close()
	}
	defs, err := DefaultsFromHelp(ctx, bin)
	if err != nil {
		return err
	}
	for name, d := range defs {
		if sv, ok := out[name]; ok {
			sv.Default = d
			out[name] = sv
		}
	}
	return nil
}

// DefaultsFromHelp runs `mysqld --no-defaults --verbose --help` and returns
// the table of options and their compiled-in values that ends the output,
// keyed by variable name (dashes turned to underscores). It returns an
// error when the binary fails or prints no such table.
func DefaultsFromHelp(ctx context.Context, bin Binary) (map[string]string, error) {
	args := []string{"--no-defaults", "--verbose", "--help"}
	if os.Geteuid() == 0 {
		args = append(args, "--user=root")
	}
	cmd := exec.CommandContext(ctx, bin.Path, args...)
	cmd.SysProcAttr = ChildProcAttr(false)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%s --verbose --help: %w: %s", bin.Path, err, tail(stderr.Bytes(), 400))
	}
	m := ParseHelpVariables(stdout.Bytes())
	if len(m) == 0 {
		return nil, fmt.Errorf("%s --verbose --help printed no variables table", bin.Path)
	}
	return m, nil
}

// ParseHelpVariables parses the variables table of `mysqld --verbose
// --help`: the lines after the header "Variables (--variable-name=value)"
// and its dashed rule, each "name   value" (value may be empty or
// "(No default value)"). Names are returned with underscores.
func ParseHelpVariables(out []byte) map[string]string {
	m := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	state := 0 // 0: before header, 1: before rule, 2: in table
	for sc.Scan() {
		line := sc.Text()
		switch state {
		case 0:
			if strings.HasPrefix(line, "Variables (--variable-name=value)") {
				state = 1
			}
		case 1:
			if strings.HasPrefix(line, "----") {
				state = 2
			}
		case 2:
			if strings.TrimSpace(line) == "" {
				return m
			}
			f := strings.Fields(line)
			name := strings.ReplaceAll(f[0], "-", "_")
			m[name] = strings.TrimSpace(strings.TrimPrefix(line, f[0]))
		}
	}
	return m
}

// Probe starts each server binary in turn on one fresh, tiny datadir in
// the sandbox directory dir (created if needed; see OpenSandbox), reads
// its variables (Variables) and stops it; the datadir is removed
// afterwards. The datadir is initialised with the first binary's tools
// (mariadb-install-db next to it or on PATH), so further builds need not
// come with their own; they must read the same datadir format (same
// flavour and major.minor version). A fresh MariaDB datadir takes about a
// second to initialise here. It returns the descriptions in the order of
// bins, *StartError when a server does not start, other errors for
// sandbox trouble.
func Probe(ctx context.Context, dir string, bins ...Binary) ([]space.ServerInfo, error) {
	if len(bins) == 0 {
		return nil, fmt.Errorf("probe: no server binary")
	}
	sb, err := OpenSandbox(dir, bins[0])
	if err != nil {
		return nil, err
	}
	data := sb.path("probe-data")
	if err := os.RemoveAll(data); err != nil {
		return nil, err
	}
	if err := checkFree(sb.Dir, probeDatadirBytes); err != nil {
		return nil, err
	}
	defer os.RemoveAll(data)
	if err := sb.initDatadir(ctx, data); err != nil {
		return nil, err
	}
	var out []space.ServerInfo
	for _, bin := range bins {
		srv, err := Start(ctx, bin, sb.Options(data, "", "probe-"+strconv.FormatInt(time.Now().UnixNano(), 36)+".err", 20))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", bin.Path, err)
		}
		info, verr := srv.Variables(ctx, bin)
		if err := srv.Stop(time.Minute); err != nil && verr == nil {
			verr = fmt.Errorf("stop probe server: %w", err)
		}
		if verr != nil {
			return nil, fmt.Errorf("%s: %w", bin.Path, verr)
		}
		out = append(out, info)
	}
	return out, nil
}

// varName matches a system variable name; anything else is refused before
// it reaches SQL.
var varName = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// ReadGlobals returns SELECT @@GLOBAL.name for each name, in one query
// (SELECT @@GLOBAL reads long values whole, unlike SHOW GLOBAL VARIABLES).
// NULL reads as "". It returns an error for a malformed name or a failed
// query (e.g. an unknown variable, MySQL error 1193).
func (s *Server) ReadGlobals(ctx context.Context, names []string) (map[string]string, error) {
	if len(names) == 0 {
		return map[string]string{}, nil
	}
	var b strings.Builder
	b.WriteString("SELECT ")
	for i, n := range names {
		if !varName.MatchString(n) {
			return nil, fmt.Errorf("read variables: %q is not a variable name", n)
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("@@GLOBAL." + n)
	}
	db, err := sql.Open("mysql", s.DSN(""))
	if err != nil {
		return nil, err
	}
	defer db.Close()
	qctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	vals := make([]sql.NullString, len(names))
	ptrs := make([]any, len(names))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	if err := db.QueryRowContext(qctx, b.String()).Scan(ptrs...); err != nil {
		return nil, fmt.Errorf("read variables: %w", err)
	}
	out := make(map[string]string, len(names))
	for i, n := range names {
		out[n] = vals[i].String
	}
	return out, nil
}

// Assignment is one SET GLOBAL: a variable and its value. Quoted values
// are sent as string literals, others as numbers.
type Assignment struct {
	Var, Value string
	Quoted     bool
}

// safeValue matches the canonical knob values autotune sends: numbers,
// and enum words such as READ-COMMITTED or O_DIRECT.
var safeValue = regexp.MustCompile(`^[A-Za-z0-9_.+-]+$`)

// SetGlobals applies the assignments in order with SET GLOBAL on one
// connection, stopping at the first the server refuses. The error names
// the assignment and carries the server's message (its number is kept for
// errors.As with *mysql.MySQLError).
func (s *Server) SetGlobals(ctx context.Context, as []Assignment) error {
	db, err := sql.Open("mysql", s.DSN(""))
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	for _, a := range as {
		if !varName.MatchString(a.Var) || !safeValue.MatchString(a.Value) {
			return fmt.Errorf("SET GLOBAL %s = %s: not a plain variable name and value", a.Var, a.Value)
		}
		v := a.Value
		if a.Quoted {
			v = "'" + v + "'"
		}
		// innodb_log_file_size resizes the redo log online (2-3 s here).
		qctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
		_, err := db.ExecContext(qctx, "SET GLOBAL "+a.Var+" = "+v)
		cancel()
		if err != nil {
			return fmt.Errorf("SET GLOBAL %s = %s: %w", a.Var, v, err)
		}
	}
	return nil
}
