package tpcc

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/autotune/autotune/runner"
)

// Every option of the definition is passed to go-tpc run explicitly,
// with the value the definition records.
func TestRunPassesEveryDefinedOption(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	b := Bench{Path: self, Warehouses: 3}
	d, err := b.Definition(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	args := " " + strings.Join(b.runArgs(&runner.Server{Port: 3307}, 8, 20), " ") + " "
	for _, k := range d.Names() {
		v := d.Options[k]
		if !strings.Contains(args, " --"+k+" "+v+" ") && !strings.Contains(args, " --"+k+"="+v+" ") {
			t.Errorf("--%s %s is not on the command line %q", k, v, args)
		}
	}
	for _, want := range []string{" --threads 8 ", " --time 20s ", " --port 3307 ", " --output json "} {
		if !strings.Contains(args, want) {
			t.Errorf("%q not on the command line %q", want, args)
		}
	}
}
