package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/autotune/autotune/search"
)

func TestWriteImportance(t *testing.T) {
	var b bytes.Buffer
	WriteImportance(&b, []search.KnobImportance{{Knob: "innodb_buffer_pool_size", Importance: 0.75}, {Knob: "innodb_doublewrite", Importance: 0.05}}, 30)
	want := "from 30 complete trials; the knobs explain 80 %"
	if !strings.Contains(b.String(), want) || !strings.Contains(b.String(), "innodb_buffer_pool_size           75.0 %  ##############################") {
		t.Fatalf("got:\n%s", b.String())
	}
	b.Reset()
	WriteImportance(&b, []search.KnobImportance{{Knob: "innodb_buffer_pool_size", Importance: 0.001}}, 16)
	if !strings.Contains(b.String(), "no knob's effect stands out") || strings.Contains(b.String(), "innodb_buffer_pool_size") {
		t.Fatalf("nothing explained: got:\n%s", b.String())
	}
}
