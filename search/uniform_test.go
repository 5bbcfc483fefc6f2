package search

import (
	"context"
	"math/rand/v2"

	"github.com/autotune/autotune/space"
)

// uniformStrategy proposes configurations drawn uniformly over the unit
// cube of sp (Decode), from a seeded generator: the search tests' stand-in
// for a strategy (package strategy imports search, so its strategies
// cannot be used here). It counts the history it observed and keeps the horizon
// the study plans (Horizoner).
type uniformStrategy struct {
	sp       *space.Space
	rng      *rand.Rand
	observed int
	horizon  int
}

func newUniform(sp *space.Space, seed int64) *uniformStrategy {
	return &uniformStrategy{sp: sp, rng: rand.New(rand.NewPCG(uint64(seed), 7))}
}

func (u *uniformStrategy) Ask(ctx context.Context) (Proposal, error) {
	if err := ctx.Err(); err != nil {
		return Proposal{}, err
	}
	x := make([]float64, len(u.sp.Knobs()))
	for i := range x {
		x[i] = u.rng.Float64()
	}
	cfg, _ := u.sp.Repair(Decode(u.sp, x))
	return Proposal{Config: cfg, Kind: Sampled, Handle: -1}, nil
}

func (u *uniformStrategy) Tell(context.Context, Proposal, float64) error { return nil }
func (u *uniformStrategy) Observe(space.Config, float64) error           { u.observed++; return nil }
func (u *uniformStrategy) SetHorizon(n int)                              { u.horizon = n }
