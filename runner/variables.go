package runner

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/autotune/autotune/space"
	"github.com/go-sql-driver/mysql"
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
// A zero bin (a server autotune did not start) skips what needs the
// binary: MySQL's defaults and enum values stay unknown.
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
	// MySQL 8.1+ names each variable's type (Integer, Numeric, Boolean,
	// Enumeration, ...): a knob that is a fraction on MariaDB may be an
	// integer here (innodb_adaptive_flushing_lwm: "Unknown suffix '.'
	// used for variable" on 9.7). Older servers lack the table.
	rows, err = db.QueryContext(ctx, `SELECT VARIABLE_NAME, DATA_TYPE FROM performance_schema.variables_metadata`)
	if err == nil {
		for rows.Next() {
			var name string
			var typ sql.NullString
			if err := rows.Scan(&name, &typ); err != nil {
				break
			}
			if sv, ok := out[strings.ToLower(name)]; ok && typ.Valid {
				sv.Type = typ.String
				out[sv.Name] = sv
			}
		}
		rows.Close()
	}
	if bin.Path == "" {
		// A server autotune did not start: no binary to ask for the
		// compiled-in defaults and enum values.
		return nil
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
	return probeEnums(ctx, bin, out)
}

// probeEnums fills in the accepted values of the catalogue's enum
// variables that MySQL does not list (it has no ENUM_VALUE_LIST): each
// candidate value (the catalogue's choices and the server's own value)
// is given to `mysqld --no-defaults OPTIONS --verbose --help`, which
// parses every option as a start does and names the first value it
// refuses ("Error while setting value 'pool-of-threads' to
// 'thread_handling'"; tens of milliseconds a run). Refused values are
// taken out and the rest tried again, one value of each variable per run,
// until a run refuses none. It returns an error when the binary fails
// without naming a value.
func probeEnums(ctx context.Context, bin Binary, vars map[string]space.ServerVar) error {
	cands := map[string][]string{}
	var names []string
	for _, k := range space.Catalogue() {
		if k.Kind != space.Enum || k.Layer != space.LayerServer {
			continue
		}
		for _, name := range knobVariables(k, vars) {
			sv := vars[name]
			if len(sv.Enum) > 0 {
				continue
			}
			if _, seen := cands[name]; seen {
				continue
			}
			c := append([]string{}, k.Choices...)
			if sv.Value != "" && !containsFold(c, sv.Value) {
				c = append(c, sv.Value)
			}
			cands[name] = c
			names = append(names, name)
		}
	}
	sort.Strings(names)
	refused := map[string]map[string]bool{}
	for _, n := range names {
		refused[n] = map[string]bool{}
	}
	tried := map[string]int{} // next candidate index per variable
	for {
		var args []string
		round := map[string]string{}
		for _, n := range names {
			for tried[n] < len(cands[n]) && refused[n][cands[n][tried[n]]] {
				tried[n]++
			}
			if tried[n] < len(cands[n]) {
				round[n] = cands[n][tried[n]]
				args = append(args, "--"+n+"="+round[n])
			}
		}
		if len(args) == 0 {
			break
		}
		bad, err := refusedOption(ctx, bin, args)
		if err != nil {
			return err
		}
		if bad == "" {
			for n := range round {
				tried[n]++
			}
			continue
		}
		if _, ok := round[bad]; !ok {
			return fmt.Errorf("%s --verbose --help refused %s, which autotune did not give it", bin.Path, bad)
		}
		refused[bad][round[bad]] = true
	}
	for _, n := range names {
		sv := vars[n]
		for _, c := range cands[n] {
			if !refused[n][c] {
				sv.Enum = append(sv.Enum, c)
			}
		}
		vars[n] = sv
	}
	return nil
}

// helpRefusal is MySQL's message for an option value it does not take
// (my_getopt).
var helpRefusal = regexp.MustCompile(`Error while setting value '[^']*' to '([^']+)'`)

// refusedOption runs `mysqld --no-defaults ARGS --verbose --help` and
// returns the variable (underscores) whose value it refused, "" when it
// took them all.
func refusedOption(ctx context.Context, bin Binary, args []string) (string, error) {
	var out bytes.Buffer
	cmd := bin.Command(ctx, helpArgs(args)...)
	cmd.Stdout, cmd.Stderr = io.Discard, &out
	err := cmd.Run()
	if m := helpRefusal.FindStringSubmatch(out.String()); m != nil {
		return strings.ReplaceAll(m[1], "-", "_"), nil
	}
	if err != nil {
		return "", fmt.Errorf("%s --verbose --help with %s: %w: %s", bin.Path, strings.Join(args, " "), err, tail(out.Bytes(), 400))
	}
	return "", nil
}

