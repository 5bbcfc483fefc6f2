package archtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

// module is the module path; rules name packages relative to it.
const module = "github.com/autotune/autotune"

// rules say which project packages each package may import directly.
//
// A name is a package path relative to the module ("runner/sysbench"); a
// name ending in "/..." stands for that package and every package below it,
// as in the go command ("runner/..." is runner, runner/sysbench, ...). A
// package gets the rule of its exact name, else of the longest "/..."
// pattern that covers it; a package no rule covers fails the test. "*" in
// mayImport allows every project package. A rule's never list wins over
// its mayImport: it names packages from outside the module (the standard
// library, third-party modules: checked only against never) and project
// packages the mayImport list would otherwise allow (the lab, theLab).
var rules = []rule{
	{pkg: "space", mayImport: nil, never: []string{"os/exec"},
		why: "space is the vocabulary (knobs, configs, my.cnf, versions) every other package speaks"},
	{pkg: "space/spacefile", mayImport: []string{"space"},
		why: "spacefile only reads space files into space types"},
	{pkg: "measure", mayImport: nil, never: []string{"os/exec"},
		why: "measure is the measurement vocabulary (samples, outcome, phases, steady and score rules) the engine writes and the search reads; it imports nothing of the project"},
	{pkg: "search/...", mayImport: []string{"space", "measure"}, never: []string{"os/exec"},
		why: "the search decides what to try; it never sees processes, storage, the engine or reports: never runner, storage, engine, study, report, os/exec"},
	{pkg: "strategy", mayImport: []string{"space", "measure", "search"}, never: []string{"os/exec"},
		why: "the strategies propose configurations through search's Strategy interface; every re-measurement is the study loop's: never runner, storage, engine, study, report, os/exec"},
	{pkg: theLab, mayImport: []string{"space", "measure", "search", "strategy", theLab},
		why: "the lab compares strategies on synthetic objectives and command objectives (its processes); never runner, storage, engine, study, report"},
	{pkg: "internal/lab/labstudy", mayImport: []string{"internal/lab", "storage", "search", "strategy", "space", "measure"},
		why: "labstudy reads a study store for the lab (a landscape fitted to a study, a fit fixture) and runs bench-search over the lab's landscapes; never runner, engine, study, report"},
	{pkg: "runner/...", mayImport: []string{"space", "runner/...", "internal/..."}, never: []string{theLab},
		why: "runner runs processes and measures; it knows nothing of the search, storage, the engine or reports: never search, storage, engine, study, report"},
	{pkg: "runner/replay", mayImport: []string{"space", "runner/...", "internal/...", "workload"}, never: []string{theLab},
		why: "the replay driver runs a captured workload file (package workload, which imports only space); like runner: never search, storage, engine, study, report"},
	{pkg: "engine", mayImport: []string{"search", "measure", "space", "runner/...", "internal/..."}, never: []string{theLab},
		why: "engine runs one trial between the search and the runner; it does not store or render"},
	{pkg: "storage", mayImport: []string{"search", "measure", "space", "internal/..."}, never: []string{theLab},
		why: "storage keeps search types; it decides nothing and runs nothing"},
	{pkg: "study/result", mayImport: []string{"search", "measure", "space", "storage"}, never: []string{"os/exec"},
		why: "result holds what the modes produce (events, typed results) for renderers: vocabulary only, so a renderer depends on no process, engine or store"},
	{pkg: "exportfile", mayImport: []string{"search", "measure", "space", "storage", "internal/..."}, never: []string{"os/exec", theLab},
		why: "exportfile owns the export file, writing every format and reading its header back (verify); it renders nothing else and runs nothing: never report, study, runner, engine, os/exec"},
	{pkg: "report", mayImport: []string{"search", "measure", "space", "storage", "study/result", "exportfile", "internal/..."}, never: []string{theLab},
		why: "report renders what a study stored and what the modes return (study/result); it runs nothing and never imports study; the export file and the words it shares with report are exportfile's"},
	{pkg: "dashboard", mayImport: []string{"search", "measure", "space", "storage", "report", "exportfile", "study/result", "internal/..."}, never: []string{"os/exec", theLab},
		why: "the dashboard serves what a study stored, read-only, with report's renderings; it runs nothing and never writes: never runner, engine, study, strategy, os/exec"},
	{pkg: "study", mayImport: []string{"engine", "search", "strategy", "measure", "space", "space/spacefile", "runner/...", "storage", "study/result", "exportfile", "internal/..."}, never: []string{theLab},
		why: "study runs the modes: it wires the engine, the search and a store, emits events and returns typed results (study/result); it never renders them (never report); it writes and reads export files through exportfile; the lab is no mode of the product: only the lab's commands import it"},
	{pkg: "workload", mayImport: []string{"space", "internal/..."}, never: []string{theLab},
		why: "workload reads query logs and a live server's slow log into workload files; it knows nothing of the search, the engine, storage or reports"},
	{pkg: "internal/...", mayImport: []string{"runner", "space", "measure", "internal/..."}, never: []string{theLab},
		why: "internal holds helpers; internal/teststore starts servers through runner, internal/testspace resolves the reference space, internal/testlandscape is the tests' synthetic objective"},
	{pkg: "cmd/...", mayImport: []string{"*"}, never: []string{theLab},
		why: "cmd only wires flags to the packages; the product's commands link no lab (only the lab's commands do, labCommands)"},
	{pkg: "cmd/autotune-lab", mayImport: []string{"*"},
		why: "the lab's command: bench-search wires flags to the lab"},
	{pkg: "cmd/fitfixture", mayImport: []string{"*"},
		why: "the lab's tool that writes a study's trials as a fit fixture of the lab"},
}

