package report

import (
	"bytes"
	"fmt"
	"strconv"
	"testing"

	"github.com/autotune/autotune/internal/golden"
	"github.com/autotune/autotune/measure"
	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/space"
)

// confirmedStudy is a study with --confirm 2 in which trial 6 has the
// highest single score but its re-measurements demote it, and trial 9 is
// confirmed and becomes the best; trial 3 was confirmed earlier.
func confirmedStudy() []search.Trial {
	// Every configuration is its own (the io capacity is the trial number
	// it was first measured as); a confirmation repeats its candidate's.
	run := func(n int, kind search.Kind, of int, score float64) search.Trial {
		p := space.Config{}
		switch kind {
		case search.Sampled:
			p = space.Config{"innodb_io_capacity": strconv.Itoa(1000 + n)}
		case search.Confirm:
			p = space.Config{"innodb_io_capacity": strconv.Itoa(1000 + of)}
		}
		t := search.Trial{Number: n, Kind: kind, State: search.Complete, Params: p,
			RepeatLink: search.RepeatLink{RepeatOf: of}, Outcome: measure.Outcome{Score: score, MeanTPS: score * 1.05}}
		if kind == search.Sampled {
			t.ConfirmNeeded = 2
		}
		return t
	}
	failed := run(2, search.Sampled, 0, 0)
	failed.State = search.Failed
	return []search.Trial{
		run(0, search.Baseline, 0, 500), run(1, search.Sampled, 0, 450), failed,
		run(3, search.Sampled, 0, 700), run(4, search.Confirm, 3, 650), run(5, search.Confirm, 3, 690),
		run(6, search.Sampled, 0, 980), run(7, search.Confirm, 6, 640), run(8, search.Confirm, 6, 600),
		run(9, search.Sampled, 0, 900), run(10, search.Confirm, 9, 860), run(11, search.Confirm, 9, 880),
		run(12, search.Sampled, 0, 520),
	}
}

// TestBestSoFarFollowsTheConfirmedIncumbent: the score plot's best-so-far
// line is the study's best as it stood after each trial (the baseline,
// then trial 3 once confirmed, then trial 9 once confirmed, each at the
// mean of its confirmations), never the highest single score (trial 6).
func TestBestSoFarFollowsTheConfirmedIncumbent(t *testing.T) {
	var out bytes.Buffer
	for _, s := range bestSoFarSteps(confirmedStudy()) {
		fmt.Fprintf(&out, "after trial %2d: best #%d, score %.1f\n", s.Trial, s.Best, s.Score)
		if s.Best == 6 {
			t.Errorf("after trial %d the line shows trial 6, demoted by its re-measurements", s.Trial)
		}
	}
	golden.Check(t, "best-so-far.golden", out.Bytes())
	best, _ := search.Best(confirmedStudy())
	steps := bestSoFarSteps(confirmedStudy())
	if last := steps[len(steps)-1]; last.Best != best.Number || last.Score != best.Score {
		t.Errorf("the line ends at #%d %.1f, the study's best is #%d %.1f", last.Best, last.Score, best.Number, best.Score)
	}
}
