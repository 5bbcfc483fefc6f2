package main

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/autotune/autotune/internal/realtest"
	"github.com/autotune/autotune/space"
)

// TestKnobsAgainstLiveServer runs `autotune knobs` on the machine's
// server: every catalogue knob is listed with a status, the 36 seed knobs
// included, and the removed MariaDB options are unsupported with reasons.
func TestKnobsAgainstLiveServer(t *testing.T) {
	realtest.Require(t)
	var out bytes.Buffer
	o := &knobsOptions{spaceFlags: spaceFlags{durability: "strict"}}
	if err := runKnobs(context.Background(), o, &out); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	row := regexp.MustCompile(`(?m)^(\S+)\s+(\S+)\s+(tunable|pinned=\S+|excluded|via \S+|unsupported)\s`)
	status := map[string]string{}
	for _, m := range row.FindAllStringSubmatch(text, -1) {
		status[m[2]] = m[3]
	}
	for _, k := range space.Catalogue() {
		if status[k.Name] == "" {
			t.Errorf("%s: no row with a status", k.Name)
		}
	}
	if !strings.Contains(text, "36 seed knobs of the reference study in 39 rows") {
		t.Errorf("summary missing:\n%s", text)
	}
	if strings.Contains(text, "mariadb") {
		for _, n := range []string{"innodb_thread_concurrency", "innodb_buffer_pool_instances", "innodb_support_xa", "innodb_file_format", "innodb_read_ahead"} {
			if status[n] != "unsupported" {
				t.Errorf("%s on MariaDB 10.11: %s, want unsupported", n, status[n])
			}
		}
		for n, want := range map[string]string{"innodb_flush_log_at_trx_commit": "pinned=1", "innodb_doublewrite": "pinned=ON", "innodb_buffer_pool_size": "tunable"} {
			if status[n] != want {
				t.Errorf("%s: %s, want %s", n, status[n], want)
			}
		}
	}
}
