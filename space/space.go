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

// Space is an ordered set of knobs to search.
type Space struct {
	knobs []Knob
	index map[string]int
}

// New returns a space over knobs, in their order. It returns an error when
// two knobs share a name or a knob's range or default is invalid.
func New(knobs []Knob) (*Space, error) {
	s := &Space{index: make(map[string]int, len(knobs))}
	for _, k := range knobs {
		if _, dup := s.index[k.Name]; dup {
			return nil, fmt.Errorf("space: knob %s listed twice", k.Name)
		}
		switch k.Kind {
		case Int, Bytes, Float:
			if !(k.Min <= k.Max) {
				return nil, fmt.Errorf("space: knob %s: empty range [%g, %g]", k.Name, k.Min, k.Max)
			}
			if k.Scale == Log && k.Min <= 0 {
				return nil, fmt.Errorf("space: knob %s: log scale needs a positive minimum, got %g", k.Name, k.Min)
			}
		case Enum:
			if len(k.Choices) == 0 {
				return nil, fmt.Errorf("space: knob %s: enum without choices", k.Name)
			}
		}
		s.index[k.Name] = len(s.knobs)
		s.knobs = append(s.knobs, k)
	}
	return s, nil
}

// Default returns the space over Catalogue().
func Default() *Space {
	s, err := New(Catalogue())
	if err != nil {
		panic(err) // the catalogue is a constant table; its own tests cover it
	}
	return s
}

// Knobs returns the knobs in order. The slice must not be modified.
func (s *Space) Knobs() []Knob { return s.knobs }

// Knob returns the knob called name (dashes and underscores are equal).
func (s *Space) Knob(name string) (Knob, bool) {
	i, ok := s.index[strings.ReplaceAll(name, "-", "_")]
	if !ok {
		return Knob{}, false
	}
	return s.knobs[i], true
}

// Limit narrows the numeric search range of knob name to at most max (in
// the knob's unit), e.g. the buffer pool to a share of the host's RAM. It
// returns an error when the knob is unknown or max is below its minimum.
func (s *Space) Limit(name string, max float64) error {
	i, ok := s.index[name]
	if !ok {
		return fmt.Errorf("space: no knob %s", name)
	}
	if max < s.knobs[i].Min {
		return fmt.Errorf("space: knob %s: limit %g below its minimum %g", name, max, s.knobs[i].Min)
	}
	if max < s.knobs[i].Max {
		s.knobs[i].Max = max
	}
	return nil
}

// Validate normalises every value of c against its knob and returns the
// normalised copy. It returns an error naming the first unknown knob or bad
// value.
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
// as "name=value" with rendered values, in space order.
func (s *Space) Changes(c Config) []string {
	var out []string
	for _, k := range s.knobs {
		v, ok := c[k.Name]
		if !ok || v == k.Default {
			continue
		}
		out = append(out, k.Name+"="+k.Render(v))
	}
	return out
}

// WriteOptions writes c as option lines ("name = value") with full option
// names in space order, without a group header. Knobs not in the space are
// an error.
func (s *Space) WriteOptions(w io.Writer, c Config) error {
	for _, n := range c.Names() {
		if _, ok := s.Knob(n); !ok {
			return fmt.Errorf("unknown knob %q", n)
		}
	}
	for _, k := range s.knobs {
		v, ok := c[k.Name]
		if !ok {
			continue
		}
		if _, err := fmt.Fprintf(w, "%s = %s\n", k.Name, k.Render(v)); err != nil {
			return err
		}
	}
	return nil
}
