package runner

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// ProbeFsync measures how many synchronous 4 KiB writes per second the
// disk under dir sustains: it writes 4 KiB blocks to a temporary file in
// dir, each followed by fdatasync (as InnoDB's redo log writes are at
// innodb_flush_log_at_trx_commit=1), for about d (at most 2000 writes),
// then removes the file. The reference 2-core machine does about 3500 per
// second (docs/measurement.md). It returns an error when
// dir is not writable or a write fails.
func ProbeFsync(ctx context.Context, dir string, d time.Duration) (float64, error) {
	f, err := os.CreateTemp(dir, ".autotune-fsync-probe-*")
	if err != nil {
		return 0, fmt.Errorf("fsync probe in %s: %w", dir, err)
	}
	defer os.Remove(f.Name())
	defer f.Close()
	block := make([]byte, 4096)
	for i := range block {
		block[i] = byte(i)
	}
	// One write first, so file creation does not count.
	if _, err := f.Write(block); err != nil {
		return 0, fmt.Errorf("fsync probe in %s: %w", dir, err)
	}
	if err := f.Sync(); err != nil {
		return 0, fmt.Errorf("fsync probe in %s: %w", dir, err)
	}
	start := time.Now()
	n := 0
	for n < 2000 && time.Since(start) < d {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		if _, err := f.WriteAt(block, int64(n%256)*4096); err != nil {
			return 0, fmt.Errorf("fsync probe in %s: %w", dir, err)
		}
		if err := fdatasync(f); err != nil {
			return 0, fmt.Errorf("fsync probe in %s: %w", dir, err)
		}
		n++
	}
	el := time.Since(start).Seconds()
	if el <= 0 || n == 0 {
		return 0, fmt.Errorf("fsync probe in %s: no write completed", dir)
	}
	return float64(n) / el, nil
}

// SnapshotDir returns the directory of the dataset snapshot.
func (sb *Sandbox) SnapshotDir() string { return sb.path("snapshot") }

// DataBytes returns the size in bytes of the dataset's tables in the
// snapshot: the files of the sbtest schema directory (the whole snapshot
// when there is none). It returns an error when the snapshot cannot be
// read.
func (sb *Sandbox) DataBytes() (int64, error) {
	dir := filepath.Join(sb.SnapshotDir(), "sbtest")
	if _, err := os.Stat(dir); err != nil {
		dir = sb.SnapshotDir()
	}
	var n int64
	err := filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.Type().IsRegular() {
			info, err := e.Info()
			if err != nil {
				return err
			}
			n += info.Size()
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("dataset size of %s: %w", dir, err)
	}
	return n, nil
}
