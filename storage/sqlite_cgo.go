//go:build cgo

package storage

import (
	"errors"

	"github.com/mattn/go-sqlite3"
)

// isSQLiteDuplicate reports whether err is an SQLite primary-key or unique
// constraint violation.
func isSQLiteDuplicate(err error) bool {
	var se sqlite3.Error
	if !errors.As(err, &se) {
		return false
	}
	return se.ExtendedCode == sqlite3.ErrConstraintPrimaryKey || se.ExtendedCode == sqlite3.ErrConstraintUnique
}

// isSQLiteBusy reports whether err is SQLite's "database is locked" or
// "database table is locked" (SQLITE_BUSY, SQLITE_LOCKED), which SQLite
// can return at once, without its busy handler, while another connection
// switches a fresh file to WAL mode.
func isSQLiteBusy(err error) bool {
	var se sqlite3.Error
	return errors.As(err, &se) && (se.Code == sqlite3.ErrBusy || se.Code == sqlite3.ErrLocked)
}
