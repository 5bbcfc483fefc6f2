package exportfile

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"

	"github.com/autotune/autotune/storage"
)

// The header lines autotune reads back, after their comment mark ("# " in
// the cnf format, "-- " in sql and persist).
const (
	// fingerprintPrefix starts the line holding the fingerprint of the
	// conditions the study measured under (fingerprintText).
	fingerprintPrefix = "measured under fingerprint "
	// gainPrefix starts the line holding the paired gain over the
	// baseline (GainText, or why there is none).
	gainPrefix = "gain over the baseline: "
	// notAnOption starts the line of a knob the trial set that is not a
	// my.cnf option (cnf only): "not an option: allocator=tcmalloc (start
	// the server with LD_PRELOAD set to the tcmalloc library)".
	notAnOption = "not an option: "
)

// Header is what the comment header of an export file in the cnf, sql or
// persist format says that autotune reads back (autotune verify). Any
// option file reads as a Header: one autotune did not write has no
// fingerprint, gain or runtime knobs. A JSON export has no comment header
// (read its fields with encoding/json) and reads as an empty Header.
type Header struct {
	// File names the file read, as given to Read or Parse.
	File string
	// Fingerprint is the conditions the file's study measured its gains
	// under (storage.Fingerprint, its fields in the order written); nil
	// when the file has no fingerprint line: autotune did not write it, or
	// its study's manifest was unreadable. FingerprintLine is that line's
	// number, counted from 1 (0 without one).
	Fingerprint     storage.Fingerprint
	FingerprintLine int
	// Gain is the text of the first "gain over the baseline:" line as
	// written: the paired A/B gain on the objective with its 95 %
	// interval ("+40.3 % tps (95 % CI +36.6 .. +44.1 %, 2 interleaved
	// pairs, p = 0.0093): significant"), or why there is none, in the cnf
	// format followed by "; no gain is claimed". "" without the line;
	// GainLine is its number (0 without one).
	Gain     string
	GainLine int
	// Runtime are the knobs the trial set that are not my.cnf options
	// (runtime environment, builds: allocator, cpu_placement, ...), one
	// per "not an option:" line, in file order.
	Runtime []RuntimeKnob
}

// RuntimeKnob is one "not an option: name=value (how it was set)" line of
// a header.
type RuntimeKnob struct {
	// Name is the knob as written ("allocator"), Value its canonical
	// value as the trial ran it ("tcmalloc"), not checked against a space.
	Name, Value string
	// Line is the line's number, counted from 1.
	Line int
}

// ParseError is a header line that autotune writes but cannot read back
// as written: a fingerprint line that does not parse or whose fields do
// not give its key (the line was edited), a second fingerprint line, a
// "not an option:" line that is not name=value.
type ParseError struct {
	// File names the file as given to Read or Parse; Line is the line's
	// number, counted from 1.
	File string
	Line int
	// Err says what is wrong.
	Err error
}

// Error renders e as "FILE:LINE: what is wrong".
func (e *ParseError) Error() string { return fmt.Sprintf("%s:%d: %v", e.File, e.Line, e.Err) }

// Unwrap returns what is wrong.
func (e *ParseError) Unwrap() error { return e.Err }

// Read reads the header of the export file at path (Parse). Errors: the
// file cannot be read (the *fs.PathError names it), or a *ParseError.
func Read(path string) (Header, error) {
	f, err := os.Open(path)
	if err != nil {
		return Header{File: path}, err
	}
	defer f.Close()
	return Parse(f, path)
}

// Parse reads the header of an export file from r; name names it in the
// Header and in errors. A header line is a comment line (its first
// non-blank characters "#" or "--"); Parse reads every comment line of
// the file, the header's and any below it, and ignores the rest. Errors:
// reading r fails, or a *ParseError naming the line.
func Parse(r io.Reader, name string) (Header, error) {
	h := Header{File: name}
	data, err := io.ReadAll(r)
	if err != nil {
		return h, fmt.Errorf("read %s: %w", name, err)
	}
	for i, line := range bytes.Split(data, []byte("\n")) {
		n := i + 1
		text, ok := commentText(string(line))
		if !ok {
			continue
		}
		fail := func(err error) (Header, error) { return h, &ParseError{File: name, Line: n, Err: err} }
		if rest, ok := strings.CutPrefix(text, fingerprintPrefix); ok {
			if h.Fingerprint != nil {
				return fail(fmt.Errorf("a second fingerprint line (the first is line %d): an export has one", h.FingerprintLine))
			}
			fp, err := parseFingerprint(rest)
			if err != nil {
				return fail(err)
			}
			h.Fingerprint, h.FingerprintLine = fp, n
			continue
		}
		if rest, ok := strings.CutPrefix(text, gainPrefix); ok && h.GainLine == 0 {
			h.Gain, h.GainLine = rest, n
			continue
		}
		if strings.HasPrefix(text, strings.TrimSpace(notAnOption)) {
			k, err := parseRuntime(text)
			if err != nil {
				return fail(err)
			}
			k.Line = n
			h.Runtime = append(h.Runtime, k)
		}
	}
	return h, nil
}

