package study

import (
	"context"
	"strings"
	"testing"

	"github.com/autotune/autotune/internal/realtest"
	"github.com/autotune/autotune/runner"
	"github.com/autotune/autotune/space"
	"github.com/autotune/autotune/strategy"
)

// TestExpertWarmStartNeverBelowTheServersDefaults resolves the space on
// each server of the matrix and derives the expert warm start from the
// inputs of the first MySQL 9.7 study (a small dataset, a disk of 7530
// synchronous writes/s): no knob is set below what that server ships.
// Against MySQL 9.7 the rules written for MariaDB's defaults set
// innodb_io_capacity 3765 (default 10000) and a 32M redo log (default
// 100M).
func TestExpertWarmStartNeverBelowTheServersDefaults(t *testing.T) {
	realtest.EachServer(t, func(t *testing.T, s realtest.Server) {
		ctx := context.Background()
		bin, err := runner.FindServer(ctx, s.Mysqld)
		if err != nil {
			t.Fatal(err)
		}
		infos, err := runner.Probe(ctx, t.TempDir(), bin)
		if err != nil {
			t.Fatal(err)
		}
		sp, err := space.Resolve(space.Catalogue(), space.Env{Server: &infos[0], Durability: space.Strict})
		if err != nil {
			t.Fatal(err)
		}
		cfg, why, err := strategy.ExpertConfig(sp, strategy.ExpertInput{RAMBytes: 24 << 30, DataBytes: 100 << 20, FsyncPerSec: 7530})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %v", s.Name, why)
		if len(why) < 3 {
			t.Errorf("%d reason lines, want one per rule (pool, redo, io capacity): %v", len(why), why)
		}
		for _, n := range []string{"innodb_buffer_pool_size", "innodb_log_file_size", "innodb_io_capacity"} {
			k, ok := sp.Knob(n)
			if !ok {
				t.Fatalf("%s not in the space", n)
			}
			d, _ := k.Float(k.Default)
			v, set := cfg[n]
			if !set {
				if !strings.Contains(strings.Join(why, "\n"), n+"="+k.Render(k.Default)+" (the server's default, kept)") {
					t.Errorf("%s left out without a line saying the server's default %s is kept: %v", n, k.Render(k.Default), why)
				}
				continue
			}
			if x, _ := k.Float(v); x < d {
				t.Errorf("%s=%s is below the server's default %s", n, k.Render(v), k.Render(k.Default))
			}
		}
	})
}
