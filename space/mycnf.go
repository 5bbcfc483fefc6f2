package space

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// Option is one option line of a MySQL option file.
type Option struct {
	// Group is the [group] the option sits in, trailing blanks removed.
	Group string
	// Name is the option name for lookup: a "loose-"/"loose_" prefix
	// removed (see Loose) and dashes turned to underscores. Case is kept:
	// the server matches names character by character, only "-" and "_"
	// are equal (so "Max_Connections" is not max_connections).
	Name string
	// RawName is the name as written.
	RawName string
	// Value is the value as the server receives it: blanks around it and
	// any end-of-line comment removed, surrounding quotes removed when the
	// first and last characters are the same quote, escapes resolved
	// (quoted or not). HasValue is false for a valueless flag
	// ("skip-name-resolve"), which the server sees as --name.
	Value    string
	HasValue bool
	// RawValue is the value as written (comment and surrounding blanks
	// removed, quotes and escapes kept); "" for a valueless flag.
	RawValue string
	// Loose is true for a loose- prefix: the server only warns when it does
	// not know the option.
	Loose bool
	// File and Line locate the option (1-based).
	File string
	Line int
}

// OptionFile is a parsed option file with everything it includes, in read
// order (the order the server reads them: an included file's options sit
// at the position of the directive).
type OptionFile struct {
	// Options in read order.
	Options []Option
	// Notes are non-fatal observations: a missing !include file (skipped,
	// as the server does), files of an !includedir that are not read.
	Notes []string
	// Lint are values the server reads as written but that are probably
	// not what the author meant (see LintValue), in read order.
	Lint []Lint
}

// ReadOptions says how to read option files.
type ReadOptions struct {
	// Root, when set, is prefixed to absolute paths of !include and
	// !includedir directives (reading a copied /etc tree in tests).
	Root string
	// FirstDotExtension selects !includedir files by the text after the
	// first dot of the name, as MySQL 5.x, Percona 5.7 and old MariaDB do
	// ("30-site.local.cnf" is then not a .cnf file). The default is the
	// last dot, as MySQL 8.0 and current MariaDB do.
	FirstDotExtension bool
}

// FileError is a fatal problem of an option file: the server (and every
// client) would refuse it. Line is 0 for file-level problems.
type FileError struct {
	File string
	Line int
	Msg  string
	// More lists further findings of the same file, in line order.
	More []string
}

func (e *FileError) Error() string {
	s := e.File
	if e.Line > 0 {
		s += fmt.Sprintf(" line %d", e.Line)
	}
	s += ": " + e.Msg
	if len(e.More) > 0 {
		s += " (also: " + strings.Join(e.More, "; ") + ")"
	}
	return s
}

// maxIncludeDepth bounds !include nesting (the server stops at 10 too).
const maxIncludeDepth = 10

// ReadOptionFile reads path as the server reads an option file (mysys
// my_default.c, search_default_file_with_buffer): "[group]" headers (a "["
// line without "]" is fatal), an option before any group is fatal, "name",
// "name = value", comments from "#" or ";" at the start of a line and from
// "#" outside quotes to the end (";" inside a line is data), values with
// backslash escapes and with surrounding quotes removed only when the first
// and last characters are the same quote ("\"a\";" stays as written, as the
// server keeps it), "loose-" prefixes, "!include FILE" (a missing file is
// skipped with a note) and "!includedir DIR" (every *.cnf file in name
// order; a directory that cannot be listed is fatal). Included files are
// parsed on their own: each must open its own group. Values the server
// accepts but that look like mistakes are not refused: they are read as
// the server reads them and reported in OptionFile.Lint. It returns a
// *FileError naming the file and line for a malformed file, with every
// finding of that file.
func ReadOptionFile(path string, ro ReadOptions) (*OptionFile, error) {
	of := &OptionFile{}
	if err := of.read(path, ro, 0); err != nil {
		return nil, err
	}
	return of, nil
}

