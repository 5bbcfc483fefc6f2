// Package lockfile takes exclusive advisory locks (flock) on files, so two
// autotune processes never run the same study or share a sandbox. The
// kernel releases a lock when its process dies, however it dies, so a
// killed autotune never leaves a stale lock behind.
package lockfile

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// ErrLocked is returned (wrapped) by Acquire when another process holds
// the lock.
var ErrLocked = errors.New("locked by another process")

// Lock is a held lock; Release it when done.
type Lock struct {
	f *os.File
}

// Acquire takes an exclusive lock on path (created 0600 if missing)
// without waiting, and writes this process's PID into it. It returns an
// error wrapping ErrLocked, naming the holder's PID when known, if another
// process holds it.
func Acquire(path string) (*Lock, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		holder := ""
		if b, rerr := os.ReadFile(path); rerr == nil {
			if pid, perr := strconv.Atoi(strings.TrimSpace(string(b))); perr == nil {
				holder = fmt.Sprintf(" (pid %d)", pid)
			}
		}
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("%s%s: %w", path, holder, ErrLocked)
		}
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return &Lock{f: f}, nil
}

// Release drops the lock. The file stays (removing it would race with a
// process about to lock it).
func (l *Lock) Release() error {
	if l == nil || l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	return err
}
