package study

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/autotune/autotune/internal/lockfile"
	"github.com/autotune/autotune/runner"
	"github.com/autotune/autotune/storage"
)

// OpenRequest says which study to open or create, and under what.
type OpenRequest struct {
	// Name is the study.
	Name string
	// Manifest is what this run measures.
	Manifest storage.Manifest
	// Seed is a new study's seed (0: random).
	Seed int64
	// ServerVersion and Host describe this run's server and machine.
	ServerVersion string
	Host          runner.Host
	// AllowChanges resumes a study whose manifest, server or host changed,
	// recording each change; without it a change is a UsageError.
	AllowChanges bool
	// Worker opens the study as one of its workers: no lock (claims keep
	// workers apart), no marking of running trials (the claims' heartbeats
	// tell dead ones), a creation race with another worker is not an
	// error, and any change is refused.
	Worker bool
	// MustExist refuses to create the study: the mode works on a study
	// that exists (autotune minimize).
	MustExist bool
	// Started is when this run began.
	Started time.Time
	// Logf reports what happened (created, resumed, stale trials).
	Logf func(string, ...any)
}

// Opened is an open study.
type Opened struct {
	// Study is the study row (seed, budget spent, ...).
	Study storage.StudyRecord
	// Found is false when this run created it.
	Found bool
	// Next is the next trial number.
	Next int
	// Fingerprint is the conditions this run measures under
	// (storage.FingerprintOf its manifest, server version and host); the
	// study's history is the trials of its key (storage.SegmentStore).
	Fingerprint storage.Fingerprint
}

// noSuchStudy is the error of a mode that works on an existing study
// (minimize) given one db does not hold.
func noSuchStudy(name string, db *storage.DB) error {
	return Usagef("--study %q: no such study in --db %s (minimize works on a study that search ran)", name, db.Path())
}

// seedConflict refuses (a UsageError) a --seed other than 0 (none given)
// for the stored study st: a resumed study keeps its seed, since taking
// another would make it neither the old study nor a reproducible new one.
func seedConflict(st storage.StudyRecord, seed int64) error {
	if seed != 0 && seed != st.Seed {
		return Usagef("--seed %d: study %q was started with seed %d and keeps it (leave --seed out, or start a new --study)", seed, st.Name, st.Seed)
	}
	return nil
}

// Open opens or creates the study of req in db, whose lock the caller
// holds (Lock): it creates the study with its seed and
// manifest or checks a found study's manifest, server version and host
// (see OpenRequest.AllowChanges), and marks trials left running by a killed
// run interrupted. Errors name the study; a refused change is a UsageError.
func Open(ctx context.Context, db *storage.DB, req OpenRequest) (Opened, error) {
	var o Opened
	st, found, err := db.Study(ctx, req.Name)
	if err != nil {
		return o, err
	}
	if !found && req.MustExist {
		return o, noSuchStudy(req.Name, db)
	}
	if !found {
		seed := req.Seed
		if seed == 0 {
			seed = rand.Int64N(1<<31) + 1
		}
		st = storage.StudyRecord{Name: req.Name, Settings: req.Manifest.JSON(), Seed: seed, ServerVersion: req.ServerVersion,
			Cores: req.Host.Cores, RAMBytes: req.Host.RAMBytes, Created: req.Started}
		err := db.CreateStudy(ctx, st)
		if req.Worker && errors.Is(err, storage.ErrStudyExists) {
			st, found, err = db.Study(ctx, req.Name) // another worker created it a moment ago
		}
		if err != nil {
			return o, err
		}
	}
	o.Fingerprint = storage.FingerprintOf(req.Manifest, req.ServerVersion, req.Host.Cores, req.Host.RAMBytes)
	if found {
		if err := seedConflict(st, req.Seed); err != nil {
			return o, err
		}
		if st, err = recordBuildDigests(ctx, db, st, req); err != nil {
			return o, err
		}
		changed, err := checkStudy(ctx, db, st, req)
		if err != nil {
			return o, err
		}
		if err := newSegment(ctx, db, st, o.Fingerprint, changed, req.Logf); err != nil {
			return o, err
		}
	}
	if !req.Worker {
		interrupted, err := db.MarkInterrupted(ctx, req.Name)
		if err != nil {
			return o, err
		}
		for _, t := range interrupted {
			req.Logf("trial %d was left running by an earlier run: marked interrupted, its config will be measured again", t.Number)
		}
	}
	if o.Next, err = db.NextTrialNumber(ctx, req.Name); err != nil {
		return o, err
	}
	if found {
		req.Logf("resuming study %q: %d trials recorded, %s of budget used", req.Name, o.Next, st.Spent.Round(time.Second))
	} else {
		req.Logf("new study %q (seed %d) on %s", req.Name, st.Seed, req.ServerVersion)
	}
	o.Study, o.Found = st, found
	return o, nil
}

