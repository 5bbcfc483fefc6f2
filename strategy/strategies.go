package strategy

import (
	"fmt"
	"strings"

	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/space"
)

// StrategyNames returns the names NewStrategy accepts, the default first.
func StrategyNames() []string { return []string{"hybrid", "coordinate", "tpe", "random"} }

// StrategyOptions are the settings common to the strategies.
type StrategyOptions struct {
	// Seed seeds the strategy.
	Seed int64
	// Horizon is the planned number of trials (hybrid; 0: 100).
	Horizon int
	// Starts are the configurations measured first besides the baseline
	// (the expert warm start, seeds): coordinate descent may start from
	// them, the hybrid probes the knobs they set.
	Starts []space.Config
	// Shape is how the study shapes a proposal into what it measures
	// (hybrid, coordinate descent: their history recognises a step that
	// only moves a knob the repair moves back, and the baseline as
	// measured under Base).
	Shape search.Shape
}

// NewStrategy returns the strategy called name over sp: "hybrid"
// (Hybrid), "coordinate" (CoordinateDescent), "tpe" (goptuna's TPE) or
// "random" (uniform random). It returns an error naming the accepted
// names for any other name.
func NewStrategy(name string, sp *space.Space, o StrategyOptions) (search.Strategy, error) {
	switch name {
	case "hybrid":
		return NewHybrid(sp, HybridOptions{Seed: o.Seed, Horizon: o.Horizon, Starts: o.Starts, Shape: o.Shape}), nil
	case "coordinate":
		return NewCoordinate(sp, CoordinateOptions{Starts: o.Starts, Shape: o.Shape, Seed: o.Seed}), nil
	case "tpe":
		return NewTPE(sp, o.Seed)
	case "random":
		return NewRandom(sp, o.Seed)
	}
	return nil, fmt.Errorf("strategy %q: want one of %s", name, strings.Join(StrategyNames(), ", "))
}
