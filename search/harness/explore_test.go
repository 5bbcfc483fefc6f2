package harness

import (
	"context"
	"os"
	"testing"
)

func TestExplore(t *testing.T) {
	if os.Getenv("EXPLORE") == "" {
		t.Skip()
	}
	for _, extra := range []int{0} {
		l, err := NewSynthetic(extra)
		if err != nil {
			t.Fatal(err)
		}
		o := Options{Strategies: Strategies(), Seeds: 12, Trials: 100, Warm: []bool{false, true}, Parallel: 2}
		runs, err := Compare(context.Background(), l, o)
		if err != nil {
			t.Fatal(err)
		}
		WriteTable(os.Stdout, l, l.Best(), Summarise(runs, l.Best(), o), o)
	}
}