// theLab is the lab: the strategy comparison with its landscapes, fitted
// fixtures, the Optuna peer (Python) and shell-command objectives. Only the
// lab's commands (labCommands) may import it, directly or not.
const theLab = "internal/lab/..."

// labCommands are the commands that may link the lab; every other main
// package under cmd/ is the product's and must not depend on theLab
// (TestProductLinksNoLab).
var labCommands = []string{"cmd/autotune-lab", "cmd/fitfixture"}

// A rule is one row of the table.
type rule struct {
	pkg       string   // package path relative to the module, or a "/..." pattern
	mayImport []string // project packages it may import: paths, "/..." patterns, or "*"
	never     []string // packages it must not import, whatever mayImport says: standard library paths, project paths or "/..." patterns
	why       string   // the reason, printed with a violation
}

// String renders the rule as the table says it, for messages.
func (r rule) String() string {
	may := "no project package"
	switch {
	case slices.Equal(r.mayImport, []string{"*"}):
		may = "every project package"
	case len(r.mayImport) > 0:
		may = "only " + strings.Join(r.mayImport, ", ")
	}
	if len(r.never) > 0 {
		may += ", never " + strings.Join(r.never, ", ")
	}
	return fmt.Sprintf("%q: may import %s; %s", r.pkg, may, r.why)
}

// matches reports whether the package path rel (relative to the module)
// is name, or is covered by name when name ends in "/...".
func matches(name, rel string) bool {
	if name == "*" {
		return true
	}
	if base, ok := strings.CutSuffix(name, "/..."); ok {
		return rel == base || strings.HasPrefix(rel, base+"/")
	}
	return rel == name
}

// ruleFor returns the rule of the package rel: the one naming it exactly,
// else the longest "/..." pattern covering it. ok is false when none does.
func ruleFor(table []rule, rel string) (r rule, ok bool) {
	best := -1
	for _, c := range table {
		if !matches(c.pkg, rel) {
			continue
		}
		if c.pkg == rel {
			return c, true
		}
		if len(c.pkg) > best {
			r, ok, best = c, true, len(c.pkg)
		}
	}
	return r, ok
}

// pkg is what the check needs of a package (fields of go list -json).
type pkg struct {
	ImportPath string
	Imports    []string // of the non-test files
	Error      *struct{ Err string }
}

