package sysbench

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// The access distributions of sysbench's OLTP workloads (--rand-type):
// which rows its random numbers pick. Source: sysbench 1.0.20 `sysbench
// --help` (runner/testdata/help/sysbench-1.0.20-help.txt) and the --help
// of a sysbench 1.1 built from master
// (runner/testdata/help/sysbench-rand-type-drift/help-1.1-master.txt).
const (
	// RandUniform picks every row alike.
	RandUniform = "uniform"
	// RandGaussian sums RandSpecIter uniform draws per number.
	RandGaussian = "gaussian"
	// RandSpecial sends RandSpecRes % of the draws to RandSpecPct % of
	// the rows (sysbench 1.0.x only; its default there).
	RandSpecial = "special"
	// RandPareto draws from a Pareto distribution of shape ParetoH.
	RandPareto = "pareto"
	// RandZipfian draws from a Zipfian distribution of exponent
	// ZipfianExp (sysbench built from master only).
	RandZipfian = "zipfian"
)

// RandTypes are the distributions autotune accepts for --rand-type, in
// the order sysbench lists them.
var RandTypes = []string{RandUniform, RandGaussian, RandSpecial, RandPareto, RandZipfian}

// DefaultRandType is --rand-type's default: sysbench 1.0.x's own default,
// the distribution autotune's measurements were built on.
const DefaultRandType = RandSpecial

// The shape options, each with its default (sysbench 1.0.20's for the
// rand-spec-* and rand-pareto-h, master's for rand-zipfian-exp).
const (
	OptSpecIter   = "rand-spec-iter"   // default 12
	OptSpecPct    = "rand-spec-pct"    // default 1
	OptSpecRes    = "rand-spec-res"    // default 75
	OptParetoH    = "rand-pareto-h"    // default 0.2
	OptZipfianExp = "rand-zipfian-exp" // default 0.8
)

// ShapeOptions are the shape options, in the order they are passed.
var ShapeOptions = []string{OptSpecIter, OptSpecPct, OptSpecRes, OptParetoH, OptZipfianExp}

// shapesRead maps each distribution to the shape options its generator
// reads (sysbench 1.0.20 src/sb_rand.c: gaussian and special read
// rand_iter, special also rand_pct and rand_res, pareto pareto_h; master's
// zipfian reads rand_zipfian_exp).
var shapesRead = map[string][]string{
	RandUniform:  nil,
	RandGaussian: {OptSpecIter},
	RandSpecial:  {OptSpecIter, OptSpecPct, OptSpecRes},
	RandPareto:   {OptParetoH},
	RandZipfian:  {OptZipfianExp},
}

// Distribution is the access distribution of an OLTP run: sysbench's
// --rand-type and the shape options it reads. A zero field is its
// default; the zero Distribution is the default one (special, 12, 1, 75).
type Distribution struct {
	// Type is one of RandTypes ("": DefaultRandType).
	Type string
	// SpecIter is --rand-spec-iter (uniform draws summed per number,
	// >= 1), SpecPct --rand-spec-pct (the percentage of the rows the
	// special values fall on, 1..100), SpecRes --rand-spec-res (the
	// percentage of draws that are special, 1..100).
	SpecIter, SpecPct, SpecRes int
	// ParetoH is --rand-pareto-h (0 < h < 1); ZipfianExp
	// --rand-zipfian-exp (θ > 0).
	ParetoH, ZipfianExp float64
}

// withDefaults returns d with every zero field at its default.
func (d Distribution) withDefaults() Distribution {
	if d.Type == "" {
		d.Type = DefaultRandType
	}
	if d.SpecIter == 0 {
		d.SpecIter = 12
	}
	if d.SpecPct == 0 {
		d.SpecPct = 1
	}
	if d.SpecRes == 0 {
		d.SpecRes = 75
	}
	if d.ParetoH == 0 {
		d.ParetoH = 0.2
	}
	if d.ZipfianExp == 0 {
		d.ZipfianExp = 0.8
	}
	return d
}

// Name is the distribution's --rand-type value (DefaultRandType for "").
func (d Distribution) Name() string { return d.withDefaults().Type }

// Reads reports whether distribution typ reads the shape option opt
// (one of ShapeOptions).
func Reads(typ, opt string) bool { return slices.Contains(shapesRead[typ], opt) }

// Check returns an error naming the --rand-type or shape flag of d
// that is out of its range (its value and the range wanted).
func (d Distribution) Check() error {
	d = d.withDefaults()
	switch {
	case !slices.Contains(RandTypes, d.Type):
		return fmt.Errorf("--rand-type %q: want one of %s", d.Type, strings.Join(RandTypes, ", "))
	case d.SpecIter < 1:
		return fmt.Errorf("--%s %d: want >= 1 (uniform draws summed per number)", OptSpecIter, d.SpecIter)
	case d.SpecPct < 1 || d.SpecPct > 100:
		return fmt.Errorf("--%s %d: want a percentage 1..100 (of the rows the special values fall on)", OptSpecPct, d.SpecPct)
	case d.SpecRes < 1 || d.SpecRes > 100:
		return fmt.Errorf("--%s %d: want a percentage 1..100 (of the draws that are special)", OptSpecRes, d.SpecRes)
	case !(d.ParetoH > 0 && d.ParetoH < 1):
		return fmt.Errorf("--%s %g: want 0 < h < 1", OptParetoH, d.ParetoH)
	case !(d.ZipfianExp > 0) || d.ZipfianExp > 1e6:
		return fmt.Errorf("--%s %g: want an exponent > 0", OptZipfianExp, d.ZipfianExp)
	}
	return nil
}

