package runner

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestPoolLoadDone(t *testing.T) {
	for _, tc := range []struct {
		status       string
		done, loaded bool
	}{
		{"Buffer pool(s) load completed at 261201 12:00:01", true, true},
		{"Buffer pool(s) load completed at 2026-12-01 12:00:01", true, true},
		{"Loaded 512/70000 pages", false, false},
		{"", false, false},
		{"Buffer pool(s) load aborted on request", true, false},
		{"Cannot open '/data/ib_buffer_pool' for reading: No such file or directory", true, false},
		{"Buffer pool load not started", true, false},
	} {
		if d, l := PoolLoadDone(tc.status); d != tc.done || l != tc.loaded {
			t.Errorf("%q: done %v loaded %v, want %v %v", tc.status, d, l, tc.done, tc.loaded)
		}
	}
}

// The wait for the buffer pool load ends at its limit, whether the status
// never says "completed" or the status query itself hangs.
func TestWaitPoolLoadDeadline(t *testing.T) {
	progress := func(context.Context) (string, error) { return "Loaded 5/70000 pages", nil }
	hang := func(ctx context.Context) (string, error) { <-ctx.Done(); return "", ctx.Err() }
	for name, status := range map[string]func(context.Context) (string, error){"never completes": progress, "query hangs": hang} {
		t0 := time.Now()
		_, err := waitPoolLoad(context.Background(), status, running, 20*time.Millisecond, 300*time.Millisecond)
		if !errors.Is(err, ErrPoolLoadTimeout) {
			t.Errorf("%s: err %v, want ErrPoolLoadTimeout", name, err)
		}
		if d := time.Since(t0); d > 5*time.Second {
			t.Errorf("%s: returned after %s", name, d)
		}
	}
	n := 0
	done := func(context.Context) (string, error) {
		n++
		if n < 3 {
			return "Loaded 5/7 pages", nil
		}
		return "Buffer pool(s) load completed at 261201 12:00:01", nil
	}
	load, err := waitPoolLoad(context.Background(), done, running, time.Millisecond, time.Minute)
	if err != nil || !load.Loaded || n != 3 {
		t.Fatalf("load %+v err %v after %d polls", load, err, n)
	}
}

// running is the exited probe of a server that has not exited.
func running() error { return nil }

// A server that exits while loading ends the wait at once with its exit
// status, not at the limit with a status query that keeps failing.
func TestWaitPoolLoadServerExited(t *testing.T) {
	polls := 0
	status := func(context.Context) (string, error) {
		polls++
		if polls < 3 {
			return "Loaded 5/70000 pages", nil
		}
		return "", errors.New("dial unix /sb/run/mysqld.sock: connect: no such file or directory")
	}
	exited := func() error {
		if polls < 3 {
			return nil
		}
		return fmt.Errorf("%w: server exited (signal: killed)", ErrExitedDuringPoolLoad)
	}
	t0 := time.Now()
	load, err := waitPoolLoad(context.Background(), status, exited, time.Millisecond, time.Minute)
	if !errors.Is(err, ErrExitedDuringPoolLoad) || !strings.Contains(err.Error(), "signal: killed") || polls != 3 {
		t.Fatalf("err %v after %d polls, want ErrExitedDuringPoolLoad at the first failed query", err, polls)
	}
	if d := time.Since(t0); d > 10*time.Second || !strings.Contains(load.Status, "no such file") {
		t.Fatalf("returned after %s with status %q", d, load.Status)
	}
}
