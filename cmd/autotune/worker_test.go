package main

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"syscall"
	"testing"
	"time"

	"github.com/autotune/autotune/internal/teststore"
	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/storage"
)

// TestTwoWorkersOneStudy: two workers share a study through a MariaDB
// store (a second sandboxed server); one is killed (SIGKILL) in the middle
// of a trial. The other recognises the dead worker's trial as stale, runs
// its config again, and the study completes with every trial number used
// once, no trial left running, no configuration searched twice, and the
// confirmations (--confirm 2) made by whichever worker claimed next.
func TestTwoWorkersOneStudy(t *testing.T) {
	store := teststore.Start(t, "")
	url := store.URL("autotune")
	bin := buildBinary(t)
	base, err := os.MkdirTemp("", "at-w")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	const trials = 6
	args := func(name string) []string {
		return []string{"worker", "--study", "shared", "--db", url, "--workdir", filepath.Join(base, name),
			"--trials", "6", "--tables", "1", "--table-size", "1000", "--threads", "2",
			"--warmup", "1s", "--duration", "3s", "--heartbeat", "500ms", "--seed", "7"}
	}
	a := startAutotune(t, bin, args("a")...)
	b := startAutotune(t, bin, args("b")...)

	// Kill worker a in the middle of its second trial.
	started := regexp.MustCompile(`trial (\d+) \((\w+)\) started`)
	n := 0
	deadline := time.After(3 * time.Minute)
	for n < 2 {
		select {
		case l, ok := <-a.lines:
			if !ok {
				t.Fatal("worker a ended before its second trial")
			}
			if started.MatchString(l) {
				n++
			}
		case <-deadline:
			t.Fatal("worker a did not start two trials")
		}
	}
	time.Sleep(2 * time.Second)
	if err := a.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-a.done
	assertNoServer(t, filepath.Join(base, "a"))

	code, out := b.wait(t, 4*time.Minute)
	if code != 0 {
		t.Fatalf("worker b exited %d:\n%s", code, out)
	}
	assertNoServer(t, filepath.Join(base, "b"))

	db, err := storage.Open(url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	all, err := db.Trials(ctx, "shared")
	if err != nil {
		t.Fatal(err)
	}
	claims, err := db.Claims(ctx, "shared")
	if err != nil {
		t.Fatal(err)
	}
	finished, interrupted, confirms := 0, 0, 0
	measured := map[string]int{}
	workers := map[string]bool{}
	byNumber := map[int]search.Trial{}
	for _, tr := range all {
		byNumber[tr.Number] = tr
	}
	for _, tr := range all {
		c, ok := claims[tr.Number]
		if !ok {
			t.Errorf("trial %d has no claim (no host recorded)", tr.Number)
		}
		workers[c.ID] = true
		t.Logf("trial %d %s %s by %s on %s (%d cores): %s %s", tr.Number, tr.Kind, tr.State, c.ID, c.Host, c.Cores, tr.Params.Key(), tr.Failure)
		switch {
		case tr.State == search.Interrupted:
			interrupted++
		case tr.Kind == search.Confirm:
			// A confirmation repeats a complete search trial's
			// configuration, whichever worker measured that.
			confirms++
			if of, ok := byNumber[tr.RepeatOf]; !ok || of.Params.Key() != tr.Params.Key() || of.Kind.Extra() {
				t.Errorf("confirmation %d repeats trial %d (%v), not a search trial of its configuration", tr.Number, tr.RepeatOf, of.Params)
			}
		case tr.Kind.Extra():
		case tr.State == search.Complete || tr.State == search.Failed:
			finished++
			measured[tr.Params.Key()]++
		default:
			t.Errorf("trial %d left %s", tr.Number, tr.State)
		}
	}
	if finished != trials {
		t.Errorf("%d finished trials, want %d", finished, trials)
	}
	if interrupted < 1 {
		t.Errorf("the killed worker's trial was not marked interrupted")
	}
	if confirms < 2 {
		t.Errorf("%d confirmations; want at least the warm start's 2 (--confirm 2)", confirms)
	}
	if len(workers) != 2 {
		t.Errorf("trials were claimed by %d workers, want 2", len(workers))
	}
	for key, k := range measured {
		if k > 1 {
			t.Errorf("config %q measured %d times", key, k)
		}
	}
	// The dead worker's config was measured again (not lost).
	for _, tr := range all {
		if tr.State == search.Interrupted && measured[tr.Params.Key()] != 1 {
			t.Errorf("interrupted trial %d's config was not measured again", tr.Number)
		}
	}
}
