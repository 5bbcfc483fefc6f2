package study

import (
	"bytes"
	"context"
	"fmt"
	"net/url"
	"os"
	"strconv"
	"strings"

	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/space"
	"github.com/autotune/autotune/storage"
)

// SeedSource is one --seed-from value: a my.cnf (optionally of another
// host) or a study in a trials.db (SQLite file or MySQL store).
type SeedSource struct {
	// Arg is the value as given; it names the seed in messages and is
	// stored with the seed's trial (search.Trial.Source).
	Arg string
	// Cnf is the my.cnf path ("" for a study seed).
	Cnf string
	// From is the size of the host a my.cnf was written for (zero:
	// this host, nothing is rescaled). A study seed takes its host from
	// the study row.
	From space.HostSize
	// DB and Study name an earlier study ("" for a my.cnf seed).
	DB, Study string
}

// sqliteMagic starts every SQLite database file.
var sqliteMagic = []byte("SQLite format 3\x00")

// isSQLite reports whether path is a readable SQLite database file.
func isSQLite(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	b := make([]byte, len(sqliteMagic))
	n, _ := f.Read(b)
	return n == len(b) && bytes.Equal(b, sqliteMagic)
}

// SeedForms describes the accepted --seed-from values, for errors and help.
const SeedForms = "a my.cnf (FILE, or FILE:ram=64G,cores=16 for one written for another host) or an earlier study (TRIALS.DB:STUDY, or mysql://...:STUDY)"

// ParseSeedFrom reads one --seed-from value:
//
//   - FILE: a my.cnf written for this host (an SQLite file is refused: it
//     needs :STUDY);
//   - FILE:ram=SIZE,cores=N: a my.cnf written for a host with that RAM and
//     those cores (either may be left out); its memory and thread knobs are
//     rescaled to this host;
//   - DB:STUDY: the best configuration of study STUDY in DB, an SQLite
//     trials.db (also one copied from another host) or a mysql:// store;
//     the study row says which host it ran on.
//
// It returns a UsageError naming the value and the accepted forms when the
// value fits none of them or names a file that does not exist.
func ParseSeedFrom(arg string) (SeedSource, error) {
	s := SeedSource{Arg: arg}
	bad := func(why string) (SeedSource, error) {
		return s, Usagef("--seed-from %q: %s; want %s", storage.RedactURL(arg), why, SeedForms)
	}
	if arg == "" {
		return bad("empty")
	}
	if u, err := url.Parse(arg); err == nil && storage.IsMySQL(arg) && u.User != nil {
		if _, has := u.User.Password(); has {
			// Refused here, before any message quotes a part of it.
			return s, Usagef("--seed-from %q holds a password: put it in $%s or an option file named by ?password_file=PATH, never on the command line", storage.RedactURL(arg), storage.PasswordEnv)
		}
	}
	if st, err := os.Stat(arg); err == nil && st.Mode().IsRegular() {
		if isSQLite(arg) {
			return bad("is a trials.db: name the study, " + arg + ":STUDY")
		}
		s.Cnf = arg
		return s, nil
	}
	i := strings.LastIndex(arg, ":")
	if i <= 0 || i == len(arg)-1 {
		if _, err := os.Stat(arg); err != nil {
			return bad(fmt.Sprintf("no such file (%v)", err))
		}
		return bad("not a regular file")
	}
	path, rest := arg[:i], arg[i+1:]
	if storage.IsMySQL(path) || isSQLite(path) {
		if strings.ContainsAny(rest, " \t\n/") {
			return bad(fmt.Sprintf("study name %q has spaces or slashes", rest))
		}
		s.DB, s.Study = path, rest
		return s, nil
	}
	st, err := os.Stat(path)
	if err != nil {
		return bad(fmt.Sprintf("no such file %q (%v)", path, err))
	}
	if !st.Mode().IsRegular() {
		return bad(fmt.Sprintf("%q is not a regular file", path))
	}
	for _, kv := range strings.Split(rest, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
		switch {
		case ok && k == "ram":
			n, err := space.ParseBytes(v)
			if err != nil || n <= 0 {
				return bad(fmt.Sprintf("ram=%s: want a size such as 64G", v))
			}
			s.From.RAMBytes = n
		case ok && k == "cores":
			n, err := strconv.Atoi(v)
			if err != nil || n <= 0 {
				return bad(fmt.Sprintf("cores=%s: want a positive count", v))
			}
			s.From.Cores = n
		default:
			return bad(fmt.Sprintf("%q after the file is neither ram=SIZE nor cores=N (and %s is no trials.db)", kv, path))
		}
	}
	s.Cnf = path
	return s, nil
}

