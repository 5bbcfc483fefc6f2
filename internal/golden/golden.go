// Package golden compares test output with golden files under testdata/,
// rewriting them when a test runs with -update.
package golden

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/ instead of comparing")

// Check compares got with testdata/name, or rewrites the file with -update.
func Check(t testing.TB, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (go test -run %s -update rewrites it) at %s", path, t.Name(), firstDiff(string(want), string(got)))
	}
}

// firstDiff returns the first line where want and got differ, both sides.
func firstDiff(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(wl) || i < len(gl); i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			return fmt.Sprintf("line %d:\n  golden: %s\n  got:    %s", i+1, w, g)
		}
	}
	return "(no line differs)"
}

// proseKeys are expected.json keys that hold commentary, not values.
var proseKeys = map[string]bool{"notes": true}

// CompareExpected checks every key of want (a case's expected.json, as
// ReadJSON decodes it) against got (the parser's output encoded to JSON and
// decoded the same way), reporting each difference by its path (e.g.
// "a.txt.intervals[2].tps"). Keys of got that want does not mention are not
// checked; a "notes" key of want is prose and skipped; numbers agree within
// 1e-9 (relative above 1, absolute below).
func CompareExpected(t testing.TB, path string, want, got any) {
	t.Helper()
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			t.Errorf("%s: want an object, got %v", path, got)
			return
		}
		keys := make([]string, 0, len(w))
		for k := range w {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if proseKeys[k] {
				continue
			}
			gv, ok := g[k]
			if !ok {
				t.Errorf("%s.%s: the parser produces no such key (want %v)", path, k, w[k])
				continue
			}
			CompareExpected(t, path+"."+k, w[k], gv)
		}
	case []any:
		g, ok := got.([]any)
		if !ok {
			t.Errorf("%s: want a list, got %v", path, got)
			return
		}
		if len(g) != len(w) {
			t.Errorf("%s: want %d elements, got %d: %v", path, len(w), len(g), g)
			return
		}
		for i := range w {
			CompareExpected(t, fmt.Sprintf("%s[%d]", path, i), w[i], g[i])
		}
	case float64:
		g, ok := got.(float64)
		if !ok || math.Abs(g-w) > 1e-9*math.Max(1, math.Abs(w)) {
			t.Errorf("%s: want %v, got %v", path, w, got)
		}
	case nil:
		if got != nil {
			t.Errorf("%s: want null, got %v", path, got)
		}
	default:
		if !reflect.DeepEqual(want, got) {
			t.Errorf("%s: want %#v, got %#v", path, want, got)
		}
	}
}

// ReadJSON decodes the JSON object in the file at path (a case's
// expected.json); it fails the test when the file cannot be read or
// decoded.
func ReadJSON(t testing.TB, path string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return m
}
