package main

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/autotune/autotune/internal/realtest"
	"github.com/autotune/autotune/report"
)

var reportNow = time.Date(2025, 2, 3, 4, 5, 6, 0, time.UTC)

// dataURI matches an embedded PNG.
var dataURI = regexp.MustCompile(`data:image/png;base64,[A-Za-z0-9+/=]+`)

// TestReportGolden renders the fixture study's report: the HTML skeleton
// (images masked) is a golden file, and every plot is decoded and checked
// for size and content.
func TestReportGolden(t *testing.T) {
	db := fixtureDB(t)
	rep, err := buildReport(context.Background(), db, "fix", reportNow)
	if err != nil {
		t.Fatal(err)
	}
	html := string(rep.HTML)
	if n := len(dataURI.FindAllString(html, -1)); n != len(rep.Images) {
		t.Fatalf("page embeds %d images, report has %d plots", n, len(rep.Images))
	}
	golden(t, "report.html.golden", dataURI.ReplaceAll(rep.HTML, []byte("data:image/png;base64,MASKED")))

	files := map[string]bool{}
	for _, im := range rep.Images {
		files[im.File] = true
		t.Run(im.File, func(t *testing.T) { checkPlot(t, im.PNG) })
	}
	// The fixture's landscape is driven by these two knobs, so any sound
	// importance measure gives them plots of their own.
	for _, f := range []string{"score.png", "tps.png", "importance.png", "knob-innodb_buffer_pool_size.png", "knob-innodb_flush_log_at_trx_commit.png"} {
		if !files[f] {
			t.Errorf("no plot %s among %v", f, files)
		}
	}
	if strings.Count(html, "<tr><td>") < report.TopN {
		t.Errorf("top table has fewer than %d rows", report.TopN)
	}
	if strings.Contains(html, "://") {
		t.Errorf("the page refers to an outside resource: not self-contained")
	}

	// runReport writes the same page and the PNG files.
	dir := filepath.Join(t.TempDir(), "rep")
	var out bytes.Buffer
	if err := runReport(context.Background(), &reportOptions{study: "fix", db: db, out: dir}, &out, reportNow); err != nil {
		t.Fatal(err)
	}
	for _, im := range rep.Images {
		b, err := os.ReadFile(filepath.Join(dir, im.File))
		if err != nil || !bytes.Equal(b, im.PNG) {
			t.Errorf("%s: %v (or differs from the embedded plot)", im.File, err)
		}
	}
	if !strings.Contains(out.String(), "report.html with "+strconv.Itoa(len(rep.Images))+" plots") {
		t.Errorf("runReport said %q", out.String())
	}
}

// checkPlot decodes a plot and checks it is a real picture: the expected
// size, mostly white background, enough drawn pixels, and at least two of
// the plot's data colours.
func checkPlot(t *testing.T, b []byte) {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("not a PNG: %v", err)
	}
	r := img.Bounds()
	if r.Dx() != 900 || r.Dy() < 420 {
		t.Errorf("size %dx%d, want 900 wide and at least 420 high", r.Dx(), r.Dy())
	}
	distinct := map[color.RGBA]int{}
	white := 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			c := color.RGBAModel.Convert(img.At(x, y)).(color.RGBA)
			distinct[c]++
			if c.R > 250 && c.G > 250 && c.B > 250 {
				white++
			}
		}
	}
	total := r.Dx() * r.Dy()
	if len(distinct) < 20 {
		t.Errorf("only %d distinct colours: blank or nearly", len(distinct))
	}
	if f := float64(white) / float64(total); f < 0.5 || f > 0.985 {
		t.Errorf("white share %.3f: want a white background with a plot on it", f)
	}
	if n := dataColours(img, 20); n < 2 {
		t.Errorf("%d of the plot's data colours present, want at least 2", n)
	}
}

// dataColours counts the plot data colours (report.PlotColors) that cover
// at least min pixels of img, within a small tolerance.
func dataColours(img image.Image, min int) int {
	counts := make([]int, len(report.PlotColors()))
	r := img.Bounds()
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			c := color.RGBAModel.Convert(img.At(x, y)).(color.RGBA)
			for i, pc := range report.PlotColors() {
				if near(c.R, pc.R) && near(c.G, pc.G) && near(c.B, pc.B) {
					counts[i]++
				}
			}
		}
	}
	n := 0
	for _, c := range counts {
		if c >= min {
			n++
		}
	}
	return n
}

