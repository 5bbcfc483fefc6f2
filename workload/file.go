package workload

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/autotune/autotune/space"
)

// The workload file (docs/workloads.md) is JSON lines, gzip-compressed
// when its name ends in ".gz" (Read recognises gzip by its magic bytes,
// whatever the name):
//
//	line 1        header: format, version, source, server, start, counts
//	then for each connection, in order of its first statement:
//	  one line    connection: id, thread id, user, host, schema, statement count
//	  N lines     its statements in execution order: offset, SQL, ...
//
// Each connection line says how many statement lines follow it, and the
// header gives the totals, so that a truncated file is an error rather
// than a smaller workload.

// fileHeader is line 1.
type fileHeader struct {
	Format       string         `json:"format"`
	Version      int            `json:"version"`
	Source       string         `json:"source"`
	Files        []string       `json:"files,omitempty"`
	Server       *fileServer    `json:"server,omitempty"`
	Start        string         `json:"start,omitempty"`
	DurationUS   int64          `json:"duration_us"`
	ResolutionUS int64          `json:"resolution_us"`
	Masked       bool           `json:"masked"`
	Schemas      []string       `json:"schemas"`
	Connections  int            `json:"connections"`
	Statements   int            `json:"statements"`
	Skipped      map[string]int `json:"skipped,omitempty"`
	Restarts     []fileRestart  `json:"restarts,omitempty"`
	Fields       map[string]int `json:"fields,omitempty"`
	Notes        []string       `json:"notes,omitempty"`
}

type fileRestart struct {
	File   string `json:"file"`
	Line   int    `json:"line"`
	Server string `json:"server,omitempty"`
}

type fileServer struct {
	Flavor  string `json:"flavor,omitempty"`
	Version string `json:"version,omitempty"`
	Text    string `json:"text,omitempty"`
}

type fileConnection struct {
	Connection int    `json:"connection"`
	ThreadID   int64  `json:"thread_id,omitempty"`
	User       string `json:"user,omitempty"`
	Host       string `json:"host,omitempty"`
	Schema     string `json:"schema"`
	Statements int    `json:"statements"`
}

type fileStatement struct {
	AtUS       int64   `json:"at_us"`
	SQL        string  `json:"sql"`
	Schema     *string `json:"schema,omitempty"`
	DurationUS int64   `json:"duration_us,omitempty"`
	Errno      int     `json:"errno,omitempty"`
	Params     string  `json:"params,omitempty"`
}

// fileLine is any line after the header: a connection when Connection is
// set, else a statement (which must have at_us and sql).
type fileLine struct {
	Connection *int    `json:"connection"`
	ThreadID   int64   `json:"thread_id"`
	User       string  `json:"user"`
	Host       string  `json:"host"`
	Statements *int    `json:"statements"`
	AtUS       *int64  `json:"at_us"`
	SQL        *string `json:"sql"`
	Schema     *string `json:"schema"`
	DurationUS int64   `json:"duration_us"`
	Errno      int     `json:"errno"`
	Params     string  `json:"params"`
}