// checkStudy compares a found study's manifest, server version and host
// with this run's. A difference is refused (a UsageError listing each)
// unless AllowChanges, which records each change in the store; changed
// reports whether it recorded one.
func checkStudy(ctx context.Context, db *storage.DB, st storage.StudyRecord, req OpenRequest) (changed bool, err error) {
	stored, err := st.Manifest()
	if err != nil {
		return false, err
	}
	var diffs []storage.ManifestChange
	for _, c := range stored.Diff(req.Manifest) {
		c.Field = "settings." + c.Field
		diffs = append(diffs, c)
	}
	if st.ServerVersion != req.ServerVersion {
		diffs = append(diffs, storage.ManifestChange{Field: "server_version", Old: st.ServerVersion, New: req.ServerVersion})
	}
	if st.Cores != req.Host.Cores {
		diffs = append(diffs, storage.ManifestChange{Field: "host_cores", Old: strconv.Itoa(st.Cores), New: strconv.Itoa(req.Host.Cores)})
	}
	if st.RAMBytes != req.Host.RAMBytes {
		diffs = append(diffs, storage.ManifestChange{Field: "host_ram_bytes", Old: strconv.FormatInt(st.RAMBytes, 10), New: strconv.FormatInt(req.Host.RAMBytes, 10)})
	}
	if len(diffs) == 0 {
		return false, nil
	}
	var b strings.Builder
	for _, d := range diffs {
		fmt.Fprintf(&b, "\n  %s: stored %s, now %s", d.Field, orNone(d.Old), orNone(d.New))
	}
	if req.Worker {
		return false, Usagef("study %q was created under other settings or on other hardware:%s\nevery worker of a study needs the same flags, server version and hardware (scores from different machines do not compare): start a separate study for this one", req.Name, b.String())
	}
	for _, d := range diffs {
		if strings.HasPrefix(d.Field, "settings.host_profile") {
			return false, Usagef("study %q was run under another host profile:%s\nscores measured with another memory limit do not compare, --allow-changes or not: resume it with the same --memory-limit, or start a new study with --study NEW_NAME", req.Name, b.String())
		}
	}
	if !req.AllowChanges {
		return false, Usagef("study %q was run under a different manifest:%s\nscores measured under different conditions do not compare: use the same flags and machine to resume it, start a new study with --study NEW_NAME, or pass --allow-changes to continue and record the change", req.Name, b.String())
	}
	for _, d := range diffs {
		req.Logf("study %q: %s changed (%s -> %s), recorded (--allow-changes)", st.Name, d.Field, orNone(d.Old), orNone(d.New))
	}
	// The store keeps one change of the whole manifest per run (field
	// "settings"), plus one per server or host field.
	settingsRecorded := false
	for _, d := range diffs {
		c := storage.Change{At: time.Now(), Field: d.Field, Old: d.Old, New: d.New}
		if strings.HasPrefix(d.Field, "settings.") {
			if settingsRecorded {
				continue
			}
			settingsRecorded = true
			c.Field, c.Old, c.New = "settings", st.Settings, req.Manifest.JSON()
		}
		if err := db.RecordChange(ctx, st.Name, c); err != nil {
			return false, err
		}
	}
	return true, nil
}

