package space

import (
	"math"
	"strconv"
)

// Essential returns cfg without the settings that change nothing: a knob
// of s set to the value the server runs with when the knob is left out,
// and thread_pool_size when the thread pool is not in use (thread_handling
// other than pool-of-threads, set or by default). The value a left-out
// knob runs with is its Default (the live server's value when s was
// resolved against one), except innodb_io_capacity_max, which runs with
// max(its default, 2 × the effective innodb_io_capacity) (MariaDB KB,
// innodb_io_capacity_max: "default max(2000, 2 × innodb_io_capacity)").
// Values are compared in the knob's canonical form (Knob.Canonical), so
// "128M" and "134217728" are one value.
//
// Two configurations the server runs alike, one that lists a knob at its
// default and one that leaves it out (an expert warm start names three
// knobs; a strategy proposes every knob), have one Essential form: a
// study records every configuration in this form so it groups their
// measurements as one configuration's (search.Loop.Canonical).
//
// Kept as given: knobs not in s, values a knob cannot parse, knobs whose
// Default is empty, and query_cache_size at any value (MariaDB 10.11
// turns the query cache on at start whenever query_cache_size is in the
// option file with a non-zero value, even the default 1M: see Repair).
// Essential never changes a value, so it is idempotent, and
// Essential(Fill(cfg)) is Essential(cfg) with query_cache_size at its
// default added when cfg left it out.
func (s *Space) Essential(cfg Config) Config {
	out := make(Config, len(cfg))
	for name, v := range cfg {
		if !s.neutral(cfg, name, v) {
			out[name] = v
		}
	}
	return out
}

// Fill returns cfg with every searched knob of s set: the knobs cfg
// leaves out at the value the server runs with (see Essential: the
// Default, and max(default, 2 × innodb_io_capacity) for
// innodb_io_capacity_max). The other knobs of cfg are kept. Fill is for
// comparing and modelling configurations, not for writing them as
// options: a filled query_cache_size turns the query cache on (Repair).
func (s *Space) Fill(cfg Config) Config {
	out := cfg.Clone()
	if out == nil {
		out = Config{}
	}
	for _, k := range s.searched {
		if _, ok := cfg[k.Name]; !ok {
			out[k.Name] = s.LeftOut(cfg, k)
		}
	}
	return out
}

// neutral reports whether setting knob name to v in cfg changes nothing
// (see Essential).
func (s *Space) neutral(cfg Config, name, v string) bool {
	k, ok := s.Knob(name)
	if !ok || k.Default == "" || name == "query_cache_size" {
		return false
	}
	if name == "thread_pool_size" {
		if hk, ok := s.Knob("thread_handling"); ok {
			h, set := cfg[hk.Name]
			if !set {
				h = hk.Default
			}
			if h, err := hk.Canonical(h); err == nil && h != "pool-of-threads" {
				return true
			}
		}
	}
	cv, err := k.Canonical(v)
	if err != nil {
		return false
	}
	dv, err := k.Canonical(s.LeftOut(cfg, k))
	return err == nil && cv == dv
}

// LeftOut returns the value knob k runs with when cfg leaves it out: its
// default, except innodb_io_capacity_max, which follows
// innodb_io_capacity (max(default, 2 × the effective innodb_io_capacity),
// MariaDB KB "innodb_io_capacity_max"), formatted as a plain number. Fill
// is LeftOut for every searched knob cfg does not set.
func (s *Space) LeftOut(cfg Config, k Knob) string {
	if k.Name != "innodb_io_capacity_max" {
		return k.Default
	}
	io, ok := s.Knob("innodb_io_capacity")
	if !ok {
		return k.Default
	}
	v, set := cfg[io.Name]
	if !set {
		v = io.Default
	}
	c, err1 := io.Canonical(v)
	d, err2 := k.Canonical(k.Default)
	if err1 != nil || err2 != nil {
		return k.Default
	}
	cf, err1 := strconv.ParseFloat(c, 64)
	df, err2 := strconv.ParseFloat(d, 64)
	if err1 != nil || err2 != nil {
		return k.Default
	}
	return strconv.FormatFloat(math.Max(df, 2*cf), 'f', -1, 64)
}