// Write writes w to path in the workload file format, gzip-compressed
// when path ends in ".gz". The file is written whole (a temporary file in
// the same directory, renamed) with mode 0600: a workload holds the
// statements, and so the data values, of the captured server.
func Write(path string, w *Workload) (err error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("workload file %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
			err = fmt.Errorf("workload file %s: %w", path, err)
		}
	}()
	if err = tmp.Chmod(0o600); err != nil {
		return err
	}
	bw := bufio.NewWriterSize(tmp, 1<<16)
	var out io.Writer = bw
	var gz *gzip.Writer
	if strings.HasSuffix(path, ".gz") {
		gz = gzip.NewWriter(bw)
		out = gz
	}
	if err = Encode(out, w); err != nil {
		return err
	}
	if gz != nil {
		if err = gz.Close(); err != nil {
			return err
		}
	}
	if err = bw.Flush(); err != nil {
		return err
	}
	if err = tmp.Sync(); err != nil {
		return err
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// Encode writes w to out in the workload file format (uncompressed).
func Encode(out io.Writer, w *Workload) error {
	h := fileHeader{Format: FormatName, Version: FormatVersion, Source: w.Source, Files: w.Files,
		DurationUS: w.Duration().Microseconds(), ResolutionUS: w.Resolution.Microseconds(), Masked: w.Masked,
		Schemas: w.Schemas(), Connections: len(w.Connections), Statements: w.Statements(), Skipped: w.Skipped, Fields: w.Fields, Notes: w.Notes}
	for _, r := range w.Restarts {
		h.Restarts = append(h.Restarts, fileRestart(r))
	}
	if w.Server != (Server{}) {
		h.Server = &fileServer{Text: w.Server.Text}
		if !w.Server.Version.IsZero() {
			v := w.Server.Version
			h.Server.Flavor, h.Server.Version = string(v.Flavor), fmt.Sprintf("%d.%d.%d", v.Major, v.Minor, v.Patch)
		}
	}
	if !w.Start.IsZero() {
		h.Start = w.Start.UTC().Format("2006-01-02T15:04:05.000000Z07:00")
	}
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(h); err != nil {
		return err
	}
	for _, c := range w.Connections {
		if err := enc.Encode(fileConnection{Connection: c.ID, ThreadID: c.ThreadID, User: c.User, Host: c.Host,
			Schema: c.Schema, Statements: len(c.Statements)}); err != nil {
			return err
		}
		schema := c.Schema
		for _, s := range c.Statements {
			fs := fileStatement{AtUS: s.At.Microseconds(), SQL: s.SQL, DurationUS: s.Duration.Microseconds(), Errno: s.Errno, Params: s.Params}
			if s.Schema != schema {
				sc := s.Schema
				fs.Schema, schema = &sc, sc
			}
			if err := enc.Encode(fs); err != nil {
				return err
			}
		}
	}
	return nil
}

// Read reads a workload file written by Write (gzip-compressed or not).
// Errors name the file and line and say what was expected; a file of a
// newer format version, or one whose counts do not match its lines
// (truncated), is refused.
func Read(path string) (*Workload, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("workload file: %w", err)
	}
	defer f.Close()
	return Decode(f, path)
}