// rel returns path relative to the module, and false for a path outside it.
func rel(path string) (string, bool) {
	if path == module {
		return ".", true
	}
	r, ok := strings.CutPrefix(path, module+"/")
	return r, ok
}

// check returns one message per broken rule: a project import the
// importer's rule does not allow, an import the rule's never list names,
// a package no rule covers, an import of cmd/... from outside cmd/.
func check(table []rule, pkgs []pkg) []string {
	var msgs []string
	for _, p := range pkgs {
		from, ok := rel(p.ImportPath)
		if !ok {
			continue
		}
		r, covered := ruleFor(table, from)
		if !covered {
			msgs = append(msgs, fmt.Sprintf("%s: no rule covers this package; add it to the rules table in internal/archtest/archtest_test.go with the project packages it may import", from))
			continue
		}
		for _, imp := range p.Imports {
			to, ok := rel(imp)
			if !ok {
				if slices.Contains(r.never, imp) {
					msgs = append(msgs, fmt.Sprintf("%s imports %s: forbidden by rule %s", from, imp, r))
				}
				continue
			}
			if matches("cmd/...", to) && !matches("cmd/...", from) {
				msgs = append(msgs, fmt.Sprintf("%s imports %s: forbidden, no package outside cmd/ may import cmd/...; rule %s", from, to, r))
				continue
			}
			if !allowed(r, to) || forbidden(r, to) {
				msgs = append(msgs, fmt.Sprintf("%s imports %s: forbidden by rule %s", from, to, r))
			}
		}
	}
	sort.Strings(msgs)
	return msgs
}

// allowed reports whether rule r lets its package import the project
// package to (relative path).
func allowed(r rule, to string) bool {
	for _, m := range r.mayImport {
		if matches(m, to) {
			return true
		}
	}
	return false
}

// forbidden reports whether rule r's never list names the project
// package to (relative path): a path or a "/..." pattern covering it.
func forbidden(r rule, to string) bool {
	for _, n := range r.never {
		if matches(n, to) {
			return true
		}
	}
	return false
}

// moduleRoot walks up from the working directory to the directory holding
// go.mod.
func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the working directory")
		}
		dir = parent
	}
}

