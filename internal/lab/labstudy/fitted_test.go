package labstudy

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/autotune/autotune/internal/lab"
	"github.com/autotune/autotune/measure"
	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/storage"
)

// storeFixture writes the fixture file ../fits/file into a new trials.db
// as study name and returns the store's path and the file's bytes.
func storeFixture(t *testing.T, file, name string) (string, []byte) {
	t.Helper()
	ctx := context.Background()
	b, err := os.ReadFile(filepath.Join("..", "fits", file))
	if err != nil {
		t.Fatal(err)
	}
	var fix lab.FitFixture
	if err := json.Unmarshal(b, &fix); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "trials.db")
	db, err := storage.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	t0 := time.Date(2026, 12, 2, 8, 0, 0, 0, time.UTC)
	if err := db.CreateStudy(ctx, storage.StudyRecord{Name: name, Settings: fix.Settings, Seed: 1, Cores: fix.Cores, RAMBytes: fix.RAMBytes, Created: t0}); err != nil {
		t.Fatal(err)
	}
	for i, ft := range fix.Trials {
		start := t0.Add(time.Duration(i) * time.Minute)
		tr := search.Trial{Study: name, Number: ft.Number, Kind: ft.Kind, State: search.Running, Params: ft.Params, Started: start}
		if err := db.BeginTrial(ctx, tr); err != nil {
			t.Fatal(err)
		}
		tr.State, tr.Outcome, tr.Ended = ft.State, measure.Outcome{Score: ft.Score}, start.Add(45*time.Second)
		if err := db.FinishTrial(ctx, tr, 45*time.Second); err != nil {
			t.Fatal(err)
		}
	}
	return path, b
}

// TestWriteFitFixtureRoundTrip stores each built-in fixture's trials and
// writes them back: the same bytes.
func TestWriteFitFixtureRoundTrip(t *testing.T) {
	for _, file := range []string{"random-2core.json", "hybrid-2core.json"} {
		path, want := storeFixture(t, file, "s")
		var about struct{ About string }
		if err := json.Unmarshal(want, &about); err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		if err := WriteFitFixture(context.Background(), path, "s", about.About, &got); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want) {
			t.Errorf("%s: written back differs:\n%s", file, got.Bytes())
		}
	}
}

// TestFittedLandscapeOfAStore fits the trials of a store: the landscape
// the built-in one fitted to the same trials is.
func TestFittedLandscapeOfAStore(t *testing.T) {
	path, _ := storeFixture(t, "random-2core.json", "r")
	got, err := FittedLandscape(context.Background(), path, "r")
	if err != nil {
		t.Fatal(err)
	}
	want, err := lab.NewLandscape("fitted")
	if err != nil {
		t.Fatal(err)
	}
	g, w := got.(*lab.Fitted), want.(*lab.Fitted)
	if g.Best() != w.Best() || g.Describe() != w.Describe() {
		t.Errorf("fitted to the store: best %g, %s; built-in: best %g, %s", g.Best(), g.Describe(), w.Best(), w.Describe())
	}
}

// TestFitFixtureErrors: a study not in the store is a usage error naming
// the caller's study flag; a store that does not exist names its flag
// and is not created.
func TestFitFixtureErrors(t *testing.T) {
	ctx := context.Background()
	path, _ := storeFixture(t, "random-2core.json", "r")
	err := WriteFitFixture(ctx, path, "nope", "x", &bytes.Buffer{})
	if !lab.IsUsage(err) || !strings.Contains(err.Error(), `-study "nope": no such study in `+path) {
		t.Errorf("WriteFitFixture of a missing study: %v", err)
	}
	_, err = FittedLandscape(ctx, path, "nope")
	if !lab.IsUsage(err) || !strings.Contains(err.Error(), `--fit-study "nope"`) {
		t.Errorf("FittedLandscape of a missing study: %v", err)
	}
	missing := filepath.Join(t.TempDir(), "missing.db")
	err = WriteFitFixture(ctx, missing, "r", "x", &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), `-db "`+missing+`": stat`) {
		t.Errorf("WriteFitFixture of a missing store: %v", err)
	}
	if _, serr := os.Stat(missing); serr == nil {
		t.Errorf("%s was created", missing)
	}
}
