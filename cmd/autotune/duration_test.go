package main

import (
	"strings"
	"testing"
	"time"
)

func TestParseDuration(t *testing.T) {
	const day = 24 * time.Hour
	for _, tc := range []struct {
		in   string
		want time.Duration
		err  bool
	}{
		{in: "2d", want: 2 * day},
		{in: "1d12h", want: day + 12*time.Hour},
		{in: "1d12h30m", want: day + 12*time.Hour + 30*time.Minute},
		{in: "1.5d", want: 36 * time.Hour},
		{in: "50h", want: 50 * time.Hour},
		{in: "90m", want: 90 * time.Minute},
		{in: "1h30m", want: 90 * time.Minute},
		{in: "0", want: 0},
		{in: "0d", want: 0},
		{in: " 3d ", want: 3 * day},
		{in: "", err: true},
		{in: "d", err: true},
		{in: "2", err: true},
		{in: "2x", err: true},
		{in: "12h1d", err: true},
		{in: "1d1d", err: true},
		{in: "-1d", err: true},
		{in: "+1d", err: true},
		{in: "1d-2h", err: true},
		{in: "-5h", err: true},
		{in: "1e3d", err: true},
		{in: "nand", err: true},
		{in: "infd", err: true},
		{in: "999999999d", err: true},
	} {
		got, err := ParseDuration(tc.in)
		switch {
		case tc.err && err == nil:
			t.Errorf("ParseDuration(%q) = %v, want an error", tc.in, got)
		case tc.err && !strings.Contains(err.Error(), "want a duration such as 2d, 1d12h, 50h or 90m"):
			t.Errorf("ParseDuration(%q): error %q does not say the accepted form", tc.in, err)
		case !tc.err && err != nil:
			t.Errorf("ParseDuration(%q): %v", tc.in, err)
		case !tc.err && got != tc.want:
			t.Errorf("ParseDuration(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

func TestFormatDurationReadsBack(t *testing.T) {
	for d, want := range map[time.Duration]string{
		0: "0", 90 * time.Second: "1m30s", 90 * time.Minute: "1h30m", 50 * time.Hour: "2d2h",
		48 * time.Hour: "2d", 36*time.Hour + 30*time.Second: "1d12h0m30s", 1500 * time.Millisecond: "1.5s",
	} {
		got := FormatDuration(d)
		if got != want {
			t.Errorf("FormatDuration(%v) = %q, want %q", d, got, want)
		}
		if back, err := ParseDuration(got); err != nil || back != d {
			t.Errorf("ParseDuration(FormatDuration(%v) = %q) = %v, %v", d, got, back, err)
		}
	}
}