// listPackages returns every package of the module, as go list sees them
// on this platform.
func listPackages(t *testing.T, root string) []pkg {
	t.Helper()
	cmd := exec.Command("go", "list", "-e", "-json=ImportPath,Imports,Error", "./...")
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list ./... in %s: %v\n%s", root, err, stderr.Bytes())
	}
	var pkgs []pkg
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p pkg
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("decode go list output: %v", err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

// TestImportRules checks every package of the module against the rules.
func TestImportRules(t *testing.T) {
	pkgs := listPackages(t, moduleRoot(t))
	seen := map[string]bool{}
	for _, p := range pkgs {
		seen[p.ImportPath] = true
		if p.Error != nil {
			t.Errorf("%s: go list cannot load it, its imports may be incomplete: %s", strings.TrimPrefix(p.ImportPath, module+"/"), p.Error.Err)
		}
	}
	// An empty or truncated listing must not pass silently.
	for _, want := range []string{"space", "search", "runner", "storage", "internal/archtest"} {
		if !seen[module+"/"+want] {
			t.Fatalf("go list did not list %s/%s (%d packages listed): the check would see nothing", module, want, len(pkgs))
		}
	}
	for _, msg := range check(rules, pkgs) {
		t.Error(msg)
	}
}

// TestProductLinksNoLab lists what each command under cmd/ is built from
// (go list -deps: its packages and theirs, tests excluded): a product
// command, any but labCommands, must depend on no package of theLab
// (directly or through another package) and embed no Python file (the
// lab's Optuna peer). The lab's command must depend on the lab, so that a
// lab moved elsewhere fails here instead of passing unseen.
func TestProductLinksNoLab(t *testing.T) {
	root := moduleRoot(t)
	var product []string
	for _, path := range strings.Fields(string(goList(t, root, "-f", `{{if eq .Name "main"}}{{.ImportPath}}{{end}}`, "./cmd/..."))) {
		if r, _ := rel(path); !slices.Contains(labCommands, r) {
			product = append(product, r)
		}
	}
	if !slices.Contains(product, "cmd/autotune") {
		t.Fatalf("go list ./cmd/... did not list cmd/autotune as a product command (listed: %v)", product)
	}
	for _, cmd := range product {
		for _, msg := range labDeps(t, root, cmd) {
			t.Error(msg)
		}
	}
	if msgs := labDeps(t, root, "cmd/autotune-lab"); len(msgs) == 0 {
		t.Errorf("cmd/autotune-lab depends on no package of %s: the check would see nothing; update theLab", theLab)
	}
}

// labDeps returns one message per package of theLab the command cmd
// (relative path) depends on, naming an import chain that leads to it,
// and per Python file one of its dependencies embeds.
func labDeps(t *testing.T, root, cmd string) []string {
	t.Helper()
	type dep struct {
		ImportPath string
		Imports    []string
		EmbedFiles []string
	}
	out := goList(t, root, "-deps", "-json=ImportPath,Imports,EmbedFiles", module+"/"+cmd)
	deps := map[string]dep{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var d dep
		if err := dec.Decode(&d); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("decode go list -deps %s: %v", cmd, err)
		}
		deps[d.ImportPath] = d
	}
	// via[p] is the package through which the command first reaches p.
	via := map[string]string{module + "/" + cmd: ""}
	queue := []string{module + "/" + cmd}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, imp := range deps[p].Imports {
			if _, seen := via[imp]; !seen {
				via[imp] = p
				queue = append(queue, imp)
			}
		}
	}
	var msgs []string
	for path, d := range deps {
		r, ok := rel(path)
		if ok && matches(theLab, r) {
			chain := []string{r}
			for p := via[path]; p != ""; p = via[p] {
				q, _ := rel(p)
				chain = append([]string{q}, chain...)
			}
			msgs = append(msgs, fmt.Sprintf("%s depends on %s (%s): only %s may link the lab", cmd, r, strings.Join(chain, " -> "), strings.Join(labCommands, ", ")))
		}
		for _, f := range d.EmbedFiles {
			if strings.HasSuffix(f, ".py") {
				name := path
				if ok {
					name = r
				}
				msgs = append(msgs, fmt.Sprintf("%s depends on %s, which embeds the Python file %s", cmd, name, f))
			}
		}
	}
	sort.Strings(msgs)
	return msgs
}

// goList runs go list with args in root and returns its standard output.
func goList(t *testing.T, root string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command("go", append([]string{"list"}, args...)...)
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list %s in %s: %v\n%s", strings.Join(args, " "), root, err, stderr.Bytes())
	}
	return out
}

