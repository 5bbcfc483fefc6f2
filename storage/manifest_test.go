package storage

import (
	"reflect"
	"testing"

	"github.com/autotune/autotune/internal/benchdef"
)

// Settings stored by earlier versions (the JSON of the old benchSettings,
// and of an existing-server study) read back into the typed manifest, and
// Diff names each changed field by its path.
func TestManifestReadsOldSettingsAndDiffs(t *testing.T) {
	old := `{"workload":"oltp_read_write","threads":16,"tables":8,"table_size":500000,"warmup_s":30,"duration_s":60,"lambda":0.5,` +
		`"space":{"durability":"strict","memory_budget_bytes":1000,"apply":"restart"},"measure":{"objective":"tps","confirm":2,"steady_block_s":5}}`
	m, err := StudyRecord{Name: "s", Settings: old}.Manifest()
	if err != nil {
		t.Fatal(err)
	}
	if m.Threads != 16 || m.Space == nil || m.Space.MemoryBudget != 1000 || m.Measure.Confirm != 2 || m.Measure.SteadyBlockS != 5 {
		t.Fatalf("%+v", m)
	}
	ex, err := StudyRecord{Name: "e", Settings: `{"workload":"oltp_read_only","threads":4,"target":"existing unix(/s)","allow_restart":true}`}.Manifest()
	if err != nil || ex.Target != "existing unix(/s)" || !ex.AllowRestart {
		t.Fatalf("%+v %v", ex, err)
	}
	if _, err := (StudyRecord{Name: "bad", Settings: `[1,2]`}).Manifest(); err == nil {
		t.Fatal("an array is not a manifest")
	}

	n := m
	n.Threads, n.ThreadLevels = 8, []int{8, 32}
	sp := *m.Space
	sp.Durability = "relaxed"
	n.Space = &sp
	n.Measure.Confirm = 0
	var fields []string
	for _, c := range m.Diff(n) {
		fields = append(fields, c.Field)
	}
	want := []string{"measure.confirm", "space.durability", "thread_levels", "threads"}
	if !reflect.DeepEqual(fields, want) {
		t.Fatalf("diff fields %v, want %v", fields, want)
	}
	if d := m.Diff(m); len(d) != 0 {
		t.Fatalf("a manifest differs from itself: %v", d)
	}
}

// The benchmark definition is compared option by option, and a manifest
// stored without one (an older study) differs in nothing there.
func TestManifestDiffDefinition(t *testing.T) {
	def := func(tables string) *benchdef.Definition {
		return &benchdef.Definition{Driver: "sysbench", Version: "sysbench 1.0.20", Options: map[string]string{"tables": tables, "rand-type": "special"}}
	}
	m := Manifest{Workload: "oltp_read_write", Definition: def("8")}
	n := Manifest{Workload: "oltp_read_write", Definition: def("16")}
	got := m.Diff(n)
	if len(got) != 1 || got[0] != (ManifestChange{Field: "definition --tables", Old: "8", New: "16"}) {
		t.Errorf("Diff = %+v, want one change of definition --tables 8 → 16", got)
	}
	if d := (Manifest{Workload: "oltp_read_write"}).Diff(n); len(d) != 0 {
		t.Errorf("Diff from a manifest without a definition = %+v, want none", d)
	}
	back, err := (StudyRecord{Name: "s", Settings: n.JSON()}).Manifest()
	if err != nil || back.Definition == nil || !back.Definition.Equal(*n.Definition) {
		t.Errorf("definition does not read back: %+v, %v", back.Definition, err)
	}
}