// Decode reads a workload in the file format from r; name is used in
// errors.
func Decode(r io.Reader, name string) (*Workload, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		gz, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("workload file %s: %w", name, err)
		}
		defer gz.Close()
		br = bufio.NewReaderSize(gz, 1<<16)
	}
	lr := newLineReader(br)
	fail := func(format string, a ...any) error {
		return fmt.Errorf("workload file %s line %d: %s", name, lr.n, fmt.Sprintf(format, a...))
	}
	line, err := lr.next()
	if err == io.EOF {
		return nil, fmt.Errorf("workload file %s is empty: want a header line {\"format\":%q,...}", name, FormatName)
	}
	if err != nil {
		return nil, fmt.Errorf("workload file %s: %w", name, err)
	}
	var h fileHeader
	if err := json.Unmarshal(line, &h); err != nil || h.Format != FormatName {
		return nil, fail("want the header {\"format\":%q,\"version\":N,...}: this is not an autotune workload file", FormatName)
	}
	if h.Version < 1 || h.Version > FormatVersion {
		return nil, fail("format version %d: this autotune reads versions 1 to %d (a newer autotune wrote it?)", h.Version, FormatVersion)
	}
	w := &Workload{Source: h.Source, Files: h.Files, Resolution: time.Duration(h.ResolutionUS) * time.Microsecond,
		Masked: h.Masked, Skipped: h.Skipped, Fields: h.Fields, Notes: h.Notes}
	for _, r := range h.Restarts {
		w.Restarts = append(w.Restarts, Restart(r))
	}
	if h.Server != nil {
		w.Server.Text = h.Server.Text
		if h.Server.Version != "" {
			v, err := space.ParseVersion(h.Server.Version, h.Server.Flavor)
			if err != nil {
				return nil, fail("server version: %v", err)
			}
			w.Server.Version = v
		}
	}
	if h.Start != "" {
		t, err := time.Parse(time.RFC3339Nano, h.Start)
		if err != nil {
			return nil, fail("start %q: want an RFC 3339 time", h.Start)
		}
		w.Start = t
	}
	var cur *Connection
	want, schema := 0, ""
	for {
		line, err := lr.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("workload file %s: %w", name, err)
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var l fileLine
		if err := json.Unmarshal(line, &l); err != nil {
			return nil, fail("want a JSON object (connection or statement): %v", err)
		}
		if l.Connection != nil {
			if cur != nil && len(cur.Statements) != want {
				return nil, fail("connection %d has %d statement lines, its line says %d", cur.ID, len(cur.Statements), want)
			}
			if *l.Connection != len(w.Connections)+1 {
				return nil, fail("connection %d: want connection %d (numbered 1, 2, ... in order)", *l.Connection, len(w.Connections)+1)
			}
			if l.Statements == nil || *l.Statements < 1 {
				return nil, fail("connection %d: want \"statements\": its number of statement lines (>= 1)", *l.Connection)
			}
			sc := ""
			if l.Schema != nil {
				sc = *l.Schema
			}
			w.Connections = append(w.Connections, Connection{ID: *l.Connection, ThreadID: l.ThreadID, User: l.User, Host: l.Host,
				Schema: sc, Statements: make([]Statement, 0, *l.Statements)})
			cur, want, schema = &w.Connections[len(w.Connections)-1], *l.Statements, sc
			continue
		}
		if l.AtUS == nil || l.SQL == nil {
			return nil, fail("want a connection line {\"connection\":N,...} or a statement line {\"at_us\":N,\"sql\":...}")
		}
		if cur == nil {
			return nil, fail("statement before the first connection line")
		}
		if len(cur.Statements) == want {
			return nil, fail("connection %d: more statement lines than the %d its line says", cur.ID, want)
		}
		at := time.Duration(*l.AtUS) * time.Microsecond
		if at < 0 || (len(cur.Statements) > 0 && at < cur.Statements[len(cur.Statements)-1].At) {
			return nil, fail("at_us %d: want an offset >= 0 and >= the previous statement's of the connection", *l.AtUS)
		}
		if l.Schema != nil {
			schema = *l.Schema
		}
		if w.Masked && strings.Count(*l.SQL, "?") < len(l.Params) {
			return nil, fail("params %q: more than the statement's ? placeholders", l.Params)
		}
		cur.Statements = append(cur.Statements, Statement{At: at, SQL: *l.SQL, Schema: schema,
			Duration: time.Duration(l.DurationUS) * time.Microsecond, Errno: l.Errno, Params: l.Params})
	}
	if cur != nil && len(cur.Statements) != want {
		return nil, fmt.Errorf("workload file %s: connection %d has %d statement lines, its line says %d (truncated file?)", name, cur.ID, len(cur.Statements), want)
	}
	if len(w.Connections) != h.Connections || w.Statements() != h.Statements {
		return nil, fmt.Errorf("workload file %s: %d connections and %d statements, the header says %d and %d (truncated file?)",
			name, len(w.Connections), w.Statements(), h.Connections, h.Statements)
	}
	if w.Statements() == 0 {
		return nil, fmt.Errorf("workload file %s holds no statement", name)
	}
	return w, nil
}

// lineReader returns the lines of r without their "\n" or "\r\n", of any
// length; a line is valid until the next call. n is the number of the
// line last returned (1-based).
type lineReader struct {
	r   *bufio.Reader
	buf []byte
	n   int
}

func newLineReader(r *bufio.Reader) *lineReader { return &lineReader{r: r} }

func (l *lineReader) next() ([]byte, error) {
	line, err := l.r.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		l.buf = append(l.buf[:0], line...)
		for errors.Is(err, bufio.ErrBufferFull) {
			line, err = l.r.ReadSlice('\n')
			l.buf = append(l.buf, line...)
		}
		line = l.buf
	}
	if err != nil && err != io.EOF {
		return nil, err
	}
	if len(line) == 0 && err == io.EOF {
		return nil, io.EOF
	}
	l.n++
	line = bytes.TrimSuffix(line, []byte("\n"))
	line = bytes.TrimSuffix(line, []byte("\r"))
	return line, nil
}
