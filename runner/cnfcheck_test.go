package runner

import (
	"os"
	"strings"
	"testing"
)

func TestIgnoredConfigWarning(t *testing.T) {
	for _, f := range []string{"startup-output.txt", "mariadb-client-output.txt"} {
		b, err := os.ReadFile("testdata/writer-file-mode/" + f)
		if err != nil {
			t.Fatal(err)
		}
		got := IgnoredConfigWarning(string(b))
		if !strings.Contains(got, "99-tuner-candidate.cnf' is ignored") || strings.Contains(got, "\n") {
			t.Errorf("%s: %q", f, got)
		}
	}
	if got := IgnoredConfigWarning("2026-11-30 0 [Note] ready for connections.\n"); got != "" {
		t.Errorf("clean log: %q", got)
	}
	var tb tailBuffer
	tb.max = 4
	tb.Write([]byte("abcdef"))
	if tb.String() != "cdef" {
		t.Errorf("tail %q", tb.String())
	}
}
