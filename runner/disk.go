package runner

import (
	"errors"
	"fmt"
	"syscall"

	"github.com/autotune/autotune/space"
)

// ErrDiskFull is returned (wrapped) when the sandbox disk has too little
// room for what autotune is about to write.
var ErrDiskFull = errors.New("the sandbox disk is full (No space left on device)")

// probeDatadirBytes is the room a fresh datadir needs: 114 MB for MariaDB
// 10.11 (96 MB redo log, 12 MB system tablespace; measured on the reference
// 2-core machine, docs/measurement.md), with a margin.
const probeDatadirBytes = 256 << 20

// FreeBytes returns the bytes available to unprivileged writers on the
// file system holding dir.
func FreeBytes(dir string) (int64, error) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0, fmt.Errorf("free space of %s: %w", dir, err)
	}
	return int64(st.Bavail) * int64(st.Bsize), nil
}

// checkFree returns an error wrapping ErrDiskFull when dir's file system
// has less than need bytes available. A full disk would otherwise make the
// server wait for space ("Disk is full writing ... Waiting for someone to
// free space"), not fail.
func checkFree(dir string, need int64) error {
	free, err := FreeBytes(dir)
	if err != nil {
		return err
	}
	if free < need {
		return fmt.Errorf("%w: %s free at %s, need at least %s", ErrDiskFull, space.HumanBytes(free), dir, space.HumanBytes(need))
	}
	return nil
}
