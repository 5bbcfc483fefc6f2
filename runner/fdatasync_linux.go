package runner

import (
	"os"
	"syscall"
)

// fdatasync flushes f's data (not its metadata) to the disk.
func fdatasync(f *os.File) error { return syscall.Fdatasync(int(f.Fd())) }