// commentText returns the text of a comment line after its mark ("#" or
// "--") and the blanks, dashes and hashes that follow it; false for a
// line that is not a comment.
func commentText(line string) (string, bool) {
	line = strings.TrimSpace(line)
	if !strings.HasPrefix(line, "#") && !strings.HasPrefix(line, "--") {
		return "", false
	}
	return strings.TrimLeft(line, "#- \t"), true
}

// runtimeName is the name of a runtime knob on a "not an option:" line.
var runtimeName = regexp.MustCompile(`^[a-z0-9_]+$`)

// parseRuntime reads a "not an option:" line's text: "not an option:
// name=value", then how it was set, in parentheses after a blank or
// directly after the value ("not an option: allocator=tcmalloc (start the
// server with ...)").
func parseRuntime(text string) (RuntimeKnob, error) {
	want := fmt.Errorf("%q: want \"%sname=value\"", text, notAnOption)
	rest := strings.TrimLeft(strings.TrimPrefix(text, strings.TrimSpace(notAnOption)), " \t")
	name, value, ok := strings.Cut(rest, "=")
	if !ok || !runtimeName.MatchString(name) {
		return RuntimeKnob{}, want
	}
	if i := strings.IndexAny(value, " \t("); i >= 0 {
		value = value[:i]
	}
	if value == "" {
		return RuntimeKnob{}, want
	}
	return RuntimeKnob{Name: name, Value: value}, nil
}

// fingerprintLine is the header line naming the conditions study st's
// gains were measured under, which autotune verify compares with its own;
// "" when the study's manifest is unreadable.
func fingerprintLine(st storage.StudyRecord) string {
	fp, err := storage.StudyFingerprint(st)
	if err != nil {
		return ""
	}
	return fingerprintPrefix + fingerprintText(fp)
}

// fingerprintText renders f for a header: its key, then every field that
// is set as name="value" (Go syntax): `0123456789abcdef
// server="10.11.19-MariaDB" target="sandbox" ...`. parseFingerprint reads
// it back.
func fingerprintText(f storage.Fingerprint) string {
	var b strings.Builder
	b.WriteString(f.Key())
	for _, kv := range f {
		if kv[1] != "" {
			fmt.Fprintf(&b, " %s=%s", kv[0], strconv.Quote(kv[1]))
		}
	}
	return b.String()
}

// fieldRE matches one field of fingerprintText's text.
var fieldRE = regexp.MustCompile(`^\s+([a-z_]+)=("(?:[^"\\]|\\.)*")`)

// parseFingerprint reads a fingerprint written by fingerprintText (the
// fields that were set, in their order). It returns an error naming what
// is wrong when the text is not one, or when its fields do not give its
// key (the line was edited).
func parseFingerprint(s string) (storage.Fingerprint, error) {
	s = strings.TrimSpace(s)
	key, rest, _ := strings.Cut(s, " ")
	if len(key) != 16 {
		return nil, fmt.Errorf("fingerprint %q: want a 16-digit key and name=\"value\" fields", s)
	}
	rest = " " + rest
	var f storage.Fingerprint
	for strings.TrimSpace(rest) != "" {
		m := fieldRE.FindStringSubmatch(rest)
		if m == nil {
			return nil, fmt.Errorf("fingerprint %s: cannot read %q: want name=\"value\"", key, strings.TrimSpace(rest))
		}
		v, err := strconv.Unquote(m[2])
		if err != nil {
			return nil, fmt.Errorf("fingerprint %s: field %s: %w", key, m[1], err)
		}
		f = append(f, [2]string{m[1], v})
		rest = rest[len(m[0]):]
	}
	if f.Key() != key {
		return nil, fmt.Errorf("fingerprint %s: its fields give key %s: the line was edited", key, f.Key())
	}
	return f, nil
}
