//go:build !linux

package runner

import "os"

// fdatasync flushes f to the disk (fsync where fdatasync is not available).
func fdatasync(f *os.File) error { return f.Sync() }
