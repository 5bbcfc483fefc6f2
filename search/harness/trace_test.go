package harness

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"

	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/space"
)

func TestTrace(t *testing.T) {
	if os.Getenv("TRACE") == "" {
		t.Skip()
	}
	l, _ := NewSynthetic(0)
	seed, _ := strconv.Atoi(os.Getenv("TRACE"))
	var starts []space.Config
	var ws []search.Proposal
	if os.Getenv("WARM") != "" {
		starts = []space.Config{l.Expert()}
		ws = []search.Proposal{{Config: l.Expert(), Kind: search.Expert}}
	}
	st, _ := newStrategy(os.Getenv("STRAT"), l.Space(), int64(seed)*7919+1, 100, starts)
	rng := rand.New(rand.NewPCG(uint64(seed), 0xda3e39cb94b95bdb))
	obj := func(ctx context.Context, tr search.Trial) (search.Outcome, error) {
		v, failed, _ := l.Measure(ctx, tr.Params, rng)
		tv, _ := l.True(tr.Params)
		fmt.Printf("%3d %-10s true %6.1f meas %6.1f %v %v\n", tr.Number, tr.Kind, tv/l.Best()*100, v/l.Best()*100, failed, l.Space().Changes(tr.Params))
		if failed {
			return search.Outcome{Failure: "x"}, nil
		}
		return search.Outcome{Score: v}, nil
	}
	s := &search.Study{Name: "h", Strategy: st, Objective: obj, Store: &memStore{}, MaxTrials: 100, WarmStart: ws}
	s.Run(context.Background())
	fmt.Println("best", l.Best())
}