// Options returns the sysbench options of d, as (name, value) in the
// order they are passed: --rand-type, then the shape options the
// distribution reads. The default distribution (special) also passes
// --rand-pareto-h, which special does not read: these five options are
// the definition every stored study of the default distribution holds,
// and its fingerprint rests on them.
func (d Distribution) Options() [][2]string {
	d = d.withDefaults()
	out := [][2]string{{"rand-type", d.Type}}
	values := map[string]string{
		OptSpecIter:   strconv.Itoa(d.SpecIter),
		OptSpecPct:    strconv.Itoa(d.SpecPct),
		OptSpecRes:    strconv.Itoa(d.SpecRes),
		OptParetoH:    strconv.FormatFloat(d.ParetoH, 'g', -1, 64),
		OptZipfianExp: strconv.FormatFloat(d.ZipfianExp, 'g', -1, 64),
	}
	for _, o := range ShapeOptions {
		if Reads(d.Type, o) || (d.Type == RandSpecial && o == OptParetoH) {
			out = append(out, [2]string{o, values[o]})
		}
	}
	return out
}

// String renders d for people: its --rand-type and the shape options it
// reads whose values are not their defaults, "--rand-type=uniform",
// "--rand-type=special", "--rand-type=pareto --rand-pareto-h=0.3"
// (Options is what is passed).
func (d Distribution) String() string {
	def := Distribution{Type: d.Name()}.Options()
	parts := []string{}
	for i, o := range d.Options() {
		if i == 0 || !Reads(d.Name(), o[0]) {
			if i == 0 {
				parts = append(parts, "--"+o[0]+"="+o[1])
			}
			continue
		}
		if i < len(def) && def[i] == o {
			continue
		}
		parts = append(parts, "--"+o[0]+"="+o[1])
	}
	return strings.Join(parts, " ")
}

// With returns d with the distribution typ (its shape options kept).
func (d Distribution) With(typ string) Distribution {
	d.Type = typ
	return d
}

// RandTypeHelp is what a sysbench build's --help says of --rand-type:
// the distributions it lists and its default.
type RandTypeHelp struct {
	// Values are the distributions in the order listed; Default is the
	// bracketed default ("" when the line has none).
	Values  []string
	Default string
}

// randTypeLine matches the --rand-type line of sysbench --help, spaces
// around the values and the words between them allowed:
// "--rand-type=STRING random numbers distribution {uniform,gaussian,special,pareto} [special]" (1.0.x),
// "--rand-type=STRING   random numbers distribution {uniform, gaussian, pareto, zipfian} to use by default [uniform]" (master).
var randTypeLine = regexp.MustCompile(`^\s*--rand-type(?:=\S*)?\s.*?\{([^}]*)\}[^\[]*(?:\[([^\]]*)\])?`)

// ParseRandTypeHelp reads the --rand-type line of sysbench's --help
// output help. found is false when no line is about --rand-type; the
// error says that the line lists no {...} values, or an empty or
// malformed one (quoting the line).
func ParseRandTypeHelp(help string) (h RandTypeHelp, found bool, err error) {
	for _, line := range strings.Split(help, "\n") {
		t := strings.TrimSpace(line)
		if !strings.HasPrefix(t, "--rand-type=") && !strings.HasPrefix(t, "--rand-type ") {
			continue
		}
		m := randTypeLine.FindStringSubmatch(t)
		if m == nil {
			return h, true, fmt.Errorf("the --rand-type line of the help lists no {...} distributions: %q", t)
		}
		for _, v := range strings.Split(m[1], ",") {
			v = strings.TrimSpace(v)
			if !validRandName(v) {
				return h, true, fmt.Errorf("the --rand-type line of the help lists a malformed distribution %q: %q", v, t)
			}
			h.Values = append(h.Values, v)
		}
		h.Default = strings.TrimSpace(m[2])
		return h, true, nil
	}
	return h, false, nil
}

// validRandName reports whether v is a distribution's name: lower-case
// letters, digits and underscores.
func validRandName(v string) bool {
	if v == "" {
		return false
	}
	for _, r := range v {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_') {
			return false
		}
	}
	return true
}

// CheckOffered returns an error when a sysbench build whose --help says
// h of --rand-type cannot measure distribution typ: typ is not among the
// values it lists, or typ is gaussian and the build has no special
// distribution (sysbench built from master: its gaussian generator reads
// rand_iter, which only the special distribution's option set, as 0 and
// returns zero offsets, so every access hits the first rows;
// akopytov/sysbench PR #455). binary names the build in the error
// ("/usr/bin/sysbench (sysbench 1.0.20)").
func (h RandTypeHelp) CheckOffered(binary, typ string) error {
	accepts := strings.Join(h.Values, ", ")
	if h.Default != "" {
		accepts += " (default " + h.Default + ")"
	}
	if !slices.Contains(h.Values, typ) {
		return fmt.Errorf("%s does not offer --rand-type=%s: it accepts %s", binary, typ, accepts)
	}
	if typ == RandGaussian && !slices.Contains(h.Values, RandSpecial) {
		return fmt.Errorf("%s: --rand-type=gaussian is refused on a build without the special distribution (it accepts %s): its gaussian generator is broken there and returns zero offsets, so every access hits the first rows (akopytov/sysbench PR #455); choose another distribution", binary, accepts)
	}
	return nil
}
