package exportfile

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/space"
	"github.com/autotune/autotune/storage"
)

// A fingerprint written in a file's header reads back to the same fields
// and key, whatever its values hold (quotes, semicolons, a command
// line); an edited or truncated line is an error naming the problem.
func TestFingerprintTextRoundTrip(t *testing.T) {
	m := storage.Manifest{Workload: "oltp_read_write", Threads: 16, Lambda: 0.5, Measure: storage.MeasureManifest{BenchCmd: `sh -c "run; echo \"done\""`}}
	fp := storage.FingerprintOf(m, "/usr/sbin/mariadbd  Ver 10.11.19-MariaDB-0+deb12u1 for debian-linux-gnu", 2, 8<<30)
	line := fingerprintText(fp)
	got, err := parseFingerprint(line)
	if err != nil {
		t.Fatalf("%s: %v", line, err)
	}
	if got.Key() != fp.Key() || len(got.Diff(fp)) != 0 {
		t.Fatalf("read back %v, want %v", got, fp)
	}
	edited := strings.Replace(line, `host="2 cores`, `host="4 cores`, 1)
	for name, tc := range map[string]struct{ line, want string }{
		"edited":    {edited, "the line was edited"},
		"truncated": {line[:len(line)-3], "cannot read"},
		"no key":    {`server="x"`, "want a 16-digit key"},
	} {
		if _, err := parseFingerprint(tc.line); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err %v, want %q", name, err, tc.want)
		}
	}
}

// withPairs returns trials with two complete A/B pairs of best (trial
// 7) against the baseline (trial 0) appended, so that the export claims
// a gain with an interval.
func withPairs(base, best search.Trial) []search.Trial {
	trials := []search.Trial{base, best}
	for i, tps := range []float64{1190, 1005, 1230, 990} {
		t := best
		t.Number, t.Kind = 8+i, search.ABBest
		if i%2 == 1 {
			t.Params, t.Kind = base.Params, search.ABBase
		}
		t.RepeatOf, t.MeanTPS, t.Score = best.Number, tps, tps
		trials = append(trials, t)
	}
	return trials
}

// wantRuntime is what the header of a cnf export of cfg names as runtime
// knobs: every knob of cfg outside the server layer away from its
// default, in catalogue order.
func wantRuntime(sp *space.Space, cfg space.Config) []RuntimeKnob {
	var out []RuntimeKnob
	for _, k := range sp.All() {
		if v, ok := cfg[k.Name]; ok && k.Layer != space.LayerServer && v != k.Default {
			out = append(out, RuntimeKnob{Name: k.Name, Value: v})
		}
	}
	return out
}

