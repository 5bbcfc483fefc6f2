package strategy

import (
	"fmt"
	"math"

	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/space"
)

// ExpertInput describes the host and the dataset the expert warm start is
// derived from.
type ExpertInput struct {
	// RAMBytes is the host's RAM in bytes.
	RAMBytes int64
	// MemoryBudget is how many bytes the buffer pool may take (0: half of
	// RAMBytes). The buffer pool knob's search maximum caps it too.
	MemoryBudget int64
	// DataBytes is the size of the dataset on disk in bytes (the tables'
	// files), 0 when unknown.
	DataBytes int64
	// MemoryLimit is the host profile's memory limit in bytes, page cache
	// counted (0: none). Under it the pool takes at most limitShare of
	// the limit.
	MemoryLimit int64
	// FsyncPerSec is how many synchronous 4 KiB writes per second the
	// datadir's disk sustained in a short probe (runner.ProbeFsync), 0
	// when unknown.
	FsyncPerSec float64
}

const (
	// poolHeadroom is the buffer pool size relative to the data: the data
	// plus a quarter for indexes built in memory, undo pages and the
	// adaptive hash index (MariaDB KB, "InnoDB Buffer Pool": size it so the
	// working set fits).
	poolHeadroom = 1.25
	// poolRound is the granularity the pool is rounded up to (128 MiB, the
	// historical buffer pool chunk size).
	poolRound = 128 << 20
	// redoShare is the redo log size relative to the buffer pool: 25 %, the
	// common rule of thumb (MariaDB KB, "innodb_log_file_size"; mysqltuner
	// applies the same rule).
	redoShare = 0.25
	// ioShare is innodb_io_capacity relative to the measured synchronous
	// write rate: half, so background flushing leaves the disk room for
	// foreground writes (MariaDB KB, "innodb_io_capacity": set it to about
	// the IOPS the system can do).
	ioShare = 0.5
)

// limitShare returns the share of a memory limit of limit bytes that the
// buffer pool takes when the limit counts the page cache: 50 % up to
// 4 GiB, 75 % above, the innodb_dedicated_server rule for 1-4 GB and
// larger hosts (MySQL 8.0 Reference Manual, "Enabling Automatic
// Configuration for a Dedicated MySQL Server"). The rest holds the
// server's own memory, the connections' buffers and the page cache its
// redo log and temporary files go through, all counted by the limit.
func limitShare(limit int64) float64 {
	if limit <= 4<<30 {
		return 0.5
	}
	return 0.75
}

// ExpertConfig returns the configuration a database engineer would try
// first on this host and dataset, and one line per knob saying why:
//
//   - innodb_buffer_pool_size: the data size × 1.25, rounded up to 128 MiB,
//     within the memory budget (and the knob's search range) and, under a
//     host memory limit, within limitShare of the limit;
//   - innodb_log_file_size: a quarter of that pool;
//   - innodb_io_capacity: half the fsync probe's synchronous write rate.
//
// A rule that would set a value below the server's own default (the
// resolved knob's Default, read from the server in use) leaves the knob at
// that default and says so in its line. Knobs absent from sp, and rules
// whose input is unknown (0), are skipped; durability knobs are left
// alone. It returns an error when the result
// does not validate against sp.
func ExpertConfig(sp *space.Space, in ExpertInput) (space.Config, []string, error) {
	cfg := space.Config{}
	var why []string
	set := func(name string, f float64, reason string) {
		k, ok := sp.Knob(name)
		if !ok {
			return
		}
		f = math.Min(k.Max, math.Max(k.Min, f))
		v, err := k.FromFloat(search.ClampRound(k, f))
		if err != nil {
			return
		}
		// The server's own default (the resolved knob's, read from the
		// server in use) is the floor: MySQL 8.4+ ships innodb_io_capacity
		// 10000 and a 100M redo log, which rules written against MariaDB's
		// 200 and 96M would lower.
		if d, err := k.Float(k.Default); err == nil {
			if x, err := k.Float(v); err == nil && x < d {
				why = append(why, fmt.Sprintf("%s=%s (the server's default, kept): the rule gives %s (%s), below what the server ships; the search still explores lower values",
					k.Name, k.Render(k.Default), k.Render(v), reason))
				return
			}
		}
		cfg[k.Name] = v
		why = append(why, fmt.Sprintf("%s=%s: %s", k.Name, k.Render(v), reason))
	}
	pool := 0.0
	if bp, ok := sp.Knob("innodb_buffer_pool_size"); ok && in.DataBytes > 0 {
		budget := float64(in.MemoryBudget)
		if budget <= 0 {
			budget = float64(in.RAMBytes) / 2
		}
		budget = math.Min(budget, bp.Max)
		capWhy := fmt.Sprintf("the memory budget %s", space.FormatBytes(int64(budget)))
		if in.MemoryLimit > 0 {
			if c := float64(in.MemoryLimit) * limitShare(in.MemoryLimit); c < budget {
				budget = c
				capWhy = fmt.Sprintf("%.0f %% of the memory limit %s (page cache counted)", limitShare(in.MemoryLimit)*100, space.FormatBytes(in.MemoryLimit))
			}
		}
		want := math.Ceil(float64(in.DataBytes)*poolHeadroom/poolRound) * poolRound
		pool = math.Min(want, budget)
		reason := fmt.Sprintf("dataset %s x %.2f", space.FormatBytes(roundMiB(in.DataBytes)), poolHeadroom)
		if want > budget {
			reason += ", capped by " + capWhy
		}
		set("innodb_buffer_pool_size", pool, reason)
		v, ok := cfg["innodb_buffer_pool_size"]
		if !ok {
			v = bp.Default // kept: the server's own pool
		}
		pool, _ = bp.Float(v)
	}
	if pool > 0 {
		set("innodb_log_file_size", pool*redoShare, fmt.Sprintf("%.0f %% of the buffer pool", redoShare*100))
	}
	if in.FsyncPerSec > 0 {
		set("innodb_io_capacity", in.FsyncPerSec*ioShare, fmt.Sprintf("half of %.0f synchronous writes/s measured on the datadir's disk", in.FsyncPerSec))
	}
	if _, err := sp.Validate(cfg); err != nil {
		return nil, nil, fmt.Errorf("expert warm start: %w", err)
	}
	return cfg, why, nil
}

// roundMiB rounds n bytes to whole MiB, for display.
func roundMiB(n int64) int64 { return (n + (1 << 19)) >> 20 << 20 }
