package study

import (
	"context"
	"time"

	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/space"
	"github.com/autotune/autotune/strategy"
)

// fsyncProbeTime bounds the fsync probe of the expert warm start.
const fsyncProbeTime = time.Second

// expertFacts are what the expert warm start is derived from; a zero
// field skips the rule that needs it.
type expertFacts struct {
	ramBytes int64
	// memLimit is the host profile's memory limit (0: none).
	memLimit  int64
	dataBytes func() (int64, error)
	fsyncPS   func(ctx context.Context) (float64, error)
}

// newStrategy returns the strategy of a study run and the proposals
// measured right after the baseline: the seeds (--seed-from, in order),
// then, with warm start on, the expert configuration from the host's RAM
// (the buffer pool knob's range is already limited to the memory budget),
// the dataset's size and an fsync probe of the datadir's disk. Coordinate
// descent may start from any of them.
func newStrategy(ctx context.Context, name string, warmStart bool, seeds []search.Proposal, shape search.Shape, seed int64, horizon int, facts expertFacts, logf func(string, ...any)) (search.Strategy, []search.Proposal, error) {
	sp := shape.Space
	warm := append([]search.Proposal(nil), seeds...)
	var starts []space.Config
	for _, p := range seeds {
		starts = append(starts, p.Config)
	}
	if warmStart {
		in := strategy.ExpertInput{RAMBytes: facts.ramBytes, MemoryLimit: facts.memLimit}
		if k, ok := sp.Knob("innodb_buffer_pool_size"); ok {
			in.MemoryBudget = int64(k.Max)
		}
		if facts.dataBytes != nil {
			if n, err := facts.dataBytes(); err == nil {
				in.DataBytes = n
			} else {
				logf("expert warm start: %v (buffer pool rule skipped)", err)
			}
		}
		if facts.fsyncPS != nil {
			if r, err := facts.fsyncPS(ctx); err == nil {
				in.FsyncPerSec = r
			} else {
				if ctx.Err() != nil {
					return nil, nil, ctx.Err()
				}
				logf("expert warm start: %v (io capacity rule skipped)", err)
			}
		} else {
			logf("expert warm start: the datadir's disk cannot be probed here (io capacity rule skipped)")
		}
		cfg, why, err := strategy.ExpertConfig(sp, in)
		if err != nil {
			return nil, nil, err
		}
		if len(cfg) > 0 {
			logf("expert warm start (measured after the baseline):")
			for _, w := range why {
				logf("  %s", w)
			}
			warm = append(warm, search.Proposal{Config: cfg, Kind: search.Expert})
			starts = append(starts, cfg)
		}
	}
	st, err := strategy.NewStrategy(name, sp, strategy.StrategyOptions{Seed: seed, Horizon: horizon, Starts: starts, Shape: shape})
	if err != nil {
		return nil, nil, err
	}
	return st, warm, nil
}
