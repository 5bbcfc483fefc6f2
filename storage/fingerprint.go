package storage

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/space"
)

// Fingerprint is everything that makes two measurements comparable, as
// (field, value) pairs in a fixed order:
//
//   - "server": the server's version as SELECT VERSION() gives it
//     (flavour and version), and "server_builds": each --server-build's
//     name, version and binary digest;
//   - "target": "sandbox", or the existing server's address;
//   - "host": the cores and RAM the study ran on (RAM as the memory
//     limit where there is one), and "host_profile";
//   - "durability": strict or relaxed; "aio": the servers' asynchronous
//     I/O backend (io_uring, libaio, simulated), where the study recorded
//     one;
//   - the workload definition (workloadFields: driver, command,
//     workload, dataset size, thread levels, objective), "definition":
//     the benchmark program's version and every option it was given
//     (a replay's workload and dump digests), and "benchmark_builds":
//     each --benchmark-build's name and binary digest;
//   - "score": the score rule's version, the variance penalty λ and the
//     p95 limit, which change what a score means.
//
// Left out: what changes how precisely a trial measures but not what it
// measures (warm-up cap, window, re-measurement policy) and what changes
// what is searched (space file, memory budget). Two trials whose
// fingerprints have equal keys may be ranked against each other; trials
// of different keys never are (see Segment).
type Fingerprint [][2]string

// FingerprintOf returns the fingerprint of measurements made under
// manifest m on server version serverVersion and a host of cores cores
// and ramBytes bytes of RAM (the study row's fields).
func FingerprintOf(m Manifest, serverVersion string, cores int, ramBytes int64) Fingerprint {
	target := cmp.Or(m.Target, "sandbox")
	f := Fingerprint{
		{"server", serverVersion},
		{"server_builds", buildsText(m, true)},
		{"target", target},
		{"host", fmt.Sprintf("%d cores, %s RAM", cores, space.HumanBytes(ramBytes))},
		{"host_profile", hostProfileOf(m)},
		{"durability", durabilityOf(m)},
	}
	if m.AIOBackend != "" {
		f = append(f, [2]string{"aio", m.AIOBackend})
	}
	f = append(f, workloadFields(m)...)
	def := ""
	if m.Definition != nil {
		def = m.Definition.String()
	}
	f = append(f, [2]string{"definition", def}, [2]string{"benchmark_builds", buildsText(m, false)},
		[2]string{"score", fmt.Sprintf("rule %s, lambda %s, max p95 %s ms", cmp.Or(m.Measure.ScoreRule, "(none)"), num(m.Lambda), num(m.Measure.MaxP95MS))})
	return f
}

// StudyFingerprint returns the fingerprint of the measurements study st
// makes now: its manifest, server version and host as the study row
// holds them (a resume with --allow-changes records the new ones there).
// The error is the manifest's.
func StudyFingerprint(st StudyRecord) (Fingerprint, error) {
	m, err := st.Manifest()
	if err != nil {
		return nil, err
	}
	return FingerprintOf(m, st.ServerVersion, st.Cores, st.RAMBytes), nil
}

