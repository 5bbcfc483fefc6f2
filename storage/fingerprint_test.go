package storage

import (
	"fmt"
	"testing"
	"time"

	"github.com/autotune/autotune/measure"
	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/space"
)

// A study measured under two fingerprints keeps two segments: each
// SegmentStore stamps the trials it writes with its key and returns only
// those (and the unstamped trials of before fingerprints, until
// StampFingerprint gives them their key), and a search through one never
// sees the other's trials or reuses their numbers.
func TestSegmentsKeepFingerprintsApart(t *testing.T) {
	check := func(t *testing.T, db *DB) {
		if err := db.CreateStudy(ctx, StudyRecord{Name: "seg", Settings: `{}`}); err != nil {
			t.Fatal(err)
		}
		t0 := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
		mk := func(n int, kind search.Kind, tps float64) search.Trial {
			return search.Trial{Study: "seg", Number: n, State: search.Complete, Kind: kind,
				Params: space.Config{"innodb_io_capacity": fmt.Sprint(1000 + n)}, Started: t0, Ended: t0.Add(time.Minute),
				Outcome: measure.Outcome{Score: tps, MeanTPS: tps}}
		}
		// Trial 0 predates fingerprints; trials 1-2 are strict's, 3-4 relaxed's.
		if err := db.FinishTrial(ctx, mk(0, search.Baseline, 100), time.Minute); err != nil {
			t.Fatal(err)
		}
		strict, relaxed := SegmentStore{DB: db, Key: "strict000000000a"}, SegmentStore{DB: db, Key: "relaxed00000000b"}
		if n, err := db.StampFingerprint(ctx, "seg", "", strict.Key); err != nil || n != 1 {
			t.Fatalf("stamped %d, %v; want the 1 unstamped trial", n, err)
		}
		if err := strict.BeginTrial(ctx, mk(1, search.Expert, 150)); err != nil {
			t.Fatal(err)
		}
		for _, w := range []struct {
			s  SegmentStore
			tr search.Trial
		}{{strict, mk(1, search.Expert, 150)}, {strict, mk(2, search.Sampled, 160)}, {relaxed, mk(3, search.Baseline, 300)}, {relaxed, mk(4, search.Expert, 400)}} {
			if err := w.s.FinishTrial(ctx, w.tr, time.Minute); err != nil {
				t.Fatal(err)
			}
		}
		numbers := func(s SegmentStore) []int {
			ts, err := s.Trials(ctx, "seg")
			if err != nil {
				t.Fatal(err)
			}
			var out []int
			for _, tr := range ts {
				if tr.Fingerprint != s.Key {
					t.Errorf("trial %d: fingerprint %q in segment %s", tr.Number, tr.Fingerprint, s.Key)
				}
				out = append(out, tr.Number)
			}
			return out
		}
		if got := numbers(strict); len(got) != 3 || got[0] != 0 || got[2] != 2 {
			t.Errorf("strict segment: trials %v, want 0 1 2", got)
		}
		if got := numbers(relaxed); len(got) != 2 || got[0] != 3 || got[1] != 4 {
			t.Errorf("relaxed segment: trials %v, want 3 4", got)
		}
		all := trials(t, db, "seg")
		own, other := Segment(all, relaxed.Key)
		if best, base := search.Best(own); best.Number != 4 || base.Number != 3 || len(other) != 3 {
			t.Errorf("relaxed segment: best %d over baseline %d (other %d); want 4 over 3, 3 others", best.Number, base.Number, len(other))
		}
	}
	t.Run("sqlite", func(t *testing.T) {
		db, err := Open(":memory:")
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		check(t, db)
	})
	t.Run("mysql", func(t *testing.T) { check(t, openMySQLStore(t)) })
}

// Diff names the fields in which two fingerprints differ, a field one
// of them lacks (as a fingerprint read back from a file's header lacks
// the fields that were empty) or leaves empty included; Without drops
// fields and so changes the key.
func TestFingerprintDiffOfMissingFields(t *testing.T) {
	m := Manifest{Workload: "oltp_read_write", Threads: 16, Lambda: 0.5, Measure: MeasureManifest{BenchCmd: `sh -c "run; echo \"done\""`}}
	fp := FingerprintOf(m, "/usr/sbin/mariadbd  Ver 10.11.19-MariaDB-0+deb12u1 for debian-linux-gnu", 2, 8<<30)
	if d := fp.Diff(fp); len(d) != 0 {
		t.Errorf("a fingerprint differs from itself: %v", d)
	}
	// A field one side lacks (a header's fingerprint line leaves out the
	// empty ones) but the other sets is a difference, whichever side it
	// is on.
	withCmd := FingerprintOf(Manifest{Workload: "oltp_read_write", Threads: 16, Lambda: 0.5, Measure: MeasureManifest{BenchCmd: "x"}}, "v", 2, 8<<30)
	var noCmd Fingerprint
	for _, kv := range FingerprintOf(Manifest{Workload: "oltp_read_write", Threads: 16, Lambda: 0.5}, "v", 2, 8<<30) {
		if kv[1] != "" {
			noCmd = append(noCmd, kv)
		}
	}
	if d := noCmd.Diff(withCmd); len(d) != 2 || d[0].Field != "benchmark" || d[1].Field != "bench_cmd" || d[1].New != "x" {
		t.Errorf("a field set on one side only: %v", d)
	}
	if w := fp.Without("durability", "score"); len(w) != len(fp)-2 || w.Key() == fp.Key() {
		t.Errorf("Without: %d fields of %d", len(w), len(fp))
	}
}
