package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/autotune/autotune/internal/lockfile"
	"github.com/autotune/autotune/storage"
)

// acquireStudyLock keeps a second `autotune search` off a study: a lock
// file next to an SQLite trials.db, a server-side named lock in a MySQL
// store. A study run by workers (it has claims) is refused: `search` would
// mark their running trials interrupted.
func acquireStudyLock(ctx context.Context, db *storage.DB, dbArg, study string) (release func(), err error) {
	if !db.IsMySQL() {
		l, err := lockfile.Acquire(dbArg + "." + study + ".lock")
		if errors.Is(err, lockfile.ErrLocked) {
			return nil, fmt.Errorf("study %q in %s is being run by another autotune (%v); wait for it or stop it", study, dbArg, err)
		}
		if err != nil {
			return nil, err
		}
		return func() { l.Release() }, nil
	}
	claims, err := db.Claims(ctx, study)
	if err != nil {
		return nil, err
	}
	if len(claims) > 0 {
		return nil, usagef("study %q in %s is run by workers: continue it with autotune worker --study %s --db ...", study, db.Path(), study)
	}
	rel, err := db.LockStudy(ctx, study)
	if errors.Is(err, storage.ErrStudyLocked) {
		return nil, fmt.Errorf("study %q in %s is being run by another autotune search; wait for it or stop it", study, db.Path())
	}
	return rel, err
}
