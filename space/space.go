package space

import (
	"fmt"
	"io"
	"sort"
	"strings"
)

// Config maps knob names to canonical values (see Knob.Normalize). A knob
// absent from the map keeps the server default. The empty Config is the
// baseline.
type Config map[string]string

// Clone returns a copy of c.
func (c Config) Clone() Config {
	out := make(Config, len(c))
	for k, v := range c {
		out[k] = v
	}
	return out
}

// Names returns the knob names set in c, sorted.
func (c Config) Names() []string {
	names := make([]string, 0, len(c))
	for k := range c {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// Key returns a stable text form of c ("a=1,b=ON"), used to compare configs.
func (c Config) Key() string {
	var b strings.Builder
	for i, n := range c.Names() {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(n + "=" + c[n])
	}
	return b.String()
}

// Merge returns a copy of c with every value of over set on top.
func (c Config) Merge(over Config) Config {
	out := c.Clone()
	for k, v := range over {
		out[k] = v
	}
	return out
}

// Space is an ordered set of knobs: the searched ones, and the ones known
// to the space but not searched (pinned or excluded) that a configuration
// may still set. Built by New (every knob searched) or Resolve.
type Space struct {
	all      []Knob         // every usable knob, catalogue order
	index    map[string]int // name and variable aliases → position in all
	searched []Knob         // the knobs a strategy samples, in order
	fixed    Config         // pinned values, set in every trial
	entries  []Entry        // the resolution report (nil from New)
	version  Version        // the server's release Resolve resolved against (zero from New)
	rules    serverRules    // how the server resolved against maps or rounds values (zero from New)
}

// New returns a space searching knobs, in their order. It returns an error
// when two knobs share a name or a knob's range or default is invalid.
func New(knobs []Knob) (*Space, error) {
	s := &Space{index: make(map[string]int, len(knobs)), fixed: Config{}}
	for _, k := range knobs {
		if err := checkKnob(k); err != nil {
			return nil, err
		}
		if _, dup := s.index[k.Name]; dup {
			return nil, fmt.Errorf("space: knob %s listed twice", k.Name)
		}
		s.index[k.Name] = len(s.all)
		s.all = append(s.all, k)
	}
	s.searched = append([]Knob(nil), s.all...)
	return s, nil
}

// checkKnob validates one row: a non-empty range, a positive minimum on a
// log scale, choices for an enum.
func checkKnob(k Knob) error {
	switch k.Kind {
	case Int, Bytes, Float:
		if !(k.Min <= k.Max) {
			return fmt.Errorf("space: knob %s: empty range [%g, %g]", k.Name, k.Min, k.Max)
		}
		if k.Scale == Log && k.Min <= 0 {
			return fmt.Errorf("space: knob %s: log scale needs a positive minimum, got %g", k.Name, k.Min)
		}
	case Enum:
		if len(k.Choices) == 0 {
			return fmt.Errorf("space: knob %s: enum without choices", k.Name)
		}
	}
	return nil
}

// Default returns the space searched without a live server: the catalogue
// resolved for MariaDB 10.11 (the server this project targets) under
// --durability strict, with no environment or build choices detected.
// Studies use Resolve against the live server instead; Default serves
// tests and listings of stored trials.
func Default() *Space {
	s, err := Resolve(Catalogue(), Env{Version: Version{Flavor: MariaDB, Major: 10, Minor: 11}, Durability: Strict})
	if err != nil {
		panic(err) // the catalogue is a constant table; its own tests cover it
	}
	return s
}

// Lookup returns a space that knows every knob of the catalogue (searched
// or not, whatever the server), for reading and rendering stored
// configurations: trials listings and export.
func Lookup() *Space {
	var ks []Knob
	for _, k := range Catalogue() {
		if k.Kind == Enum && len(k.Choices) == 0 {
			k.Choices = []string{} // build knobs: choices come from the study
		}
		ks = append(ks, k)
	}
	s := &Space{index: map[string]int{}, fixed: Config{}}
	for _, k := range ks {
		s.add(k)
	}
	return s
}

// add appends k to the known knobs and indexes its name and variable
// aliases.
func (s *Space) add(k Knob) {
	s.index[k.Name] = len(s.all)
	for _, a := range k.Avail {
		if a.Variable != "" {
			if _, taken := s.index[a.Variable]; !taken {
				s.index[a.Variable] = len(s.all)
			}
		}
	}
	s.all = append(s.all, k)
}

// Restrict returns a copy of s that searches and pins only the knobs of s
// for which keep is true; the rest (the resolution, the server's rules)
// is s's.
func (s *Space) Restrict(keep func(Knob) bool) *Space {
	c := *s
	c.searched, c.fixed = nil, Config{}
	for _, k := range s.searched {
		if keep(k) {
			c.searched = append(c.searched, k)
		}
	}
	for n, v := range s.fixed {
		if k, ok := s.Knob(n); ok && keep(k) {
			c.fixed[n] = v
		}
	}
	return &c
}

// Knobs returns the searched knobs in order. The slice must not be
// modified.
func (s *Space) Knobs() []Knob { return s.searched }

// All returns every knob the space knows (searched, pinned, excluded), in
// catalogue order. The slice must not be modified.
func (s *Space) All() []Knob { return s.all }

// Fixed returns the pinned values (durability policy, space file): a copy
// the caller may modify.
func (s *Space) Fixed() Config { return s.fixed.Clone() }

// Entries returns the resolution report: one entry per catalogue knob with
// its status and reason (nil for a space built by New).
func (s *Space) Entries() []Entry { return s.entries }

// Searched reports whether the strategy samples knob name.
func (s *Space) Searched(name string) bool {
	k, ok := s.Knob(name)
	if !ok {
		return false
	}
	for _, x := range s.searched {
		if x.Name == k.Name {
			return true
		}
	}
	return false
}

// Variable returns the server's system variable for knob name (e.g.
// "tx_isolation" for transaction_isolation on MariaDB 10.11), as Resolve
// found it; the knob's name when the space was not resolved against a
// server.
func (s *Space) Variable(name string) string {
	k, ok := s.Knob(name)
	if !ok {
		return name
	}
	for _, e := range s.entries {
		if e.Knob.Name == k.Name && e.Variable != "" {
			return e.Variable
		}
	}
	return k.Name
}

// Knob returns the knob called name (dashes and underscores are equal; a
// variable alias such as tx_isolation finds transaction_isolation).
func (s *Space) Knob(name string) (Knob, bool) {
	i, ok := s.index[strings.ReplaceAll(name, "-", "_")]
	if !ok {
		return Knob{}, false
	}
	return s.all[i], true
}

// Limit narrows the numeric search range of knob name to at most max (in
// the knob's unit), e.g. the buffer pool to a share of the host's RAM. It
// returns an error when the knob is unknown or max is below its minimum.
func (s *Space) Limit(name string, max float64) error {
	i, ok := s.index[name]
	if !ok {
		return fmt.Errorf("space: no knob %s", name)
	}
	if k := s.all[i]; k.Kind == Int || k.Kind == Bytes {
		max = floorTo(max, float64(max64(k.Step, 1))) // the range ends stay multiples of the step
	}
	if max < s.all[i].Min {
		return fmt.Errorf("space: knob %s: limit %g below its minimum %g", name, max, s.all[i].Min)
	}
	if max < s.all[i].Max {
		s.all[i].Max = max
	}
	for j := range s.searched {
		if s.searched[j].Name == name && max < s.searched[j].Max {
			s.searched[j].Max = max
		}
	}
	return nil
}

// Validate normalises every value of c against its knob and returns the
// normalised copy (keyed by knob name). It returns an error naming the
// first unknown knob or bad value.
func (s *Space) Validate(c Config) (Config, error) {
	out := make(Config, len(c))
	for _, n := range c.Names() {
		k, ok := s.Knob(n)
		if !ok {
			return nil, fmt.Errorf("unknown knob %q", n)
		}
		v, err := k.Normalize(c[n])
		if err != nil {
			return nil, err
		}
		out[k.Name] = v
	}
	return out, nil
}

// Changes returns the knobs of c whose value differs from the knob default,
// as "name=value" with rendered values, in space order; knobs the space
// does not know follow as stored.
func (s *Space) Changes(c Config) []string { return s.ChangesFrom(nil, c) }

// ChangesFrom returns the knobs whose value in c differs from their value
// in base (a knob absent from either side counts at its default), as
// "name=value" with c's rendered value, in space order; knobs of c the
// space does not know follow as stored when base has another value.
func (s *Space) ChangesFrom(base, c Config) []string {
	var out []string
	for _, k := range s.all {
		b, inB := base[k.Name]
		v, inC := c[k.Name]
		if !inB {
			b = k.Default
		}
		if !inC {
			v = k.Default
		}
		if (inB || inC) && v != b {
			out = append(out, k.Name+"="+k.Render(v))
		}
	}
	for _, n := range c.Names() {
		if _, ok := s.Knob(n); !ok && base[n] != c[n] {
			out = append(out, n+"="+c[n])
		}
	}
	return out
}

// WriteOptions writes the server knobs of c as option lines ("name =
// value", the value quoted by FormatOptionValue when it needs it) with
// full option names in space order, without a group header.
// Knobs of other layers (environment, build) are not options and are
// skipped. Knobs not in the space are an error: an unknown option aborts the
// server, and a partial name would match another option.
func (s *Space) WriteOptions(w io.Writer, c Config) error {
	for _, n := range c.Names() {
		if _, ok := s.Knob(n); !ok {
			return fmt.Errorf("unknown knob %q", n)
		}
	}
	for _, k := range s.all {
		v, ok := c[k.Name]
		if !ok || k.Layer != LayerServer {
			continue
		}
		if _, err := fmt.Fprintf(w, "%s = %s\n", OptionName(k.Name, s.version), FormatOptionValue(k.Render(v))); err != nil {
			return err
		}
	}
	return nil
}

func max64(a, b int64) int64 {
	if a > b {
		return a
	}
	return b
}

// FirstKnobs names the twelve InnoDB knobs of autotune's first search
// space, the ones with the largest reported effect on OLTP throughput.
var FirstKnobs = []string{
	"innodb_buffer_pool_size", "innodb_log_file_size", "innodb_log_buffer_size", "innodb_flush_log_at_trx_commit",
	"innodb_flush_method", "innodb_io_capacity", "innodb_doublewrite", "innodb_adaptive_hash_index",
	"innodb_change_buffering", "innodb_max_dirty_pages_pct", "innodb_purge_threads", "innodb_flush_neighbors",
}

// FirstSpace returns a space over FirstKnobs, in that order, as the
// catalogue defines them (durability knobs searchable): a small, stable space for examples,
// harness landscapes and tests.
func FirstSpace() (*Space, error) {
	byName := map[string]Knob{}
	for _, k := range Catalogue() {
		byName[k.Name] = k
	}
	ks := make([]Knob, 0, len(FirstKnobs))
	for _, n := range FirstKnobs {
		k, ok := byName[n]
		if !ok {
			return nil, fmt.Errorf("space: first-space knob %s not in the catalogue", n)
		}
		ks = append(ks, k)
	}
	return New(ks)
}
