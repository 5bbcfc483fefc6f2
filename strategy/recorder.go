package strategy

import (
	"context"

	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/space"
)

// recorder keeps the measured history of a strategy that learns from every
// trial, whoever proposed it (hybrid, coordinate descent): it gives
// them one Observe and one Tell.
type recorder struct {
	h *history
}

// Observe adds a measured configuration to the history.
func (r recorder) Observe(cfg space.Config, value float64) error {
	r.h.add(cfg, value)
	return nil
}

// Tell records the value of any proposal, the strategy's own or not.
func (r recorder) Tell(ctx context.Context, p search.Proposal, value float64) error {
	r.h.add(p.Config, value)
	return nil
}