func (of *OptionFile) read(path string, ro ReadOptions, depth int) error {
	if depth > maxIncludeDepth {
		return &FileError{File: path, Msg: fmt.Sprintf("includes nested deeper than %d", maxIncludeDepth)}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return &FileError{File: path, Msg: err.Error()}
	}
	if st, err := os.Stat(path); err == nil && st.Mode().Perm()&0o002 != 0 {
		of.Notes = append(of.Notes, path+": world-writable: the server ignores this file (\"World-writable config file ... is ignored\")")
		return nil
	}
	var (
		group    string
		inGroup  bool
		findings []*FileError
		opts     []Option
	)
	fail := func(line int, msg string) { findings = append(findings, &FileError{File: path, Line: line, Msg: msg}) }
	lines := bytes.Split(b, []byte("\n"))
	for i, raw := range lines {
		n := i + 1
		line := strings.TrimRight(string(raw), "\r")
		t := strings.TrimLeft(line, " \t")
		if t == "" || t[0] == '#' || t[0] == ';' {
			continue
		}
		if t[0] == '!' {
			dir, arg, _ := strings.Cut(t[1:], " ")
			arg = strings.TrimSpace(arg)
			if dir == "includedir" || dir == "include" {
				if arg == "" {
					fail(n, "!"+dir+" without a path")
					continue
				}
				// Flush the options read so far, then the included ones.
				of.Options = append(of.Options, opts...)
				opts = nil
				target := of.mapPath(arg, path, ro)
				var err error
				if dir == "include" {
					err = of.include(target, arg, ro, depth)
				} else {
					err = of.includeDir(target, arg, ro, depth)
				}
				if err != nil {
					var fe *FileError
					if errors.As(err, &fe) && fe.File == path {
						findings = append(findings, fe)
						continue
					}
					return err
				}
				continue
			}
			fail(n, "unknown directive !"+dir)
			continue
		}
		if t[0] == '[' {
			end := strings.IndexByte(t, ']')
			if end < 0 {
				fail(n, "wrong group definition (no closing ']')")
				inGroup = false
				continue
			}
			group = strings.TrimRight(strings.TrimSpace(t[1:end]), " \t")
			inGroup = true
			continue
		}
		if !inGroup {
			if group == "" {
				fail(n, "option without preceding group")
			}
			continue
		}
		o, err := parseOptionLine(t)
		if err != nil {
			fail(n, err.Error())
			continue
		}
		o.Group, o.File, o.Line = group, path, n
		opts = append(opts, o)
		of.Lint = append(of.Lint, LintValue(o)...)
	}
	if len(findings) > 0 {
		first := findings[0]
		for _, f := range findings[1:] {
			first.More = append(first.More, fmt.Sprintf("line %d: %s", f.Line, f.Msg))
		}
		return first
	}
	of.Options = append(of.Options, opts...)
	return nil
}

// mapPath resolves a directive's path: relative to the including file's
// directory, absolute under ro.Root.
func (of *OptionFile) mapPath(p, from string, ro ReadOptions) string {
	if filepath.IsAbs(p) {
		if ro.Root != "" {
			return filepath.Join(ro.Root, p)
		}
		return p
	}
	return filepath.Join(filepath.Dir(from), p)
}

func (of *OptionFile) include(target, written string, ro ReadOptions, depth int) error {
	if _, err := os.Stat(target); errors.Is(err, os.ErrNotExist) {
		of.Notes = append(of.Notes, "!include "+written+": no such file, skipped (as the server does)")
		return nil
	}
	return of.read(target, ro, depth+1)
}

func (of *OptionFile) includeDir(target, written string, ro ReadOptions, depth int) error {
	entries, err := os.ReadDir(target)
	if err != nil {
		return &FileError{File: target, Msg: "cannot read include directory !includedir " + written + ": " + err.Error() + " (the server aborts: \"Fatal error in defaults handling\")"}
	}
	var names []string
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		name := e.Name()
		ext := ""
		if ro.FirstDotExtension {
			if i := strings.IndexByte(name, '.'); i >= 0 {
				ext = name[i:]
			}
		} else {
			ext = filepath.Ext(name)
		}
		if ext != ".cnf" {
			of.Notes = append(of.Notes, "!includedir "+written+": "+name+" not read (only *.cnf files are)")
			continue
		}
		names = append(names, name)
	}
	sort.Strings(names)
	for _, n := range names {
		if err := of.read(filepath.Join(target, n), ro, depth+1); err != nil {
			return err
		}
	}
	return nil
}

// parseOptionLine parses "name", "name = value" or "name=value" (the line
// trimmed on the left).
func parseOptionLine(t string) (Option, error) {
	t = removeEndComment(t)
	name, value, hasValue := strings.Cut(t, "=")
	name = strings.TrimSpace(name)
	if name == "" {
		return Option{}, errors.New("option without a name")
	}
	o := Option{RawName: name, HasValue: hasValue}
	canon := name
	for _, p := range []string{"loose-", "loose_"} {
		if strings.HasPrefix(canon, p) {
			canon, o.Loose = canon[len(p):], true
			break
		}
	}
	o.Name = strings.ReplaceAll(canon, "-", "_")
	if hasValue {
		o.RawValue = strings.TrimSpace(value)
		o.Value = unquote(o.RawValue)
	}
	return o, nil
}

