package study

import (
	"strings"
	"testing"
)

func TestParseMemoryBudget(t *testing.T) {
	const ram = 8 << 30
	for _, tc := range []struct {
		in   string
		want int64
		err  bool
	}{
		{"50%", 4 << 30, false},
		{"100%", 8 << 30, false},
		{"12G", 12 << 30, false},
		{"0%", 0, true},
		{"101%", 0, true},
		{"NaN%", 0, true},
		{"Inf%", 0, true},
		{"1e-12%", 0, true}, // rounds to 0 bytes
		{"x%", 0, true},
		{"0", 0, true},
		{"12X", 0, true},
	} {
		got, err := ParseMemoryBudget(tc.in, ram)
		if (err != nil) != tc.err || got != tc.want {
			t.Errorf("ParseMemoryBudget(%q) = %d, %v; want %d, error %v", tc.in, got, err, tc.want, tc.err)
		}
		if err != nil && !strings.Contains(err.Error(), tc.in) {
			t.Errorf("ParseMemoryBudget(%q): error %q does not name the input", tc.in, err)
		}
	}
}
