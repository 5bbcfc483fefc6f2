package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// docOutputFiles are the documents whose ```console blocks show output of
// autotune: the README and the manual.
func docOutputFiles(t *testing.T) []string {
	files := []string{"../../README.md"}
	more, err := filepath.Glob("../../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	return append(files, more...)
}

// consoleLines returns the output lines of the ```console blocks of a
// Markdown text with their line numbers: not the commands ("$ ..."), not
// the elisions ("...", "…").
func consoleLines(text string) (lines []string, numbers []int) {
	in := false
	for i, l := range strings.Split(text, "\n") {
		switch {
		case strings.HasPrefix(l, "```console"):
			in = true
		case in && strings.HasPrefix(l, "```"):
			in = false
		case in:
			s := strings.TrimSpace(l)
			if s == "" || strings.HasPrefix(s, "$ ") || s == "..." || s == "…" {
				continue
			}
			lines, numbers = append(lines, l), append(numbers, i+1)
		}
	}
	return lines, numbers
}

// productLiterals returns the string literals of the product's non-test
// Go files (every package the autotune binary is built from, but the
// tests): the text any renderer or log line can print.
func productLiterals(t *testing.T) []string {
	var lits []string
	fset := token.NewFileSet()
	err := filepath.WalkDir("../..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path != "../.." && (strings.HasPrefix(name, ".") || name == "testdata" || name == "examples" || name == "lab" || name == "autotune-lab" || strings.HasPrefix(name, "autotune-sandbox") || name == "fitfixture") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if b, ok := n.(*ast.BasicLit); ok && b.Kind == token.STRING {
				if s, err := strconv.Unquote(b.Value); err == nil {
					lits = append(lits, s)
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return lits
}

// verb is a fmt verb with its flags, width and precision.
var verb = regexp.MustCompile(`%[-+# 0]*(\*|\d+)?(\.(\*|\d+))?[a-zA-Z%]`)

// fixedPattern turns a format literal into a regular expression matching
// what it prints: its fixed text literally (runs of spaces and tabs as
// any run of white space, as tabwriter aligns them), each verb as any
// text. ok is false when the fixed text has fewer than 5 letters (too
// little to tell one line from another).
func fixedPattern(lit string) (re *regexp.Regexp, ok bool) {
	parts := verb.Split(lit, -1)
	letters := 0
	var b strings.Builder
	for i, p := range parts {
		if i > 0 {
			b.WriteString(`.*?`)
		}
		p = strings.ReplaceAll(p, "\n", " ")
		if i == 0 {
			p = strings.TrimLeft(p, " \t")
		}
		if i == len(parts)-1 {
			p = strings.TrimRight(p, " \t")
		}
		for j, w := range regexp.MustCompile(`[ \t]+`).Split(p, -1) {
			if j > 0 {
				b.WriteString(`\s+`)
			}
			b.WriteString(regexp.QuoteMeta(w))
			for _, r := range w {
				if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
					letters++
				}
			}
		}
	}
	if letters < 5 {
		return nil, false
	}
	re, err := regexp.Compile(b.String())
	return re, err == nil
}

// word is a word of prose in an output line: letters only, at least 4,
// not part of an identifier (knob and variable names have '_', options
// '-' or '=') nor quoted (a study's name).
var word = regexp.MustCompile(`(^|[\s(,;:])([A-Za-z]{4,})([\s),.;:]|$)`)

// flagValue is a flag with its value ("--study demo", "--db=x.db") or a
// file name ("demo.db", "best.cnf"): the user's words, not the product's.
var flagValue = regexp.MustCompile(`--[a-z][a-z-]*[ =]\S+|\S+\.[a-z]+\b`)

// TestDocumentedOutputLines fails when a line of output shown in the
// README or the manual (```console blocks) is no longer something the
// product can print: each line must contain the fixed text of some
// string literal of the product (a format's text with its verbs as
// wildcards, at least 5 letters of it), and every word of prose in it
// must be a word of some literal. A renamed message, a reworded
// conclusion or a dropped column fails; numbers, knob names and values
// are free. Refresh the sample from a real run (with its date and
// commit) when this fails.
func TestDocumentedOutputLines(t *testing.T) {
	lits := productLiterals(t)
	var pats []*regexp.Regexp
	words := map[string]bool{}
	for _, l := range lits {
		if re, ok := fixedPattern(l); ok {
			pats = append(pats, re)
		}
		for _, w := range regexp.MustCompile(`[A-Za-z]+`).FindAllString(l, -1) {
			words[strings.ToLower(w)] = true
		}
	}
	checked := 0
	for _, f := range docOutputFiles(t) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lines, numbers := consoleLines(string(data))
		for i, l := range lines {
			checked++
			matched := false
			for _, re := range pats {
				if re.MatchString(l) {
					matched = true
					break
				}
			}
			if !matched {
				t.Errorf("%s line %d: no renderer or log format prints this line any more:\n\t%s", filepath.Base(f), numbers[i], l)
				continue
			}
			for _, m := range word.FindAllStringSubmatch(flagValue.ReplaceAllString(l, " "), -1) {
				if !words[strings.ToLower(m[2])] {
					t.Errorf("%s line %d: the word %q is in no message of the product:\n\t%s", filepath.Base(f), numbers[i], m[2], l)
				}
			}
		}
	}
	if checked < 20 {
		t.Errorf("only %d documented output lines found: the README's sample session is gone?", checked)
	}
}

// TestFixedPattern: a format's fixed text matches what it prints and
// tells it from another format's.
func TestFixedPattern(t *testing.T) {
	re, ok := fixedPattern("gain over the baseline: %s\n")
	if !ok {
		t.Fatal("not a pattern")
	}
	if !re.MatchString("gain over the baseline: +28.7 % tps (95 % CI -10.4 .. +84.8 %)") {
		t.Error("does not match its own line")
	}
	if re.MatchString("gain over the expert warm start: none") {
		t.Error("matches another line")
	}
	if _, ok := fixedPattern("%s: %v"); ok {
		t.Error("a format without text is a pattern")
	}
}