func near(a, b uint8) bool { return math.Abs(float64(a)-float64(b)) <= 4 }

func TestReportErrors(t *testing.T) {
	db := fixtureDB(t)
	if _, err := buildReport(context.Background(), db, "empty", reportNow); err == nil || !strings.Contains(err.Error(), "no complete trial") {
		t.Errorf("empty study: err = %v", err)
	}
	if _, err := buildReport(context.Background(), db, "nope", reportNow); err == nil || !strings.Contains(err.Error(), `--study "nope"`) {
		t.Errorf("unknown study: err = %v", err)
	}
	// Two trials are too few for importance: the page says so, the other
	// plots are there.
	rep, err := buildReport(context.Background(), db, "small", reportNow)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Images) != 2 || !strings.Contains(string(rep.HTML), "knob importance not shown: knob importance: too few complete trials: 2") {
		t.Errorf("small study: %d plots, page:\n%s", len(rep.Images), dataURI.ReplaceAll(rep.HTML, nil))
	}
	if err := (&reportOptions{}).validate(); err == nil {
		t.Error("empty --out accepted")
	}
}

// renderInChromium loads page in headless Chromium and returns its DOM
// after load and a screenshot of the top 1100×height pixels.
func renderInChromium(t *testing.T, page string, height int) (dom string, shot image.Image) {
	t.Helper()
	chromium := realtest.Chromium(t)
	run := func(extra ...string) []byte {
		profile := t.TempDir()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		args := append(realtest.ChromiumArgs(profile), extra...)
		cmd := exec.CommandContext(ctx, chromium, append(args, "file://"+page)...)
		cmd.Dir = t.TempDir()
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("chromium %v: %v\n%s", extra, err, stderr.String())
		}
		return stdout.Bytes()
	}
	dom = string(run("--dump-dom"))
	shotPath := filepath.Join(t.TempDir(), "shot.png")
	run("--window-size=1100,"+strconv.Itoa(height), "--screenshot="+shotPath)
	b, err := os.ReadFile(shotPath)
	if err != nil {
		t.Fatalf("no screenshot: %v", err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("screenshot is not a PNG: %v", err)
	}
	if dir := os.Getenv("AUTOTUNE_KEEP_SCREENSHOT"); dir != "" {
		_ = os.WriteFile(filepath.Join(dir, "report-screenshot.png"), b, 0o644)
	}
	return dom, img
}

// checkRendered checks a report page as Chromium rendered it: every plot
// is an <img> with an embedded PNG, the tables are there, and the
// screenshot shows the plots' data colours (so the images decoded and were
// painted, not just referenced).
func checkRendered(t *testing.T, dom string, shot image.Image, plots int) {
	t.Helper()
	imgs := regexp.MustCompile(`<img id="plot-[a-z0-9_-]+" src="data:image/png;base64,[A-Za-z0-9+/=]+"`).FindAllString(dom, -1)
	if len(imgs) != plots {
		t.Errorf("rendered DOM has %d plot images, want %d", len(imgs), plots)
	}
	for _, id := range []string{`id="plot-score"`, `id="plot-tps"`, `id="top"`, `id="diff"`, `id="summary"`} {
		if !strings.Contains(dom, id) {
			t.Errorf("rendered DOM has no %s", id)
		}
	}
	if n := dataColours(shot, 50); n < 4 {
		t.Errorf("screenshot shows %d of the %d plot colours: the plots were not painted", n, len(report.PlotColors()))
	}
}

// TestReportRendersInChromium opens the fixture study's report in headless
// Chromium (CI installs it; AUTOTUNE_REQUIRE_REAL=1 fails without it).
func TestReportRendersInChromium(t *testing.T) {
	db := fixtureDB(t)
	dir := t.TempDir()
	rep, err := buildReport(context.Background(), db, "fix", reportNow)
	if err != nil {
		t.Fatal(err)
	}
	if err := rep.Write(dir); err != nil {
		t.Fatal(err)
	}
	dom, shot := renderInChromium(t, filepath.Join(dir, report.HTMLFile), 7000)
	checkRendered(t, dom, shot, len(rep.Images))
}