// knobVariables returns the variables of vars that hold knob k on some
// server: its catalogue name and its per-version names, each once.
func knobVariables(k space.Knob, vars map[string]space.ServerVar) []string {
	var out []string
	for _, n := range append([]string{k.Name}, availVariables(k)...) {
		if _, ok := vars[n]; ok && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

func availVariables(k space.Knob) []string {
	var out []string
	for _, a := range k.Avail {
		if a.Variable != "" {
			out = append(out, a.Variable)
		}
	}
	return out
}

func containsFold(list []string, v string) bool {
	for _, x := range list {
		if strings.EqualFold(x, v) {
			return true
		}
	}
	return false
}

// helpArgs returns the arguments of `mysqld --no-defaults OPTIONS
// --verbose --help` (refusedOption, DefaultsFromHelp), with --user=root
// last when autotune runs as root.
func helpArgs(options []string) []string {
	args := ProgramArgs("", append(append([]string{}, options...), "--verbose", "--help")...)
	if os.Geteuid() == 0 {
		args = append(args, "--user=root")
	}
	return args
}

// DefaultsFromHelp runs `mysqld --no-defaults --verbose --help` and returns
// the table of options and their compiled-in values that ends the output,
// keyed by variable name (dashes turned to underscores). It returns an
// error when the binary fails or prints no such table.
func DefaultsFromHelp(ctx context.Context, bin Binary) (map[string]string, error) {
	cmd := bin.Command(ctx, helpArgs(nil)...)
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
		info.AIO = srv.AIO
		if verr == nil && info.Version.Flavor != space.MariaDB {
			verr = srv.probeReadOnly(ctx, info.Vars)
		}
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

// probeReadOnly learns, on a probe server of autotune's own, which of the
// catalogue's variables a MySQL server refuses to change at runtime: it has
// no READ_ONLY column (MariaDB's information_schema.SYSTEM_VARIABLES has),
// so each numeric variable is set to its own value, SET GLOBAL v =
// @@GLOBAL.v, which changes nothing where it is allowed and fails with
// error 1238 ("is a read only variable") where not, and each choice
// variable to every choice the server takes, then back to its value (a
// refusal, 1238 or 1210, makes it restart-only). Other errors leave the
// flag unknown. It returns an error when the server cannot be reached.
func (s *Server) probeReadOnly(ctx context.Context, vars map[string]space.ServerVar) error {
	db, err := sql.Open("mysql", s.DSN(""))
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	for _, k := range space.Catalogue() {
		if k.Layer != space.LayerServer {
			continue
		}
		for _, name := range knobVariables(k, vars) {
			sv := vars[name]
			if sv.ReadOnlyKnown || !varName.MatchString(name) {
				continue
			}
			// A choice knob is dynamic only if every value it can take
			// can be set at runtime: MySQL 9.7 sets innodb_doublewrite
			// between its enabled modes, but not to OFF (error 1210,
			// "Please shutdown and change value to OFF").
			stmts := []string{"SET GLOBAL " + name + " = @@GLOBAL." + name}
			if k.Kind == space.Enum || k.Kind == space.Bool {
				stmts = nil
				for _, c := range k.Options() {
					if safeValue.MatchString(c) && (len(sv.Enum) == 0 || containsFold(sv.Enum, c)) {
						stmts = append(stmts, "SET GLOBAL "+name+" = '"+c+"'")
					}
				}
				if safeValue.MatchString(sv.Value) {
					stmts = append(stmts, "SET GLOBAL "+name+" = '"+sv.Value+"'")
				}
			}
			known, ro := false, false
			for _, st := range stmts {
				qctx, cancel := context.WithTimeout(ctx, time.Minute)
				_, err := db.ExecContext(qctx, st)
				cancel()
				var me *mysql.MySQLError
				switch {
				case err == nil:
					known = true
				case errors.As(err, &me) && (me.Number == 1238 || me.Number == 1210):
					known, ro = true, true
				case ctx.Err() != nil:
					return ctx.Err()
				}
			}
			if !known {
				continue
			}
			sv.ReadOnly, sv.ReadOnlyKnown = ro, true
			vars[name] = sv
		}
	}
	return nil
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

// SetGlobals applies the assignments with SET GLOBAL on one connection,
// stopping at the first the server refuses. The error names the
// assignment and carries the server's message (its number is kept for
// errors.As with *mysql.MySQLError).
//
// An assignment the server takes with a warning and without effect is
// tried again after the others: MySQL keeps innodb_io_capacity when it
// would exceed innodb_io_capacity_max ("Warning 1210: Setting
// innodb_io_capacity to 20000 higher than innodb_io_capacity_max 100"),
// so raising both works only maximum first. A buffer pool resize, which
// the server finishes after SET GLOBAL returns, is waited for
// (waitPoolResize), so what follows runs on the new pool.
func (s *Server) SetGlobals(ctx context.Context, as []Assignment) error {
	db, err := sql.Open("mysql", s.DSN(""))
	if err != nil {
		return err
	}
	defer db.Close()
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	set := func(a Assignment) (warned bool, err error) {
		if !varName.MatchString(a.Var) || !safeValue.MatchString(a.Value) {
			return false, fmt.Errorf("SET GLOBAL %s = %s: not a plain variable name and value", a.Var, a.Value)
		}
		v := a.Value
		if a.Quoted {
			v = "'" + v + "'"
		}
		var before string
		if a.Var == "innodb_buffer_pool_size" {
			_ = conn.QueryRowContext(ctx, "SELECT @@GLOBAL.innodb_buffer_pool_size").Scan(&before)
		}
		// innodb_log_file_size resizes the redo log online (2-3 s here).
		qctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
		defer cancel()
		if _, err := conn.ExecContext(qctx, "SET GLOBAL "+a.Var+" = "+v); err != nil {
			return false, fmt.Errorf("SET GLOBAL %s = %s: %w", a.Var, v, err)
		}
		var n int
		if err := conn.QueryRowContext(qctx, "SELECT @@warning_count").Scan(&n); err != nil {
			return false, fmt.Errorf("SET GLOBAL %s = %s: read its warnings: %w", a.Var, v, err)
		}
		if a.Var == "innodb_buffer_pool_size" {
			if err := waitPoolResize(qctx, conn, before, a.Value); err != nil {
				return false, fmt.Errorf("SET GLOBAL %s = %s: %w", a.Var, v, err)
			}
		}
		return n > 0, nil
	}
	var again []Assignment
	for _, a := range as {
		warned, err := set(a)
		if err != nil {
			return err
		}
		if warned {
			again = append(again, a)
		}
	}
	for _, a := range again {
		if _, err := set(a); err != nil {
			return err
		}
	}
	return nil
}

// waitPoolResize waits until a buffer pool resize started by SET GLOBAL
// innodb_buffer_pool_size from before to requested (bytes) has ended: the
// variable no longer reads before and, where the server has it (MySQL
// 8.0.31+), Innodb_buffer_pool_resize_status_code is 0 (no resize
// running). Nothing is waited for when requested is within a megabyte of
// before (the server rounds; no resize starts). A failed resize (code 7,
// or a status text that says "fail") is an error naming the status text;
// the wait ends with ctx.
func waitPoolResize(ctx context.Context, conn *sql.Conn, before, requested string) error {
	b, err1 := strconv.ParseFloat(before, 64)
	r, err2 := strconv.ParseFloat(requested, 64)
	if err1 != nil || err2 != nil || math.Abs(b-r) < 1<<20 {
		return nil
	}
	status := func(name string) (string, bool) {
		var n, v string
		err := conn.QueryRowContext(ctx, "SHOW GLOBAL STATUS LIKE '"+name+"'").Scan(&n, &v)
		return v, err == nil
	}
	for {
		var now string
		if err := conn.QueryRowContext(ctx, "SELECT @@GLOBAL.innodb_buffer_pool_size").Scan(&now); err != nil {
			return fmt.Errorf("wait for the buffer pool resize: %w", err)
		}
		code, hasCode := status("Innodb_buffer_pool_resize_status_code")
		text, _ := status("Innodb_buffer_pool_resize_status")
		if (hasCode && code == "7") || strings.Contains(strings.ToLower(text), "fail") {
			return fmt.Errorf("the buffer pool resize failed: %s", text)
		}
		if now != before && (!hasCode || code == "0") {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("wait for the buffer pool resize (%s): %w", text, ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}