// TestCheck runs the checker on synthetic import lists, so that a checker
// that lets everything through fails here.
func TestCheck(t *testing.T) {
	// p builds a package from relative paths; imports in isStd stay as
	// they are, the others are project packages.
	p := func(from string, imports ...string) pkg {
		q := pkg{ImportPath: module + "/" + from}
		for _, i := range imports {
			if !isStd(i) && !strings.Contains(i, ".") {
				i = module + "/" + i
			}
			q.Imports = append(q.Imports, i)
		}
		return q
	}
	tests := []struct {
		name string
		pkg  pkg
		want []string // substrings of the one message expected; nil: no message
	}{
		{"space alone", p("space", "fmt", "os"), nil},
		{"space imports runner", p("space", "fmt", "runner"),
			[]string{"space imports runner: forbidden by rule", `rule "space": may import no project package`}},
		{"spacefile imports space", p("space/spacefile", "space", "github.com/BurntSushi/toml"), nil},
		{"spacefile imports search", p("space/spacefile", "space", "search"),
			[]string{"space/spacefile imports search", `rule "space/spacefile": may import only space;`}},
		{"search imports space", p("search", "space", "github.com/c-bata/goptuna"), nil},
		{"measure imports search", p("measure", "search"), []string{"measure imports search", `rule "measure": may import no project package, never os/exec;`}},
		{"search imports runner", p("search", "runner"), []string{"search imports runner", `rule "search/...": may import only space, measure, never os/exec;`}},
		{"search imports storage", p("search", "storage"), []string{"search imports storage"}},
		{"search runs a process", p("search", "space", "os/exec"), []string{"search imports os/exec: forbidden by rule", `rule "search/...": may import only space, measure, never os/exec;`}},
		{"a search sub-package runs a process", p("search/measure", "os/exec"), []string{"search/measure imports os/exec"}},
		{"space runs a process", p("space", "os/exec"), []string{"space imports os/exec"}},
		{"lab imports search", p("internal/lab", "search", "space", "os/exec"), nil},
		{"lab imports runner", p("internal/lab", "runner"), []string{"internal/lab imports runner", `rule "internal/lab/...":`}},
		{"lab imports storage", p("internal/lab", "storage"), []string{"internal/lab imports storage", `rule "internal/lab/...":`}},
		{"a lab sub-package imports the lab", p("internal/lab/peer", "internal/lab", "search"), nil},
		{"a lab sub-package imports storage", p("internal/lab/peer", "storage"), []string{"internal/lab/peer imports storage", `rule "internal/lab/...":`}},
		{"labstudy reads a store for the lab", p("internal/lab/labstudy", "internal/lab", "storage", "strategy", "search", "space"), nil},
		{"labstudy imports study", p("internal/lab/labstudy", "study"), []string{"internal/lab/labstudy imports study", `rule "internal/lab/labstudy":`}},
		{"labstudy imports runner", p("internal/lab/labstudy", "runner"), []string{"internal/lab/labstudy imports runner"}},
		{"study imports the lab", p("study", "engine", "internal/lab"), []string{"study imports internal/lab: forbidden by rule", `never internal/lab/...;`}},
		{"study imports labstudy", p("study", "internal/lab/labstudy"), []string{"study imports internal/lab/labstudy", `rule "study":`}},
		{"storage imports the lab", p("storage", "internal/lab"), []string{"storage imports internal/lab"}},
		{"runner imports the lab", p("runner/sysbench", "internal/lab"), []string{"runner/sysbench imports internal/lab"}},
		{"engine imports the lab", p("engine", "internal/lab"), []string{"engine imports internal/lab"}},
		{"report imports the lab", p("report", "internal/lab"), []string{"report imports internal/lab"}},
		{"dashboard imports the lab", p("dashboard", "internal/lab"), []string{"dashboard imports internal/lab"}},
		{"exportfile imports the lab", p("exportfile", "internal/lab"), []string{"exportfile imports internal/lab"}},
		{"workload imports the lab", p("workload", "internal/lab"), []string{"workload imports internal/lab"}},
		{"an internal helper imports the lab", p("internal/teststore", "internal/lab"), []string{"internal/teststore imports internal/lab"}},
		{"the product command imports the lab", p("cmd/autotune", "study", "internal/lab"), []string{"cmd/autotune imports internal/lab: forbidden by rule", `rule "cmd/...": may import every project package, never internal/lab/...;`}},
		{"the product command imports labstudy", p("cmd/autotune", "internal/lab/labstudy"), []string{"cmd/autotune imports internal/lab/labstudy"}},
		{"another command imports the lab", p("cmd/other", "internal/lab"), []string{"cmd/other imports internal/lab"}},
		{"the lab command imports the lab", p("cmd/autotune-lab", "internal/lab", "internal/lab/labstudy", "search", "study"), nil},
		{"fitfixture imports labstudy", p("cmd/fitfixture", "internal/lab/labstudy"), nil},
		{"runner imports its sub-package", p("runner", "space", "runner/sysbench", "internal/secret"), nil},
		{"runner sub-package imports runner", p("runner/sysbench", "runner", "space"), nil},
		{"runner sub-package imports search", p("runner/benchcmd", "runner", "search"),
			[]string{"runner/benchcmd imports search", `rule "runner/...": may import only space, runner/..., internal/..., never internal/lab/...;`}},
		{"runner imports storage", p("runner", "storage"), []string{"runner imports storage"}},
		{"runner imports engine", p("runner", "engine"), []string{"runner imports engine"}},
		{"engine imports runner sub-package", p("engine", "search", "space", "runner", "runner/sysbench", "internal/lockfile"), nil},
		{"engine imports storage", p("engine", "storage"), []string{"engine imports storage", `rule "engine":`}},
		{"storage imports search", p("storage", "search", "space", "internal/secret"), nil},
		{"storage imports runner", p("storage", "runner"), []string{"storage imports runner"}},
		{"report imports storage", p("report", "storage", "search", "space"), nil},
		{"report imports engine", p("report", "engine"), []string{"report imports engine"}},
		{"report imports exportfile", p("report", "exportfile", "storage"), nil},
		{"exportfile imports storage", p("exportfile", "storage", "search", "space", "measure"), nil},
		{"exportfile imports report", p("exportfile", "report"), []string{"exportfile imports report", `rule "exportfile":`}},
		{"exportfile imports study", p("exportfile", "study"), []string{"exportfile imports study"}},
		{"dashboard imports report and storage", p("dashboard", "report", "storage", "search", "space", "measure"), nil},
		{"dashboard imports study", p("dashboard", "study"), []string{"dashboard imports study", `rule "dashboard":`}},
		{"dashboard runs a process", p("dashboard", "os/exec"), []string{"dashboard imports os/exec"}},
		{"study imports the engine", p("study", "engine", "search", "space", "runner", "runner/sysbench", "storage", "internal/lockfile"), nil},
		{"study imports cmd", p("study", "cmd/autotune"), []string{"study imports cmd/autotune"}},
		{"internal imports runner", p("internal/teststore", "runner", "internal/realtest"), nil},
		{"internal imports search", p("internal/teststore", "search"), []string{"internal/teststore imports search", `rule "internal/...": may import only runner, space, measure, internal/..., never internal/lab/...;`}},
		{"cmd imports everything", p("cmd/autotune", "space", "search", "runner", "storage", "report", "engine", "study", "internal/secret", "cmd/autotune/sub"), nil},
		{"storage imports cmd", p("storage", "cmd/autotune"), []string{"storage imports cmd/autotune", "no package outside cmd/ may import cmd/..."}},
		{"workload imports space and internal", p("workload", "space", "internal/secret"), nil},
		{"workload imports runner", p("workload", "runner"), []string{"workload imports runner", `rule "workload": may import only space, internal/..., never internal/lab/...;`}},
		{"uncovered package", p("newpkg", "space"), []string{"newpkg: no rule covers this package", "add it to the rules table"}},
		{"uncovered sub-package of an exact rule", p("space/other", "space"), []string{"space/other: no rule covers this package"}},
		{"look-alike module is not the project", pkg{ImportPath: module + "/space", Imports: []string{module + "x/runner"}}, nil},
		{"package outside the module is ignored", pkg{ImportPath: "example.com/other", Imports: []string{module + "/cmd/autotune"}}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := check(rules, []pkg{tc.pkg})
			if tc.want == nil {
				if len(got) != 0 {
					t.Fatalf("check(%s imports %v) = %q, want no message", tc.pkg.ImportPath, tc.pkg.Imports, got)
				}
				return
			}
			if len(got) != 1 {
				t.Fatalf("check(%s imports %v) = %q, want one message containing %q", tc.pkg.ImportPath, tc.pkg.Imports, got, tc.want)
			}
			for _, w := range tc.want {
				if !strings.Contains(got[0], w) {
					t.Errorf("message %q does not contain %q", got[0], w)
				}
			}
		})
	}
}

// isStd reports whether i is one of the standard-library paths TestCheck
// uses.
func isStd(i string) bool {
	switch i {
	case "fmt", "os", "os/exec", "io", "context", "strings":
		return true
	}
	return false
}
