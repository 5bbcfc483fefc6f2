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
