package search

import (
	"strconv"
	"strings"
	"testing"

	"github.com/autotune/autotune/internal/testspace"
	"github.com/autotune/autotune/measure"
	"github.com/autotune/autotune/space"
)

func TestImportanceCaveat(t *testing.T) {
	sp := testspace.MariaDB(t)
	knobs := sp.Knobs()
	other := func(k space.Knob) string {
		for _, v := range []string{"0", "1", "2", "3"} {
			if v != k.Default {
				return v
			}
		}
		return "4"
	}
	// Four configurations, the baseline's and one change each of three
	// knobs, each measured twice: a caveat. Ten that vary one knob: none.
	trial := func(i int, c space.Config) Trial {
		return Trial{Number: i, State: Complete, Params: c, Outcome: measure.Outcome{Score: float64(100 + i)}}
	}
	var few []Trial
	for i := range 4 {
		c := space.Config{}
		if i > 0 {
			c[knobs[i%len(knobs)].Name] = other(knobs[i%len(knobs)])
		}
		few = append(few, trial(i, c))
		few = append(few, trial(i+100, c)) // a repeat is no new configuration
	}
	if c := ImportanceCaveat(sp, few); !strings.Contains(c, "from only 4 distinct configurations varying 3 knobs") {
		t.Errorf("4 configurations: caveat %q", c)
	}
	var many []Trial
	for i := range MinReliableConfigs {
		c := space.Config{knobs[0].Name: strconv.Itoa(1000 + i)}
		many = append(many, trial(i, c))
	}
	if c := ImportanceCaveat(sp, many); c != "" {
		t.Errorf("%d configurations varying 1 knob: caveat %q, want none", MinReliableConfigs, c)
	}
	if c := ImportanceCaveat(sp, many[:MinReliableConfigs-1]); c == "" {
		t.Errorf("%d configurations: no caveat", MinReliableConfigs-1)
	}
	failed := append([]Trial(nil), many...)
	failed[0].State = Failed
	if c := ImportanceCaveat(sp, failed); c == "" {
		t.Error("a failed trial counted as a configuration")
	}
}
