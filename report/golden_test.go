package report

import (
	"testing"
	"time"

	"github.com/autotune/autotune/internal/golden"
)

func goldenCheck(t *testing.T, name string, got []byte) { golden.Check(t, name, got) }

// fixtureT0 is when the fixture study starts.
var fixtureT0 = time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