// loadSeeds reads every --seed-from value of the run's study into a seed
// proposal (search.Seed, Source = the value as given), in order, each
// rescaled from its host to this one and checked against the space (see
// seedConfig). It prints what each seed sets, each rescaled value and
// each knob left out. Errors are UsageErrors naming the seed.
func (r *run) loadSeeds(ctx context.Context) ([]search.Proposal, error) {
	var out []search.Proposal
	for _, arg := range r.cfg.SeedFrom {
		src, err := ParseSeedFrom(arg)
		if err != nil {
			return nil, err
		}
		var cfg space.Config
		var notes []string
		from := src.From
		if src.Cnf != "" {
			if r.cfg.Existing != nil {
				return nil, Usagef("--seed-from %q: a my.cnf seed is read with the sandbox's server binary (which options it accepts); with --dsn seed from an earlier study (TRIALS.DB:STUDY)", arg)
			}
			bl, err := loadOptionFile(ctx, "--seed-from "+arg, src.Cnf, r.sp, r.info, r.bin)
			if err != nil {
				return nil, err
			}
			cfg, notes = bl.Config, bl.Notes
			if from == (space.HostSize{}) {
				notes = append(notes, "taken as written for this host (no ram=/cores= given): nothing rescaled")
			}
		} else {
			var what string
			if cfg, from, what, err = r.studySeed(ctx, src); err != nil {
				return nil, err
			}
			notes = append(notes, what)
		}
		cfg, rescaled, dropped, err := r.seedConfig(arg, cfg, from)
		if err != nil {
			return nil, err
		}
		changes := r.sp.ChangesFrom(r.base, r.base.Merge(cfg))
		if len(changes) == 0 {
			// Nothing left to measure: the baseline is this seed.
			r.logf("seed %s: nothing to measure (every knob it sets is left out or at the baseline's value)", arg)
			for _, d := range dropped {
				r.logf("  left out: %s", d)
			}
			continue
		}
		r.logf("seed %s (measured right after the baseline): %s", arg, strings.Join(changes, " "))
		for _, rs := range rescaled {
			r.logf("  rescaled for this host: %s", rs)
		}
		for _, d := range dropped {
			r.logf("  left out: %s", d)
		}
		for _, n := range notes {
			r.logf("  note: %s", n)
		}
		out = append(out, search.Proposal{Config: cfg, Kind: search.Seed, Source: arg})
	}
	return out, nil
}

// studySeed returns the best configuration of an earlier study by its
// pooled estimate (search.Best), the size of the host it ran on and a
// line saying which trial it is. The study may be this store's or
// another's (a trials.db copied from another host); it must not be the
// study being run. (Once studies record a minimal configuration of their
// own kind, it is the natural second seed of a study; only the best is
// taken now.)
func (r *run) studySeed(ctx context.Context, src SeedSource) (space.Config, space.HostSize, string, error) {
	if !storage.IsMySQL(src.DB) {
		if _, err := os.Stat(src.DB); err != nil {
			return nil, space.HostSize{}, "", Usagef("--seed-from %q: %v", storage.RedactURL(src.Arg), err)
		}
	}
	if src.DB == r.cfg.DB && src.Study == r.cfg.Study {
		return nil, space.HostSize{}, "", Usagef("--seed-from %q: a study cannot seed itself (its trials already teach its strategy)", storage.RedactURL(src.Arg))
	}
	db, err := storage.Open(src.DB)
	if err != nil {
		return nil, space.HostSize{}, "", fmt.Errorf("--seed-from %q: %w", storage.RedactURL(src.Arg), err)
	}
	defer db.Close()
	st, found, err := db.Study(ctx, src.Study)
	if err != nil {
		return nil, space.HostSize{}, "", fmt.Errorf("--seed-from %q: %w", storage.RedactURL(src.Arg), err)
	}
	if !found {
		return nil, space.HostSize{}, "", Usagef("--seed-from %q: no study %q in %s (autotune studies --db %s lists them)", storage.RedactURL(src.Arg), src.Study, storage.RedactURL(src.DB), storage.RedactURL(src.DB))
	}
	trials, others, fp, err := segmentOf(ctx, db, st)
	if err != nil {
		return nil, space.HostSize{}, "", fmt.Errorf("--seed-from %q: %w", storage.RedactURL(src.Arg), err)
	}
	best, _ := search.Best(trials)
	if best.Number < 0 {
		return nil, space.HostSize{}, "", Usagef("--seed-from %q: study %q has no complete (and, with --confirm, confirmed) trial to seed from", storage.RedactURL(src.Arg), src.Study)
	}
	runs := "runs"
	if n := search.EstimateOf(trials, best).N; n == 1 {
		runs = "run"
	}
	what := fmt.Sprintf("best of study %q: trial %d (%s, estimate %.1f over %d %s) on %s, %d cores, %s RAM",
		src.Study, best.Number, best.Kind, best.Score, search.EstimateOf(trials, best).N, runs, serverOf(st.ServerVersion), st.Cores, space.HumanBytes(st.RAMBytes))
	if st.RAMBytes == 0 || st.Cores == 0 {
		what += " (its host's size is not fully stored: what it lacks is not rescaled)"
	}
	if others > 0 {
		what += fmt.Sprintf("; chosen among the %d trial(s) measured under its latest conditions (fingerprint %s), not its %d earlier one(s) under others", len(trials), fp.Key(), others)
	}
	return best.Params.Clone(), space.HostSize{RAMBytes: st.RAMBytes, Cores: st.Cores}, what, nil
}

