package realtest

import (
	"os"
	"os/exec"
	"testing"
)

// Chromium returns the path of a Chromium browser for headless rendering
// tests (Debian's chromium package, installed by scripts/install-deps.sh).
// It skips t when none is installed, or fails it under
// AUTOTUNE_REQUIRE_REAL=1, so CI never silently skips the rendering test.
func Chromium(t testing.TB) string {
	t.Helper()
	for _, n := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	msg := "needs chromium for headless rendering (run ./scripts/install-deps.sh)"
	if os.Getenv("AUTOTUNE_REQUIRE_REAL") == "1" {
		t.Fatal(msg + "; AUTOTUNE_REQUIRE_REAL=1 forbids skipping")
	}
	t.Skip(msg)
	return ""
}

// ChromiumArgs returns the flags of a quiet, offline, sandbox-free headless
// run with a fresh profile in profileDir (which must be a new, empty
// directory): no GPU, no network side traffic, no first-run dialogs.
func ChromiumArgs(profileDir string) []string {
	return []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--disable-dev-shm-usage", "--hide-scrollbars", "--force-color-profile=srgb",
		"--user-data-dir=" + profileDir}
}
