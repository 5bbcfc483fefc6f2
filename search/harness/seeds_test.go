package harness

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
)

func TestSeeds(t *testing.T) {
	if os.Getenv("SEEDS") == "" {
		t.Skip()
	}
	l, _ := NewSynthetic(0)
	for _, s := range strings.Split(os.Getenv("SEEDS"), ",") {
		for _, w := range []bool{false, true} {
			var out []string
			for seed := 1; seed <= 12; seed++ {
				r, err := RunOne(context.Background(), l, s, seed, 100, w)
				if err != nil {
					t.Fatal(err)
				}
				out = append(out, fmt.Sprintf("%v/%v", TrialsTo(r, 0.9, l.Best()), TrialsTo(r, 0.95, l.Best())))
			}
			fmt.Println(s, w, out)
		}
	}
}