// seedConfig makes a seed's configuration one this study can measure and
// its strategy learn from:
//
//   - a knob the study searches is kept, rescaled from host from to this
//     host when its catalogue row says so (space.Knob.PerHost), and must
//     then take a value in the knob's search range: a value outside it, or
//     one the knob cannot take, refuses the whole seed (a UsageError naming
//     the seed and the knob), since the measured seed would not be the
//     configuration the user named;
//   - a knob the catalogue knows but this study does not search (not on
//     this server or version, pinned by --durability or a space file,
//     excluded) is left out with a line in dropped (none when the value is
//     the one the study pins anyway): it cannot be part of what this study
//     tunes, and the rest of the seed still says something;
//   - a name the catalogue does not know refuses the seed.
func (r *run) seedConfig(arg string, cfg space.Config, from space.HostSize) (space.Config, []space.Rescaled, []string, error) {
	all := space.Lookup()
	fixed := r.sp.Fixed()
	kept := space.Config{}
	var dropped []string
	for _, name := range cfg.Names() {
		v := cfg[name]
		k, ok := r.sp.Knob(name)
		if !ok {
			ck, known := all.Knob(name)
			if !known {
				return nil, nil, nil, Usagef("--seed-from %q: knob %q: not a knob autotune knows (autotune knobs lists them); the seed is refused", arg, name)
			}
			dropped = append(dropped, fmt.Sprintf("%s=%s: %s", ck.Name, ck.Render(v), reasonOf(r.sp, ck.Name, "not on this server")))
			continue
		}
		if !r.sp.Searched(k.Name) {
			if p, pinned := fixed[k.Name]; pinned && p == v {
				continue
			}
			dropped = append(dropped, fmt.Sprintf("%s=%s: %s", k.Name, k.Render(v), reasonOf(r.sp, k.Name, "not searched in this study")))
			continue
		}
		kept[k.Name] = v
	}
	scaled, rescaled := r.sp.Rescale(kept, from, space.HostSize{RAMBytes: r.host.RAMBytes, Cores: r.host.Cores}, r.engine.MemoryBudget)
	out := space.Config{}
	for _, name := range scaled.Names() {
		k, _ := r.sp.Knob(name)
		v, err := k.Normalize(scaled[name])
		if err != nil {
			return nil, nil, nil, Usagef("--seed-from %q: %v; the seed is refused (edit the seed, or widen the knob's range with a space file, --space)", arg, err)
		}
		out[k.Name] = v
	}
	return out, rescaled, dropped, nil
}

// reasonOf is the resolution report's reason for knob name (def when
// the space has none).
func reasonOf(sp *space.Space, name, def string) string {
	for _, e := range sp.Entries() {
		if e.Knob.Name == name {
			switch {
			case e.Status == space.Pinned:
				return "pinned to " + e.Knob.Render(e.Value) + " in this study (" + orNone(e.Reason) + ")"
			case e.Reason != "":
				return string(e.Status) + ": " + e.Reason
			}
			return string(e.Status)
		}
	}
	return def
}

// SplitSeedList splits --seed-from values given as comma lists into one
// value each ("a.cnf,old.db:s1" is two seeds); a part that is a host
// setting (ram=..., cores=...) stays with the value before it
// ("prod.cnf:ram=64G,cores=16" is one seed).
func SplitSeedList(vals []string) []string {
	var out []string
	for _, v := range vals {
		for _, part := range strings.Split(v, ",") {
			if len(out) > 0 && (strings.HasPrefix(part, "ram=") || strings.HasPrefix(part, "cores=")) && strings.Contains(out[len(out)-1], ":") {
				out[len(out)-1] += "," + part
				continue
			}
			out = append(out, part)
		}
	}
	return out
}

// serverOf is the flavour and release of a stored server version
// ("mariadb 10.11.19"), the text itself when it does not parse.
func serverOf(v string) string {
	if ver, err := space.ParseVersion(v, ""); err == nil {
		return ver.String()
	}
	return orNone(v)
}