// recordBuildDigests fills in the digests and versions of study st's
// server and benchmark builds where its manifest has none (studies made
// before they were recorded) from this run's builds of the same name and
// path, and stores them: the binaries at those paths are taken as the
// ones its trials ran, since nothing else says which they were. It
// returns the study row as stored.
func recordBuildDigests(ctx context.Context, db *storage.DB, st storage.StudyRecord, req OpenRequest) (storage.StudyRecord, error) {
	m, err := st.Manifest()
	if err != nil || m.Space == nil || req.Manifest.Space == nil {
		return st, err
	}
	filled := false
	fill := func(stored, now []storage.Build) {
		for i, b := range stored {
			for _, n := range now {
				if b.SHA256 == "" && b.Name == n.Name && b.Path == n.Path {
					stored[i].SHA256, stored[i].Version = n.SHA256, n.Version
					filled = filled || n.SHA256 != ""
				}
			}
		}
	}
	fill(m.Space.ServerBuilds, req.Manifest.Space.ServerBuilds)
	fill(m.Space.BenchmarkBuilds, req.Manifest.Space.BenchmarkBuilds)
	if !filled {
		return st, nil
	}
	st.Settings = m.JSON()
	if err := db.UpdateStudy(ctx, st); err != nil {
		return st, err
	}
	req.Logf("study %q: recorded the digests of its builds' binaries, which it was made without (the binaries now at those paths are taken as the ones its trials ran)", st.Name)
	return st, nil
}

// newSegment stamps the trials of study st made before fingerprints were
// recorded with the fingerprint of its stored conditions, and, where this
// run's fingerprint fp differs from it:
//
//   - after a change checkStudy recorded (changed), says so: the earlier
//     trials stay in the store, out of this run's history, best and
//     estimates (the run writes through a storage.SegmentStore of fp's
//     key), and the search starts over with its own baseline and warm
//     start;
//   - without one (the manifest holds the same conditions, recorded more
//     fully now, e.g. a benchmark definition a study made before
//     definitions lacked), restamps the trials of the stored key with fp's:
//     one segment, as before.
func newSegment(ctx context.Context, db *storage.DB, st storage.StudyRecord, fp storage.Fingerprint, changed bool, logf func(string, ...any)) error {
	old, err := storage.StudyFingerprint(st)
	if err != nil {
		return err
	}
	if _, err := db.StampFingerprint(ctx, st.Name, "", old.Key()); err != nil {
		return err
	}
	if old.Key() == fp.Key() {
		return nil
	}
	if !changed {
		_, err := db.StampFingerprint(ctx, st.Name, old.Key(), fp.Key())
		return err
	}
	trials, err := db.Trials(ctx, st.Name)
	if err != nil {
		return err
	}
	own, other := storage.Segment(trials, fp.Key())
	then := "starts a new segment (fingerprint " + fp.Key() + ") and measures its own baseline"
	if len(own) > 0 {
		then = fmt.Sprintf("goes on with the %d trial(s) measured under this run's conditions before (fingerprint %s)", len(own), fp.Key())
	}
	logf("study %q: %d trial(s) were measured under other conditions (%s): they stay in the store, out of this run's history, best and gains; this run %s",
		st.Name, len(other), storage.DiffText(old.Diff(fp)), then)
	return nil
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// Lock takes the study's lock: one autotune search per study (see
// lockStudy); a worker only checks that no search holds it. The returned
// func releases it.
func Lock(ctx context.Context, db *storage.DB, dbArg, study string, worker bool) (release func(), err error) {
	if !worker {
		return lockStudy(ctx, db, dbArg, study)
	}
	if locked, err := db.StudyLocked(ctx, study); err != nil {
		return nil, err
	} else if locked {
		return nil, fmt.Errorf("study %q in %s is run by autotune search; workers cannot join it", study, db.Path())
	}
	return func() {}, nil
}

// lockStudy keeps a second `autotune search` off a study: a lock file next
// to an SQLite trials.db, a server-side named lock in a MySQL store. A
// study run by workers (it has claims) is refused: search would mark their
// running trials interrupted.
func lockStudy(ctx context.Context, db *storage.DB, dbArg, study string) (release func(), err error) {
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
		return nil, Usagef("study %q in %s is run by workers: continue it with autotune worker --study %s --db ...", study, db.Path(), study)
	}
	rel, err := db.LockStudy(ctx, study)
	if errors.Is(err, storage.ErrStudyLocked) {
		return nil, fmt.Errorf("study %q in %s is being run by another autotune search; wait for it or stop it", study, db.Path())
	}
	return rel, err
}