// TestReadBackWhatWasWritten: the header of every export shape reads back
// to what was written: the study's fingerprint, the gain over the
// baseline as GainText says it (in the cnf format, with "no gain is
// claimed" without an interval), the runtime knobs of the trial (cnf
// only), each with the number of the line it is on. A JSON export has no
// comment header.
func TestReadBackWhatWasWritten(t *testing.T) {
	now := time.Date(2025, 2, 3, 4, 5, 6, 0, time.UTC)
	type shape struct {
		name       string
		st         storage.StudyRecord
		best, base search.Trial
		trials     []search.Trial
		minimal    *search.Minimized
	}
	var shapes []shape
	for _, c := range exportCases() {
		c.st.Cores, c.st.RAMBytes = 2, 8<<30
		shapes = append(shapes, shape{c.name, c.st, c.best, c.base, []search.Trial{c.base, c.best}, nil},
			shape{c.name + ", 2 A/B pairs", c.st, c.best, c.base, withPairs(c.base, c.best), nil})
	}
	mc, m := minimizedCase()
	shapes = append(shapes, shape{"minimal", mc.st, mc.best, mc.base, []search.Trial{mc.base, mc.best}, &m},
		shape{"minimal, 2 A/B pairs", mc.st, mc.best, mc.base, withPairs(mc.base, mc.best), &m})
	noBase := exportCases()[0]
	shapes = append(shapes, shape{"no baseline", noBase.st, noBase.best, search.Trial{Number: -1}, []search.Trial{noBase.best}, nil})
	// A study whose manifest is unreadable writes no fingerprint line.
	broken := exportCases()[1]
	broken.st.Settings = "{"
	shapes = append(shapes, shape{"unreadable manifest", broken.st, broken.best, broken.base, []search.Trial{broken.base, broken.best}, nil})

	sp := space.Lookup()
	for _, s := range shapes {
		for _, f := range Formats {
			t.Run(s.name+"/"+f, func(t *testing.T) {
				var out bytes.Buffer
				var err error
				if s.minimal != nil {
					err = WriteMinimal(&out, f, sp, s.st, *s.minimal, s.best, s.base, s.trials, now)
				} else {
					err = Write(&out, f, sp, s.st, s.best, s.base, s.trials, now)
				}
				if err != nil {
					t.Fatal(err)
				}
				h, err := Parse(bytes.NewReader(out.Bytes()), "best."+f)
				if err != nil {
					t.Fatal(err)
				}
				if h.File != "best."+f {
					t.Errorf("File %q", h.File)
				}
				if f == "json" {
					if !reflect.DeepEqual(h, Header{File: "best.json"}) {
						t.Errorf("a JSON export read as %+v, want an empty header", h)
					}
					return
				}
				lines := strings.Split(out.String(), "\n")
				at := func(n int) string {
					if n < 1 || n > len(lines) {
						return fmt.Sprintf("(no line %d)", n)
					}
					return lines[n-1]
				}

				wantFP, err := storage.StudyFingerprint(s.st)
				switch {
				case err != nil && h.Fingerprint != nil:
					t.Errorf("an unreadable manifest, fingerprint %v read back", h.Fingerprint)
				case err == nil && (h.Fingerprint.Key() != wantFP.Key() || len(h.Fingerprint.Diff(wantFP)) != 0):
					t.Errorf("fingerprint %v, want %v", h.Fingerprint, wantFP)
				case err == nil && !strings.Contains(at(h.FingerprintLine), "measured under fingerprint "+wantFP.Key()):
					t.Errorf("FingerprintLine %d is %q", h.FingerprintLine, at(h.FingerprintLine))
				}

				goal := s.st.Goal()
				wantGain, ok := GainText(goal, s.trials, s.best)
				switch {
				case f != "cnf" && s.base.Number < 0:
					wantGain = "" // sql and persist state the gain with the baseline's line
				case f == "cnf" && !ok:
					wantGain += "; no gain is claimed"
				}
				if h.Gain != wantGain {
					t.Errorf("gain %q, want %q", h.Gain, wantGain)
				}
				if wantGain != "" && !strings.HasSuffix(at(h.GainLine), "gain over the baseline: "+wantGain) {
					t.Errorf("GainLine %d is %q", h.GainLine, at(h.GainLine))
				}
				if _, isGain := search.ABGain(goal, s.trials, s.best.Number); isGain != strings.Contains(s.name, "A/B pairs") {
					t.Fatalf("the shape's trials give an A/B gain: %v", isGain)
				}

				var want []RuntimeKnob
				if f == "cnf" {
					want = wantRuntime(sp, s.best.Params)
				}
				var got []RuntimeKnob
				for _, k := range h.Runtime {
					if !strings.Contains(at(k.Line), "not an option: "+k.Name+"="+k.Value) {
						t.Errorf("runtime knob %s on line %d: %q", k.Name, k.Line, at(k.Line))
					}
					got = append(got, RuntimeKnob{Name: k.Name, Value: k.Value})
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("runtime knobs %v, want %v", got, want)
				}
			})
		}
	}
}