// removeEndComment cuts the line at the first "#" outside quotes
// (my_default.c remove_end_comment).
func removeEndComment(s string) string {
	var quote byte
	escape := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c == '\'' || c == '"') && !escape {
			switch quote {
			case 0:
				quote = c
			case c:
				quote = 0
			}
		}
		if quote == 0 && c == '#' {
			return strings.TrimRight(s[:i], " \t")
		}
		escape = quote != 0 && c == '\\' && !escape
	}
	return strings.TrimRight(s, " \t")
}

// unquote turns a value as written (blanks and comment removed) into the
// value the server receives: surrounding quotes are removed when the value
// is longer than one character and its first and last characters are the
// same quote; then the escapes \n \t \r \b \s \" \' \\ are resolved,
// quoted or not, and an unknown escape keeps its backslash (mysys
// my_default.c; a backslash as the last character stays).
func unquote(v string) string {
	if len(v) > 1 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
		v = v[1 : len(v)-1]
	}
	if !strings.Contains(v, "\\") {
		return v
	}
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c != '\\' || i+1 == len(v) {
			b.WriteByte(c)
			continue
		}
		i++
		switch v[i] {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case 'b':
			b.WriteByte('\b')
		case 's':
			b.WriteByte(' ')
		case '"', '\'', '\\':
			b.WriteByte(v[i])
		default:
			b.WriteByte('\\')
			b.WriteByte(v[i])
		}
	}
	return b.String()
}

// ServerGroups returns the option groups a server of version v reads
// (MariaDB KB "mysqld Configuration Files and Groups"; MySQL 8.0 manual
// 6.2.2.2; `mysqld --verbose --help` prints "The following groups are
// read: mysqld server mysqld-8.0"): [mysqld] and [server] always,
// [mysqld-MAJOR.MINOR] for its exact major.minor, and for MariaDB also
// [mariadb], [mariadbd] and their versioned forms, [client-server] and
// [galera] (read by every MariaDB server built with Galera support, as the
// distributions' packages are).
func ServerGroups(v Version) []string {
	mm := fmt.Sprintf("%d.%d", v.Major, v.Minor)
	g := []string{"mysqld", "server", "mysqld-" + mm}
	if v.Flavor == MariaDB {
		g = append(g, "mariadb", "mariadbd", "mariadb-"+mm, "mariadbd-"+mm, "client-server", "galera")
	}
	return g
}

// versionGroup matches a version-specific server group: "mysqld-8.0",
// "mariadb-10.11", "mariadbd-11.4".
var versionGroup = regexp.MustCompile(`^(mysqld|mariadb|mariadbd)-(\d+)\.(\d+)$`)

// OtherVersionGroups returns a note when the file sets options in
// version-specific groups ([mysqld-X.Y], and for MariaDB [mariadb-X.Y] and
// [mariadbd-X.Y]) of other versions than v: the server reads only the
// group of its exact major.minor (ServerGroups), so those options silently
// do not apply (seen in the field: a generated config with only
// [mysqld-5.7] and [mysqld-8.0] groups left a MySQL 8.4 server with
// gtid_mode=OFF). The note names each such option with its group and line
// and what this server gets instead ("this server gets 200" or "not set
// for this server"), and says when the file has no group for v at all.
// It returns nil when there are none.
func (of *OptionFile) OtherVersionGroups(v Version) []string {
	own := map[string]bool{"mysqld": true}
	if v.Flavor == MariaDB {
		own["mariadb"], own["mariadbd"] = true, true
	}
	read := map[string]bool{}
	for _, g := range ServerGroups(v) {
		read[g] = true
	}
	eff := map[string]Option{}
	for _, o := range of.Effective(ServerGroups(v)) {
		eff[o.Name] = o
	}
	var parts []string
	hasOwn := false
	for _, o := range of.Options {
		m := versionGroup.FindStringSubmatch(o.Group)
		if m == nil || !own[m[1]] {
			continue
		}
		if read[o.Group] {
			hasOwn = true
			continue
		}
		instead := "not set for this server"
		if e, ok := eff[o.Name]; ok {
			instead = "this server gets " + e.Setting()
		}
		parts = append(parts, fmt.Sprintf("[%s] %s = %s (%s line %d; %s)", o.Group, o.RawName, o.Setting(), filepath.Base(o.File), o.Line, instead))
	}
	if len(parts) == 0 {
		return nil
	}
	mm := fmt.Sprintf("%d.%d", v.Major, v.Minor)
	head := fmt.Sprintf("options in groups for other server versions do not apply to %s %s, which reads only [mysqld-%s]", v.Flavor, mm, mm)
	if v.Flavor == MariaDB {
		head += fmt.Sprintf(", [mariadb-%s] and [mariadbd-%s]", mm, mm)
	}
	if !hasOwn {
		head += ", a group this file does not have"
	}
	return []string{head + ": " + strings.Join(parts, "; ")}
}

