// Package atomicfile writes files whole: a reader sees the old content or
// the new one, never a part, and the file gets exactly the mode asked for.
package atomicfile

import (
	"os"
	"path/filepath"
)

// WriteFile writes b to path through a temporary file in the same
// directory, renamed over path, with exactly mode (not subject to the
// umask, and not the mode of a file it replaces): the server warns about a
// world-writable option file and ignores it (MySQL manual, "Using Option
// Files").
func WriteFile(path string, b []byte, mode os.FileMode) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp) // after a successful rename there is nothing to remove
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(mode); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