// num renders a float without trailing zeros ("0.5", "0").
func num(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// buildsText renders the server (server true) or benchmark builds of m:
// "a 10.11.19-MariaDB sha256:0123456789ab, b ..." ("" without builds).
func buildsText(m Manifest, server bool) string {
	if m.Space == nil {
		return ""
	}
	bs := m.Space.BenchmarkBuilds
	if server {
		bs = m.Space.ServerBuilds
	}
	var out []string
	for _, b := range bs {
		s := b.Name
		if b.Version != "" {
			s += " " + b.Version
		}
		if b.SHA256 != "" {
			s += " sha256:" + b.SHA256[:min(12, len(b.SHA256))]
		}
		out = append(out, s)
	}
	return strings.Join(out, ", ")
}

// Key returns the fingerprint's identity: the first 16 hex digits of the
// SHA-256 of its fields that are set, one "field=value" line each. Equal
// keys, equal fingerprints (an empty field and a missing one are equal).
func (f Fingerprint) Key() string {
	h := sha256.New()
	for _, kv := range f {
		if kv[1] != "" {
			fmt.Fprintf(h, "%s=%s\n", kv[0], kv[1])
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// Diff returns the fields in which f and g differ (Old from f, New from
// g; a field one of them lacks is empty there), f's fields in f's order,
// then those only g has; none when their keys are equal.
func (f Fingerprint) Diff(g Fingerprint) []ManifestChange {
	fv, gv := map[string]string{}, map[string]string{}
	for _, kv := range f {
		fv[kv[0]] = kv[1]
	}
	for _, kv := range g {
		gv[kv[0]] = kv[1]
	}
	var out []ManifestChange
	for _, kv := range f {
		if gv[kv[0]] != kv[1] {
			out = append(out, ManifestChange{Field: kv[0], Old: kv[1], New: gv[kv[0]]})
		}
	}
	for _, kv := range g {
		if _, in := fv[kv[0]]; !in && kv[1] != "" {
			out = append(out, ManifestChange{Field: kv[0], New: kv[1]})
		}
	}
	return out
}

// DiffText renders Diff as "durability strict → relaxed; host 2 cores,
// 7.8G RAM → 16 cores, 64G RAM" ("(none)" for an empty value).
func DiffText(d []ManifestChange) string {
	var parts []string
	for _, c := range d {
		parts = append(parts, fmt.Sprintf("%s %s → %s", c.Field, noneIfEmpty(c.Old), noneIfEmpty(c.New)))
	}
	return strings.Join(parts, "; ")
}

func noneIfEmpty(s string) string { return cmp.Or(s, "(none)") }

// Without returns f without the fields named.
func (f Fingerprint) Without(fields ...string) Fingerprint {
	var out Fingerprint
	for _, kv := range f {
		if !slices.Contains(fields, kv[0]) {
			out = append(out, kv)
		}
	}
	return out
}

// Segment splits trials into those measured under fingerprint key (and
// those stamped with none, which predate fingerprints: they are the
// study's own, as Open stamps them with the study's fingerprint before a
// change is recorded) and the rest, each in trial order. A study resumed
// with --allow-changes under another fingerprint starts a new segment:
// only its own trials are its history, best and estimates.
func Segment(trials []search.Trial, key string) (own, other []search.Trial) {
	for _, t := range trials {
		if t.Fingerprint == "" || t.Fingerprint == key {
			own = append(own, t)
		} else {
			other = append(other, t)
		}
	}
	return own, other
}

// SegmentStore is a study store as one fingerprint sees it (a
// search.Store, and a search.MinimizationStore through DB): it stamps
// every trial it begins or finishes with Key and returns only the trials
// of Key (Segment). A study resumed under another fingerprint (autotune
// search --allow-changes) writes through a SegmentStore of the new key:
// the old trials stay in the store and out of its history.
type SegmentStore struct {
	*DB
	// Key is the fingerprint's key (Fingerprint.Key).
	Key string
}

// BeginTrial implements search.Store.
func (s SegmentStore) BeginTrial(ctx context.Context, t search.Trial) error {
	t.Fingerprint = s.Key
	return s.DB.BeginTrial(ctx, t)
}

// FinishTrial implements search.Store.
func (s SegmentStore) FinishTrial(ctx context.Context, t search.Trial, spent time.Duration) error {
	t.Fingerprint = s.Key
	return s.DB.FinishTrial(ctx, t, spent)
}

// Trials implements search.Store: the trials of the segment.
func (s SegmentStore) Trials(ctx context.Context, study string) ([]search.Trial, error) {
	all, err := s.DB.Trials(ctx, study)
	own, _ := Segment(all, s.Key)
	return own, err
}

// StampFingerprint stamps every trial of study whose fingerprint is from
// ("": made before fingerprints were recorded) with to, and returns how
// many it stamped.
func (db *DB) StampFingerprint(ctx context.Context, study, from, to string) (int64, error) {
	res, err := db.sql.ExecContext(ctx, `UPDATE trials SET fingerprint = ? WHERE study = ? AND fingerprint = ?`, to, study, from)
	if err != nil {
		return 0, fmt.Errorf("storage: stamp the trials of study %q with fingerprint %s: %w", study, to, err)
	}
	return res.RowsAffected()
}

// TrialLister is what StudyTrials reads (DB, a read-only DB).
type TrialLister interface {
	Trials(ctx context.Context, study string) ([]search.Trial, error)
}

// StudyTrials returns the trials of study st measured under its current
// conditions (StudyFingerprint, Segment) and how many others it holds:
// after a resume with --allow-changes under another fingerprint, only the
// new segment's trials are its history, best, estimates and gains. The
// error is the manifest's or the store's.
func StudyTrials(ctx context.Context, db TrialLister, st StudyRecord) (own []search.Trial, others int, err error) {
	fp, err := StudyFingerprint(st)
	if err != nil {
		return nil, 0, err
	}
	all, err := db.Trials(ctx, st.Name)
	if err != nil {
		return nil, 0, err
	}
	own, other := Segment(all, fp.Key())
	return own, len(other), nil
}