// Effective returns the options the given groups see, one per name, the
// last in read order winning across spellings (innodb-buffer-pool-size
// and innodb_buffer_pool_size are one option), in order of first
// appearance. Options of other groups ([mysqldump], [client]) never leak
// in.
func (of *OptionFile) Effective(groups []string) []Option {
	want := map[string]bool{}
	for _, g := range groups {
		want[g] = true
	}
	idx := map[string]int{}
	var out []Option
	for _, o := range of.Options {
		if !want[o.Group] {
			continue
		}
		if i, ok := idx[o.Name]; ok {
			out[i] = o
			continue
		}
		idx[o.Name] = len(out)
		out = append(out, o)
	}
	return out
}

// Redefined returns, for the given groups, the options set in two or more
// different files of the same !includedir directory: their effective
// value depends on the order the directory is read, which MySQL does not
// promise (MySQL Reference Manual, "Using Option Files": "MySQL makes no
// guarantee about the order in which option files in the directory are
// read"). Each entry reads
// "name: file1 (line), file2 (line)".
func (of *OptionFile) Redefined(groups []string) []string {
	want := map[string]bool{}
	for _, g := range groups {
		want[g] = true
	}
	where := map[string][]Option{}
	var order []string
	for _, o := range of.Options {
		if !want[o.Group] {
			continue
		}
		if _, ok := where[o.Name]; !ok {
			order = append(order, o.Name)
		}
		where[o.Name] = append(where[o.Name], o)
	}
	var out []string
	for _, n := range order {
		dirs := map[string][]Option{}
		for _, o := range where[n] {
			d := filepath.Dir(o.File)
			dirs[d] = append(dirs[d], o)
		}
		for _, opts := range dirs {
			files := map[string]bool{}
			var parts []string
			for _, o := range opts {
				if !files[o.File] {
					files[o.File] = true
					parts = append(parts, fmt.Sprintf("%s (line %d)", filepath.Base(o.File), o.Line))
				}
			}
			if len(files) > 1 {
				out = append(out, n+": "+strings.Join(parts, ", "))
			}
		}
	}
	sort.Strings(out)
	return out
}

// Setting returns the value the server sees for o: the value, or "ON" for
// a valueless flag (skip-name-resolve sets skip_name_resolve=ON; log-bin
// turns binary logging on under the default base name).
func (o Option) Setting() string {
	if !o.HasValue {
		return "ON"
	}
	return o.Value
}

// UnknownOptions checks option names against the server before it is
// started: known reports whether a name (underscores, case kept) is a
// server option or variable. A non-loose unknown option aborts the server
// ("unknown variable"), so it is returned in fatal; a loose one only
// warns, so it is returned in notes. Boolean options may carry a skip-,
// disable- or enable- prefix. Each entry reads "FILE line N: NAME: why".
func UnknownOptions(opts []Option, known func(name string) bool) (fatal, notes []string) {
	isKnown := func(n string) bool {
		if known(n) {
			return true
		}
		for _, p := range []string{"skip_", "disable_", "enable_"} {
			if rest, ok := strings.CutPrefix(n, p); ok && known(rest) {
				return true
			}
		}
		return false
	}
	for _, o := range opts {
		if isKnown(o.Name) {
			continue
		}
		at := fmt.Sprintf("%s line %d: %s", o.File, o.Line, o.RawName)
		switch {
		case o.Loose:
			notes = append(notes, at+": unknown to this server; loose-, so it only warns")
		case strings.ToLower(o.Name) != o.Name && isKnown(strings.ToLower(o.Name)):
			fatal = append(fatal, at+": unknown variable: option names are matched character by character (only - and _ are equal), so this spelling aborts the server; write "+strings.ToLower(o.Name))
		case strings.HasPrefix(strings.ToLower(o.RawName), "loo"):
			fatal = append(fatal, at+": unknown variable: not a loose- prefix, so the server aborts at start")
		default:
			fatal = append(fatal, at+": unknown variable: the server aborts at start")
		}
	}
	return fatal, notes
}