// TestReadRefusesMalformedHeaders: a header line autotune writes but
// cannot read back as written is a *ParseError naming the file and the
// line; lines that are not such header lines are left alone.
func TestReadRefusesMalformedHeaders(t *testing.T) {
	c := exportCases()[0]
	c.st.Cores, c.st.RAMBytes = 2, 8<<30
	var out bytes.Buffer
	if err := Write(&out, "cnf", space.Lookup(), c.st, c.best, c.base, []search.Trial{c.base, c.best}, time.Time{}); err != nil {
		t.Fatal(err)
	}
	written := out.String()
	lines := strings.Split(written, "\n")
	fpAt := 0
	for i, l := range lines {
		if strings.HasPrefix(l, "# measured under fingerprint ") {
			fpAt = i + 1
		}
	}
	if fpAt == 0 || !strings.Contains(lines[fpAt-1], `host="2 cores, 8.0G RAM"`) {
		t.Fatalf("no fingerprint line with the host in:\n%s", written)
	}
	// with returns the export with line n replaced by repl.
	with := func(n int, repl string) string {
		ls := append([]string(nil), lines...)
		ls[n-1] = repl
		return strings.Join(ls, "\n")
	}
	fpLine := lines[fpAt-1]
	for _, tc := range []struct {
		name, text string
		line       int    // the line the error names; 0: no error
		want       string // in the error
	}{
		{"as written", written, 0, ""},
		{"edited fingerprint", with(fpAt, strings.Replace(fpLine, `host="2 cores`, `host="4 cores`, 1)), fpAt, "the line was edited"},
		{"truncated fingerprint", with(fpAt, fpLine[:len(fpLine)-3]), fpAt, "cannot read"},
		{"fingerprint without key", with(fpAt, `# measured under fingerprint server="x"`), fpAt, "want a 16-digit key"},
		{"fingerprint in an sql comment, edited", with(fpAt, "-- "+strings.TrimPrefix(strings.Replace(fpLine, `target="sandbox"`, `target="other"`, 1), "# ")), fpAt, "the line was edited"},
		{"second fingerprint line", written + fpLine + "\n", len(lines), "a second fingerprint line (the first is line " + fmt.Sprint(fpAt) + ")"},
		{"runtime knob with blanks around =", written + "# not an option: allocator = jemalloc\n", len(lines), `want "not an option: name=value"`},
		{"runtime knob without a value", written + "# not an option: allocator=\n", len(lines), `want "not an option: name=value"`},
		{"runtime knob with an upper-case name", written + "# not an option: Allocator=jemalloc\n", len(lines), `"not an option: Allocator=jemalloc"`},
		{"runtime knob without =", written + "#not an option: allocator\n", len(lines), "want"},
		{"not a comment", written + "measured under fingerprint x\nnot an option: y\n", 0, ""},
		{"another comment naming the words", written + "# this is not an option: y\n# the gain over the baseline: z\n", 0, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "best.cnf")
			if err := os.WriteFile(path, []byte(tc.text), 0o644); err != nil {
				t.Fatal(err)
			}
			h, err := Read(path)
			if tc.line == 0 {
				if err != nil {
					t.Fatal(err)
				}
				if h.Fingerprint == nil || h.FingerprintLine != fpAt || len(h.Runtime) != 1 || h.Gain == "" {
					t.Errorf("read %+v", h)
				}
				return
			}
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("err %v, want a *ParseError", err)
			}
			if pe.File != path || pe.Line != tc.line {
				t.Errorf("error names %s:%d, want %s:%d", pe.File, pe.Line, path, tc.line)
			}
			if prefix := fmt.Sprintf("%s:%d: ", path, tc.line); !strings.HasPrefix(err.Error(), prefix) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err %q, want %q and %q", err, prefix, tc.want)
			}
		})
	}
	if _, err := Read(filepath.Join(t.TempDir(), "missing.cnf")); !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), "missing.cnf") {
		t.Errorf("a missing file: %v", err)
	}
}
