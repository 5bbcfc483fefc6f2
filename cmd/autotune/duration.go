package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// DurationForm is the accepted form of ParseDuration, for error messages
// and flag help.
const DurationForm = "a duration such as 2d, 1d12h, 50h or 90m (units d, h, m, s)"

// ParseDuration reads a wall-clock span such as a study budget: what
// time.ParseDuration accepts ("50h", "90m", "1h30m", "0"), optionally
// preceded by whole or decimal days, a day being 24 hours ("2d", "1d12h",
// "1.5d"). Days come first and once; a sign is not accepted. The error
// names s and the accepted form.
func ParseDuration(s string) (time.Duration, error) {
	bad := func() (time.Duration, error) {
		return 0, fmt.Errorf("%q: want %s", s, DurationForm)
	}
	t := strings.TrimSpace(s)
	if t == "" || strings.ContainsAny(t[:1], "+-") {
		return bad()
	}
	var days time.Duration
	if i := strings.IndexByte(t, 'd'); i >= 0 {
		n, err := strconv.ParseFloat(t[:i], 64)
		if err != nil || i == 0 || strings.ContainsAny(t[:i], "eE+-xX_pP") || math.IsInf(n, 0) || math.IsNaN(n) {
			return bad()
		}
		h := n * 24 * float64(time.Hour)
		if h > math.MaxInt64/2 {
			return bad()
		}
		days, t = time.Duration(h), t[i+1:]
		if t == "" {
			return days, nil
		}
	}
	d, err := time.ParseDuration(t)
	if err != nil || d < 0 || days > math.MaxInt64-d {
		return bad()
	}
	return days + d, nil
}

// FormatDuration renders d the way ParseDuration reads it, whole days
// split off and zero minutes and seconds left out: "2d", "1d12h",
// "1h30m", "90s"; "0" for zero.
func FormatDuration(d time.Duration) string {
	if d == 0 {
		return "0"
	}
	if d < 0 || d%time.Second != 0 {
		return d.String()
	}
	day := 24 * time.Hour
	days, rest := d/day, d%day
	out := ""
	if days > 0 {
		out = fmt.Sprintf("%dd", days)
	}
	if rest == 0 {
		return out
	}
	r := rest.String()
	if h, ok := strings.CutSuffix(r, "m0s"); ok {
		r = h + "m"
	}
	if h, ok := strings.CutSuffix(r, "h0m"); ok {
		r = h + "h"
	}
	return out + r
}
