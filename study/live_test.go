package study

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/autotune/autotune/measure"
	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/space"
	"github.com/autotune/autotune/storage"
)

// failingLive is a store whose every live write fails.
type failingLive struct {
	mu    sync.Mutex
	calls int
}

func (f *failingLive) AppendLiveSamples(context.Context, string, int, []measure.Sample) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	return errors.New("disk full")
}

// TestLiveWriterFailsQuietly: failed writes are logged once and never
// block the caller.
func TestLiveWriterFailsQuietly(t *testing.T) {
	f := &failingLive{}
	var logs []string
	w := newLiveWriter(f, func(format string, a ...any) { logs = append(logs, fmt.Sprintf(format, a...)) })
	tr := search.Trial{Study: "s", Number: 3}
	for i := 1; i <= 5; i++ {
		w.add(tr, measure.Sample{T: float64(i)})
		time.Sleep(5 * time.Millisecond) // separate batches
	}
	w.close()
	if f.calls < 2 {
		t.Fatalf("%d writes, want one per batch (at least 2)", f.calls)
	}
	if len(logs) != 1 || !strings.Contains(logs[0], "disk full") {
		t.Fatalf("logs: %q, want one naming the error", logs)
	}
	var nilW *liveWriter
	nilW.add(tr, measure.Sample{}) // no store: nothing, no panic
	if err := nilW.close(); err != nil {
		t.Fatal(err)
	}
}

// TestLiveWriterWritesTheRunningTrial: the samples of a running trial
// reach the store in order, each trial's to its own rows.
func TestLiveWriterWritesTheRunningTrial(t *testing.T) {
	ctx := context.Background()
	db, err := storage.Open(filepath.Join(t.TempDir(), "trials.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.CreateStudy(ctx, storage.StudyRecord{Name: "s", Settings: `{}`}); err != nil {
		t.Fatal(err)
	}
	for n := 0; n < 2; n++ {
		if err := db.BeginTrial(ctx, search.Trial{Study: "s", Number: n, Kind: search.Sampled, Params: space.Config{}, Started: time.Now()}); err != nil {
			t.Fatal(err)
		}
	}
	w := newLiveWriter(db, t.Logf)
	for i := 1; i <= 6; i++ {
		w.add(search.Trial{Study: "s", Number: i % 2}, measure.Sample{T: float64(i), TPS: float64(100 * i)})
	}
	w.close()
	for n, want := range map[int][]float64{0: {200, 400, 600}, 1: {100, 300, 500}} {
		got, err := db.LiveSamples(ctx, "s", n)
		if err != nil {
			t.Fatal(err)
		}
		var tps []float64
		for _, s := range got {
			tps = append(tps, s.TPS)
		}
		if fmt.Sprint(tps) != fmt.Sprint(want) {
			t.Errorf("trial %d: live tps %v, want %v", n, tps, want)
		}
	}
}

// A sample that arrives after the writer closed (a benchmark's last
// second while the run is torn down) is dropped, not a panic; closing
// twice is fine.
func TestLiveWriterAfterClose(t *testing.T) {
	w := newLiveWriter(&failingLive{}, t.Logf)
	w.close()
	w.add(search.Trial{Study: "s", Number: 1}, measure.Sample{T: 1, TPS: 1})
	w.close()
}
