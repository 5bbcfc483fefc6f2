package tpcc

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autotune/autotune/internal/realtest"
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

// The go-tpc the tests install accepts every option the load and a run
// pass; a build whose help lacks --weight is refused, naming it.
func TestProbeGoTPC(t *testing.T) {
	ctx := context.Background()
	path, err := Find("")
	realtest.Program(t, err)
	if err := (Bench{Path: path, Warehouses: 2}).Probe(ctx); err != nil {
		t.Errorf("go-tpc: %v", err)
	}
	dir := t.TempDir()
	help, err := os.ReadFile("../testdata/help/go-tpc-tpcc-run-help.txt")
	if err != nil {
		t.Fatal(err)
	}
	var old []string
	for _, l := range strings.Split(string(help), "\n") {
		if !strings.Contains(l, "--weight") {
			old = append(old, l)
		}
	}
	os.WriteFile(filepath.Join(dir, "help.txt"), []byte(strings.Join(old, "\n")+"\n  --no-check\n  --use-fk\n  --retry-count int\n"), 0o644)
	fake := filepath.Join(dir, "go-tpc")
	script := "#!/bin/sh\ncat " + dir + "/help.txt\n"
	if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	err = Bench{Path: fake, Warehouses: 2}.checkOptions(ctx, fake, "go-tpc v0.1-old")
	if err == nil || !strings.Contains(err.Error(), "does not accept --weight") {
		t.Errorf("old build: %v", err)
	}
}
