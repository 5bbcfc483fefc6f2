//go:build !cgo

package storage

// isSQLiteDuplicate reports false: without cgo, github.com/mattn/go-sqlite3
// is a stub whose driver fails to open any file and which has no error
// types, so only MySQL/MariaDB stores work and no SQLite error reaches here.
func isSQLiteDuplicate(error) bool { return false }

// isSQLiteBusy reports false: without cgo no SQLite error reaches here.
func isSQLiteBusy(error) bool { return false }
