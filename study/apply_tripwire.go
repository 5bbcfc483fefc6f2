package study

import (
	"context"
	"fmt"
	"time"

	"github.com/autotune/autotune/runner"
	"github.com/autotune/autotune/space"
	"github.com/autotune/autotune/study/result"
)

// tripwires revert an apply at once, without statistics, when the new
// settings hurt the server plainly. Read every second of the watch:
//   - the server stops answering (3 readings in a row fail);
//   - aborted connections (Aborted_clients + Aborted_connects) per
//     second, over 5 s, above 5 times the old settings' rate and 5/s;
//   - Threads_running above 4 times the old settings' mean and that
//     mean plus 16, 3 readings in a row;
//   - the server's resident memory above the limit (MaxMemory);
//   - a replica's lag above the limit and 30 s above its lag before;
//
// each under the new settings only (the old ones are the server's own),
//
// and at each new window's end: a statement digest holding at least 10 %
// of the window's time whose mean latency is at least 20 times its mean
// under the old settings and 10 ms (20 calls each at least): a plain
// slowdown short of that is the statistics' to judge.
type tripwires struct {
	maxMemory int64
	maxLag    time.Duration
	// threads and abortRate are the old settings' means (Threads_running;
	// aborted connections per second), from the readings before the
	// apply until the first old window, then from the old windows.
	threads, abortRate float64
	n                  int
	lag0               float64
	// oldDigests are the old windows' mean latency (seconds) per digest.
	oldDigests map[string]float64
	failures   int
	hot        int
	recent     []runner.Health
}

func newTripwires(maxMemory int64, maxLag time.Duration) *tripwires {
	return &tripwires{maxMemory: maxMemory, maxLag: maxLag, oldDigests: map[string]float64{}}
}

// baseline reads the server's health 3 times, a second apart, before the
// new settings are measured.
func (t *tripwires) baseline(ctx context.Context, ex *runner.Existing) error {
	var first runner.Health
	for i := 0; i < 3; i++ {
		h, err := ex.ReadHealth(ctx)
		if err != nil {
			return fmt.Errorf("the server does not answer: %w", err)
		}
		if i == 0 {
			first, t.lag0 = h, h.LagSeconds
		}
		t.threads += float64(h.ThreadsRunning) / 3
		if i == 2 {
			if el := h.At.Sub(first.At).Seconds(); el > 0 {
				t.abortRate = float64(h.Aborted-first.Aborted) / el
			}
			break
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Second):
		}
	}
	return nil
}

// run reads the health every second for d under arm and returns the
// first tripwire that fires (nil: none); the error is ctx's or a server
// that stopped answering (with the tripwire that says so).
func (t *tripwires) run(ctx context.Context, ex *runner.Existing, arm string, d time.Duration) (*result.ApplyTripped, error) {
	end := time.Now().Add(d)
	for {
		h, err := ex.ReadHealth(ctx)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if err != nil {
			t.failures++
			if t.failures >= 3 {
				return &result.ApplyTripped{Name: "server answers", Value: "no answer 3 times in a row (" + err.Error() + ")", Limit: "an answer every second"}, nil
			}
		} else {
			t.failures = 0
			if trip := t.check(h, arm); trip != nil {
				return trip, nil
			}
		}
		if !time.Now().Before(end) {
			return nil, nil
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(min(time.Second, time.Until(end)+time.Millisecond)):
		}
	}
}

// check applies the per-second tripwires to reading h.
func (t *tripwires) check(h runner.Health, arm string) *result.ApplyTripped {
	t.recent = append(t.recent, h)
	if len(t.recent) > 6 {
		t.recent = t.recent[1:]
	}
	if arm != "new" {
		// The old settings are the server's own: what they do is no
		// reason to revert to them.
		t.hot = 0
		return nil
	}
	if t.maxMemory > 0 && h.RSSBytes > t.maxMemory {
		return &result.ApplyTripped{Name: "memory", Value: "the server holds " + space.HumanBytes(h.RSSBytes), Limit: space.HumanBytes(t.maxMemory) + " (--max-memory)"}
	}
	if h.LagSeconds >= 0 && h.LagSeconds > t.maxLag.Seconds() && h.LagSeconds > t.lag0+30 {
		return &result.ApplyTripped{Name: "replication lag", Value: fmt.Sprintf("%.0f s behind its source", h.LagSeconds), Limit: fmt.Sprintf("%s (--max-lag), and 30 s above the %.0f s before", t.maxLag, t.lag0)}
	}
	limit := max(4*t.threads, t.threads+16)
	if float64(h.ThreadsRunning) > limit {
		t.hot++
	} else {
		t.hot = 0
	}
	if t.hot >= 3 {
		return &result.ApplyTripped{Name: "threads running", Value: fmt.Sprintf("%d", h.ThreadsRunning), Limit: fmt.Sprintf("%.0f (4 times the old settings' %.1f, and 16 more)", limit, t.threads)}
	}
	if len(t.recent) >= 6 {
		first := t.recent[0]
		if el := h.At.Sub(first.At).Seconds(); el > 0 {
			rate := float64(h.Aborted-first.Aborted) / el
			if lim := max(5, 5*t.abortRate); rate > lim {
				return &result.ApplyTripped{Name: "aborted connections", Value: fmt.Sprintf("%.1f/s", rate), Limit: fmt.Sprintf("%.1f/s (5 times the old settings' %.2f/s, and 5/s)", lim, t.abortRate)}
			}
		}
	}
	return nil
}

// oldWindow folds an old-settings window into the tripwires' baselines.
func (t *tripwires) oldWindow(w result.ApplyWindow, before, after runner.StatementStats) {
	if len(t.recent) > 0 {
		var s float64
		for _, h := range t.recent {
			s += float64(h.ThreadsRunning)
		}
		t.n++
		t.threads += (s/float64(len(t.recent)) - t.threads) / float64(t.n)
	}
	for k, a := range after.Digests {
		b := before.Digests[k]
		if c := a.Calls - b.Calls; c >= 20 && a.Seconds > b.Seconds {
			t.oldDigests[k] = (a.Seconds - b.Seconds) / float64(c)
		}
	}
}

// digestsMultiplied is the digest tripwire on a new window.
func (t *tripwires) digestsMultiplied(before, after runner.StatementStats) *result.ApplyTripped {
	var total float64
	for k, a := range after.Digests {
		total += a.Seconds - before.Digests[k].Seconds
	}
	if total <= 0 {
		return nil
	}
	for k, a := range after.Digests {
		b := before.Digests[k]
		c, secs := a.Calls-b.Calls, a.Seconds-b.Seconds
		old, ok := t.oldDigests[k]
		if !ok || c < 20 || secs < 0.1*total || old <= 0 {
			continue
		}
		if mean := secs / float64(c); mean >= 20*old && mean >= 0.010 {
			return &result.ApplyTripped{Name: "statement latency", Value: fmt.Sprintf("%q takes %.2f ms, %.0f times its %.3f ms under the old settings", a.Text, 1000*mean, mean/old, 1000*old), Limit: "20 times, and 10 ms"}
		}
	}
	return nil
}
