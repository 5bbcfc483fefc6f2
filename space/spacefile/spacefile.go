// Package spacefile reads autotune space files: TOML documents that say
// which knobs a study searches and how (include/exclude lists, narrowed
// ranges, narrowed choices, fixed values). Decoding uses
// github.com/BurntSushi/toml; the rules themselves are applied by
// space.Resolve against the live server.
//
// Format (every key optional):
//
//	include = ["innodb_buffer_pool_size", "innodb_log_*"]   # names or path.Match patterns
//	exclude = ["innodb_change_buffering"]
//
//	[knobs.innodb_buffer_pool_size]
//	min = "256M"          # sizes as in my.cnf; numbers may be TOML numbers
//	max = "8G"
//
//	[knobs.innodb_flush_method]
//	choices = ["O_DIRECT", "fsync"]
//
//	[knobs.innodb_io_capacity]
//	fixed = 2000
//
// Unknown keys are errors (a typo must not silently widen the search).
package spacefile

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/autotune/autotune/space"
)

type file struct {
	Include []string        `toml:"include"`
	Exclude []string        `toml:"exclude"`
	Knobs   map[string]rule `toml:"knobs"`
}

type rule struct {
	Min     any   `toml:"min"`
	Max     any   `toml:"max"`
	Choices []any `toml:"choices"`
	Fixed   any   `toml:"fixed"`
}

// Load reads and decodes the space file at path. It returns an error naming
// the file and, where known, the line: TOML syntax errors, unknown keys,
// values of the wrong type. Knob names and values are checked later, by
// space.Resolve, against the server.
func Load(path string) (*space.Rules, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("space file %s: %w", path, err)
	}
	return Parse(path, b)
}

// Parse decodes a space file's content; name is used in errors.
func Parse(name string, b []byte) (*space.Rules, error) {
	var f file
	md, err := toml.Decode(string(b), &f)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, fmt.Errorf("space file %s line %d: %s", name, pe.Position.Line, pe.Message)
		}
		return nil, fmt.Errorf("space file %s: %w", name, err)
	}
	if und := md.Undecoded(); len(und) > 0 {
		k := und[0]
		return nil, fmt.Errorf("space file %s line %d: unknown key %q (want include, exclude, or [knobs.NAME] with min, max, choices, fixed)",
			name, keyLine(b, k), k.String())
	}
	r := &space.Rules{File: name, Include: f.Include, Exclude: f.Exclude, Knobs: map[string]space.KnobRule{}}
	for kname, kr := range f.Knobs {
		line := keyLine(b, toml.Key{"knobs", kname})
		var out space.KnobRule
		out.Line = line
		for _, x := range []struct {
			key string
			val any
			dst *string
		}{{"min", kr.Min, &out.Min}, {"max", kr.Max, &out.Max}, {"fixed", kr.Fixed, &out.Fixed}} {
			if x.val == nil {
				continue
			}
			s, err := scalar(x.val)
			if err != nil {
				return nil, fmt.Errorf("space file %s line %d: knobs.%s.%s: %w", name, line, kname, x.key, err)
			}
			*x.dst = s
		}
		for i, c := range kr.Choices {
			s, err := scalar(c)
			if err != nil {
				return nil, fmt.Errorf("space file %s line %d: knobs.%s.choices[%d]: %w", name, line, kname, i, err)
			}
			out.Choices = append(out.Choices, s)
		}
		if kr.Choices != nil && len(kr.Choices) == 0 {
			return nil, fmt.Errorf("space file %s line %d: knobs.%s.choices is empty (use fixed to pin one value)", name, line, kname)
		}
		if out.Min == "" && out.Max == "" && out.Fixed == "" && len(out.Choices) == 0 {
			return nil, fmt.Errorf("space file %s line %d: knobs.%s has no min, max, choices or fixed", name, line, kname)
		}
		r.Knobs[kname] = out
	}
	return r, nil
}

// scalar renders a TOML value as the text a my.cnf would hold: strings as
// is, integers in decimal, floats shortest, booleans ON/OFF.
func scalar(v any) (string, error) {
	switch x := v.(type) {
	case string:
		return x, nil
	case int64:
		return strconv.FormatInt(x, 10), nil
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64), nil
	case bool:
		if x {
			return "ON", nil
		}
		return "OFF", nil
	}
	return "", fmt.Errorf("want a string, number or boolean, got %T", v)
}

// keyLine finds the line defining key: a [table] header naming it, or a
// "name =" line inside its parent table. 0 when not found.
func keyLine(b []byte, k toml.Key) int {
	if len(k) == 0 {
		return 0
	}
	header := regexp.MustCompile(`^\s*\[\s*` + regexp.QuoteMeta(strings.Join(k, ".")) + `\s*\]`)
	parent := "[" + strings.Join(k[:len(k)-1], ".") + "]"
	assign := regexp.MustCompile(`^\s*"?` + regexp.QuoteMeta(k[len(k)-1]) + `"?\s*=`)
	dotted := regexp.MustCompile(`^\s*` + regexp.QuoteMeta(strings.Join(k, ".")) + `\s*=`)
	sc := bufio.NewScanner(bytes.NewReader(b))
	table := "[]"
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if header.MatchString(line) || dotted.MatchString(line) {
			return n
		}
		if t := strings.TrimSpace(line); strings.HasPrefix(t, "[") {
			table = strings.ReplaceAll(t[:strings.IndexByte(t+"]", ']')+1], " ", "")
			continue
		}
		if (table == parent || (len(k) == 1 && table == "[]")) && assign.MatchString(line) {
			return n
		}
	}
	return 0
}
