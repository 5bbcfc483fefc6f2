package runner

import (
	"context"
	"errors"
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
		_, err := waitPoolLoad(context.Background(), status, 20*time.Millisecond, 300*time.Millisecond)
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
	load, err := waitPoolLoad(context.Background(), done, time.Millisecond, time.Minute)
	if err != nil || !load.Loaded || n != 3 {
		t.Fatalf("load %+v err %v after %d polls", load, err, n)
	}
}
