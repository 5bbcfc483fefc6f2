package report

import (
	"time"
)

// fixtureT0 is when the fixture study starts.
var fixtureT0 = time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
