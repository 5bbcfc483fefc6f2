package strategy

import (
	"context"

	"github.com/autotune/autotune/internal/testlandscape"
	"github.com/autotune/autotune/measure"
	"github.com/autotune/autotune/search"
)

// landscape is the tests' synthetic objective (testlandscape.New) as a
// study's objective.
func landscape(seed uint64) search.Objective {
	f := testlandscape.New(seed)
	return func(ctx context.Context, t search.Trial) (measure.Outcome, error) { return f(ctx, t.Params) }
}
