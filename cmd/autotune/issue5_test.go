package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/spf13/pflag"
	"strings"
	"testing"
	"time"

	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/space"
	"github.com/autotune/autotune/storage"
)

func TestBenchSearchFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		err  string
	}{
		{[]string{"--strategies", "hybrid,annealing"}, `"annealing"`},
		{[]string{"--landscape", "flat"}, "--landscape"},
		{[]string{"--seeds", "0"}, "--seeds"},
		{[]string{"--trials", "2"}, "--trials"},
		{[]string{"--warm-start", "maybe"}, "--warm-start"},
		{[]string{"--fit-db", "x.db", "--objective-cmd", "echo 1"}, "not both"},
	} {
		cmd := newBenchSearchCmd()
		cmd.SetArgs(tc.args)
		cmd.SetOut(&bytes.Buffer{})
		cmd.SetErr(&bytes.Buffer{})
		err := cmd.Execute()
		var ue usageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%v: err %v, want a usage error naming %s", tc.args, err, tc.err)
		}
	}
}

func TestBenchSearchObjectiveCommand(t *testing.T) {
	o := &benchSearchOptions{landscape: "db", objective: `read x; echo 3`, strategies: []string{"hybrid", "random"}, seeds: 2, firstSeed: 1, trials: 4, warm: "off", parallel: 2}
	if err := o.validate(); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := runBenchSearch(context.Background(), o, &out); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	// A flat landscape: everything reaches the best at the baseline.
	if !strings.Contains(s, "| hybrid | no | 1 [1, 1] | 2/2 |") || !strings.Contains(s, "best mean any run found, 3") {
		t.Fatalf("output:\n%s", s)
	}
}

func TestBenchSearchFittedNeedsTheStudy(t *testing.T) {
	path := t.TempDir() + "/t.db"
	db, err := storage.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	o := &benchSearchOptions{landscape: "db", fitDB: path, fitStudy: "nope", strategies: []string{"random"}, seeds: 1, firstSeed: 1, trials: 3, warm: "off", parallel: 1}
	err = runBenchSearch(context.Background(), o, &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), `--fit-study "nope"`) {
		t.Fatalf("err %v", err)
	}
}

func TestStrategyFlag(t *testing.T) {
	o := &searchOptions{}
	o.AddFlags(pflag.NewFlagSet("search", pflag.ContinueOnError)) // flag defaults
	o.study, o.db, o.trials, o.workload, o.threads, o.tables, o.tableSize = "s", "t.db", 3, "oltp_read_write", []int{4}, 1, 10
	o.duration, o.workdir = 10*time.Second, "w"
	o.strategy = "hybrid"
	if err := o.validate(); err != nil {
		t.Fatal(err)
	}
	o.strategy = "genetic"
	if err := o.validate(); err == nil || !strings.Contains(err.Error(), "--strategy") {
		t.Fatalf("err %v", err)
	}
}

func TestPlannerPrintsAndSetsTheReserve(t *testing.T) {
	var lines []string
	logf := func(f string, a ...any) {
		lines = append(lines, strings.TrimSpace(strings.ReplaceAll(sprintf(f, a...), "\n", " ")))
	}
	h := search.NewHybrid(mustFirstSpace(t), search.HybridOptions{Seed: 1})
	study := &search.Study{Strategy: h}
	o := &searchOptions{budget: time.Hour, warmup: 10 * time.Second, duration: 20 * time.Second}
	p := newPlanner(o, study, nil, logf)
	if pl := p.start(); pl.From != 0 || len(lines) != 0 {
		t.Fatalf("new study: plan %+v printed %v, want nothing printed before a trial", pl, lines)
	}
	start := time.Unix(0, 0)
	for i := 0; i < 2; i++ {
		tr := search.Trial{Number: i, State: search.Complete, Started: start, Ended: start.Add(36 * time.Second),
			Outcome: search.Outcome{Phases: map[string]float64{"restore": 2, "start": 0.5, "warmup": 10, "measure": 20, "stop": 0.5}}}
		p.onTrial(search.Event{Trial: tr, Spent: time.Duration(i+1) * 36 * time.Second})
	}
	if len(lines) != 2 || !strings.Contains(lines[0], "a trial costs 36s") || !strings.Contains(lines[1], "reserved for confirmation") {
		t.Fatalf("printed %q", lines)
	}
	if study.Reserve <= 0 || study.Reserve > 15*time.Minute {
		t.Fatalf("reserve %s", study.Reserve)
	}
}

func TestWriteImportance(t *testing.T) {
	var b bytes.Buffer
	writeImportance(&b, []search.KnobImportance{{Knob: "innodb_buffer_pool_size", Importance: 0.75}, {Knob: "innodb_doublewrite", Importance: 0.05}}, 30)
	want := "from 30 complete trials; the knobs explain 80 %"
	if !strings.Contains(b.String(), want) || !strings.Contains(b.String(), "innodb_buffer_pool_size           75.0 %  ##############################") {
		t.Fatalf("got:\n%s", b.String())
	}
	b.Reset()
	writeImportance(&b, []search.KnobImportance{{Knob: "innodb_buffer_pool_size", Importance: 0.001}}, 16)
	if !strings.Contains(b.String(), "no knob's effect stands out") || strings.Contains(b.String(), "innodb_buffer_pool_size") {
		t.Fatalf("nothing explained: got:\n%s", b.String())
	}
}

func sprintf(f string, a ...any) string { return fmt.Sprintf(f, a...) }

func mustFirstSpace(t testing.TB) *space.Space {
	t.Helper()
	sp, err := space.FirstSpace()
	if err != nil {
		t.Fatal(err)
	}
	return sp
}
