package strategy

import (
	"testing"

	"github.com/autotune/autotune/space"
)

// firstSpace is the first search space: the twelve InnoDB knobs of the
// original study, durability knobs included (relaxed). Tests of strategy
// behaviour use it, so they do not change whenever the catalogue grows.
func firstSpace(t testing.TB) *space.Space {
	t.Helper()
	sp, err := space.FirstSpace()
	if err != nil {
		t.Fatal(err)
	}
	return sp
}
