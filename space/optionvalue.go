package space

import (
	"fmt"
	"strings"
)

// LintSeverity says how likely a Lint finding is to hurt.
type LintSeverity string

const (
	// LintWarning: the server reads the value, probably not as meant.
	LintWarning LintSeverity = "warning"
	// LintError: the server reads the value as written and will most
	// likely refuse it at start (e.g. "utf8mb4;" is no character set).
	LintError LintSeverity = "error"
)

// Lint is a finding about an option value that the server reads as
// written but that is probably not what the author meant. Findings never
// change the value: ReadOptionFile reports them next to the value the
// server receives, so that a tool and the server agree.
type Lint struct {
	// File and Line locate the option (1-based).
	File string
	Line int
	// Name is the option name as written.
	Name string
	// Severity is LintWarning or LintError.
	Severity LintSeverity
	// Msg says what the server receives and what to write instead.
	Msg string
}

// String renders a finding as "FILE line N: NAME: severity: msg".
func (l Lint) String() string {
	return fmt.Sprintf("%s line %d: %s: %s: %s", l.File, l.Line, l.Name, l.Severity, l.Msg)
}

// LintValue returns the findings for one option's value, by the rules of
// the option-file reader (mysys my_default.c, search_default_file_with_buffer):
//
//   - a value that starts with a quote but does not end with the same one
//     keeps its quotes (the server receives `"pc.ignore_sb=true";` with the
//     quotes and the ';'; Galera then refused `"pc.ignore_sb`);
//   - an unquoted value ending in ';': ';' starts a comment only at the
//     start of a line, so it is part of the value (an error: a value such
//     as "utf8mb4;" is refused at start);
//   - an escape that produced a control character (\n \t \r \b are
//     escapes even inside quotes, so "C:\new\table.txt" holds a newline
//     and a tab): write / or \\ in paths.
//
// A valueless flag has no findings.
func LintValue(o Option) []Lint {
	if !o.HasValue {
		return nil
	}
	var out []Lint
	add := func(sev LintSeverity, format string, args ...any) {
		out = append(out, Lint{File: o.File, Line: o.Line, Name: o.RawName, Severity: sev, Msg: fmt.Sprintf(format, args...)})
	}
	raw := o.RawValue
	quoted := len(raw) > 0 && (raw[0] == '"' || raw[0] == '\'')
	switch {
	case quoted && (len(raw) == 1 || raw[len(raw)-1] != raw[0]):
		msg := "starts with " + string(raw[0]) + " but does not end with it, so the server keeps the quotes as part of the value"
		if strings.HasSuffix(raw, ";") {
			msg += " (a ';' after a value is not a comment in an option file: remove it)"
		}
		add(LintWarning, "%s; the server receives: %s", msg, shownValue(o.Value))
	case !quoted && strings.HasSuffix(raw, ";"):
		add(LintError, "the trailing ';' is part of the value (';' starts a comment only at the start of a line), and the server will most likely refuse it; the server receives: %s", shownValue(o.Value))
	}
	if strings.ContainsAny(o.Value, "\n\t\r\b") && strings.Contains(raw, "\\") {
		add(LintWarning, "\\n \\t \\r \\b are escapes even inside quotes, so the value holds a control character (write / or \\\\ in paths); the server receives: %s", shownValue(o.Value))
	}
	return out
}

// shownValue renders a value at the end of a message: as is, or Go-quoted
// when it holds control characters.
func shownValue(v string) string {
	if strings.ContainsAny(v, "\n\t\r\b\v\f") {
		return fmt.Sprintf("%q", v)
	}
	return v
}

// FormatOptionValue renders v for an option line ("name = " + result) so
// that ReadOptionFile, like the server, reads exactly v back: a value with
// a '#', a quote character, a backslash, a control character or blanks at
// either end is written in double quotes with \\, \", \n, \t, \r and \b
// escapes; any other value is written as is. It never adds a ';' and never
// puts a comment inside the quotes.
func FormatOptionValue(v string) string {
	plain := v == "" || (strings.TrimSpace(v) == v && !strings.ContainsAny(v, "#'\"\\\n\t\r\b\v\f"))
	if plain {
		return v
	}
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(v); i++ {
		switch c := v[i]; c {
		case '\\':
			b.WriteString(`\\`)
		case '"':
			b.WriteString(`\"`)
		case '\n':
			b.WriteString(`\n`)
		case '\t':
			b.WriteString(`\t`)
		case '\r':
			b.WriteString(`\r`)
		case '\b':
			b.WriteString(`\b`)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}
