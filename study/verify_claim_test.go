package study

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/autotune/autotune/engine"
	"github.com/autotune/autotune/exportfile"
	"github.com/autotune/autotune/measure"
	"github.com/autotune/autotune/report"
	"github.com/autotune/autotune/runner"
	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/space"
	"github.com/autotune/autotune/storage"
)

// verify sets an export's claimed gain beside its own only when the
// export's fingerprint matches the conditions it measures under: an
// export of a study on another host (or server, benchmark, dataset) is
// measured all the same, and said to be not comparable, naming what
// differs; a relaxed study's export is compared (verify measures the
// file's own durability settings), and an edited fingerprint is refused.
func TestVerifyComparesClaimsOfTheSameConditionsOnly(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	prog := &logged{}
	cfg := Config{Bench: BenchSettings{Workload: "oltp_read_write", Threads: []int{4}, Tables: 2, TableSize: 1000}, Measure: Measure{Lambda: 0.5, Objective: "tps"}}
	r := &run{cfg: cfg, prog: prog, version: "mariadbd  Ver 10.11.19-MariaDB", host: runner.Host{Cores: 2, RAMBytes: 8 << 30},
		spaceM: &storage.SpaceManifest{Durability: "strict"}, engine: &engine.Engine{Bench: scripted{}}}
	man, err := r.manifest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	export := func(name string, m storage.Manifest, cores int) string {
		t.Helper()
		st := storage.StudyRecord{Name: "s", Settings: m.JSON(), ServerVersion: r.version, Cores: cores, RAMBytes: 8 << 30}
		t0 := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
		tr := func(n int, kind search.Kind, p space.Config, tps float64) search.Trial {
			return search.Trial{Study: "s", Number: n, State: search.Complete, Kind: kind, Params: p, Started: t0, Ended: t0.Add(time.Minute),
				Outcome: measure.Outcome{Score: tps, MeanTPS: tps}}
		}
		best := tr(1, search.Sampled, space.Config{"innodb_io_capacity": "2000"}, 700)
		trials := []search.Trial{tr(0, search.Baseline, space.Config{}, 500), best}
		for i, v := range []float64{700, 500, 710, 505} {
			k, p := search.ABBest, best.Params
			if i%2 == 1 {
				k, p = search.ABBase, space.Config{}
			}
			x := tr(2+i, k, p, v)
			x.RepeatOf = 1
			trials = append(trials, x)
		}
		var b bytes.Buffer
		if err := exportfile.Write(&b, "cnf", space.Lookup(), st, best, trials[0], trials, t0); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	relaxed := man
	relaxed.Space = &storage.SpaceManifest{Durability: "relaxed"}
	here, far, rel := export("here.cnf", man, 2), export("far.cnf", man, 16), export("relaxed.cnf", relaxed, 2)
	headers, err := exportHeaders([]string{here, far, rel})
	if err != nil {
		t.Fatal(err)
	}
	claims, err := r.exportClaims(ctx, headers)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	report.WriteClaims(&out, resultClaims(claims))
	got := out.String()
	log := strings.Join(prog.lines, "\n")
	t.Logf("log:\n%s\nclaims:\n%s", log, got)
	for _, want := range []string{
		here + ": its study's gain over the baseline, measured under these conditions: +40.3 % tps (95 % CI +36.6 .. +44.1 %",
		far + ": its study's gain was measured under other conditions (host 16 cores, 8.0G RAM → 2 cores, 8.0G RAM); not comparable with this verification",
		rel + ": its study's gain over the baseline, measured under these conditions: +40.3 % tps (95 % CI +36.6 .. +44.1 %",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("claims lack %q", want)
		}
	}
	if !strings.Contains(log, "verify "+far+": its study measured it under other conditions (host 16 cores") {
		t.Errorf("the run does not say far.cnf was measured elsewhere:\n%s", log)
	}
	// An edited fingerprint is refused, naming the file and the line.
	b, _ := os.ReadFile(here)
	edited := filepath.Join(dir, "edited.cnf")
	os.WriteFile(edited, bytes.Replace(b, []byte(`host="2 cores`), []byte(`host="4 cores`), 1), 0o644)
	line := 1 + bytes.Count(b[:bytes.Index(b, []byte("# measured under fingerprint "))], []byte("\n"))
	if _, err := exportHeaders([]string{here, edited}); !IsUsage(err) || !strings.Contains(err.Error(), fmt.Sprintf("verify %s:%d: ", edited, line)) || !strings.Contains(err.Error(), "the line was edited") {
		t.Errorf("edited fingerprint: %v", err)
	}
}
