package main

import (
	"context"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestDashboardCommandUsage: a bad --listen or --poll is a usage error
// (exit 2); a missing store is an error (exit 1), never created.
func TestDashboardCommandUsage(t *testing.T) {
	ctx := context.Background()
	if err := runDashboard(ctx, &dashboardOptions{db: "x.db", listen: "8080", poll: time.Second}, io.Discard); exitCode(err) != 2 || !strings.Contains(err.Error(), "--listen") {
		t.Errorf("--listen 8080: %v (exit %d), want a usage error", err, exitCode(err))
	}
	o := &dashboardOptions{poll: 10 * time.Millisecond}
	if err := o.validate(); exitCode(err) != 2 {
		t.Errorf("--poll 10ms: %v, want a usage error", err)
	}
	missing := filepath.Join(t.TempDir(), "none.db")
	err := runDashboard(ctx, &dashboardOptions{db: missing, listen: "127.0.0.1:0", poll: time.Second}, io.Discard)
	if exitCode(err) != 1 {
		t.Errorf("missing store: %v (exit %d), want exit 1", err, exitCode(err))
	}
}
