package storage

import (
	"errors"
	"testing"
	"time"
)

func testRecordChange(t *testing.T, db *DB) {
	createStudyS(t, db)
	at := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	for _, c := range []Change{
		{At: at, Field: "server_version", Old: "10.11.6", New: "10.11.19"},
		{At: at.Add(time.Second), Field: "host_cores", Old: "2", New: "4"},
		{At: at.Add(2 * time.Second), Field: "settings", Old: `{}`, New: `{"threads":8}`},
	} {
		if err := db.RecordChange(ctx, "s", c); err != nil {
			t.Fatal(err)
		}
	}
	st, _, err := db.Study(ctx, "s")
	if err != nil {
		t.Fatal(err)
	}
	if st.ServerVersion != "10.11.19" || st.Cores != 4 || st.Settings != `{"threads":8}` {
		t.Fatalf("study after changes: %+v", st)
	}
	got, err := db.Changes(ctx, "s")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[0].Field != "server_version" || !got[1].At.Equal(at.Add(time.Second)) || got[2].New != `{"threads":8}` {
		t.Fatalf("changes: %+v", got)
	}

	bad := []struct {
		study string
		c     Change
		want  error
	}{
		{"nope", Change{At: at, Field: "host_cores", Old: "1", New: "2"}, ErrNoStudy},
		{"s", Change{At: at, Field: "spent_seconds", Old: "1", New: "2"}, nil},
		{"s", Change{At: at, Field: "settings", Old: "{}", New: `{"password":"x"}`}, nil},
		{"s", Change{At: at, Field: "settings", Old: "{}", New: `not json`}, nil},
	}
	for _, b := range bad {
		err := db.RecordChange(ctx, b.study, b.c)
		if err == nil || (b.want != nil && !errors.Is(err, b.want)) {
			t.Errorf("RecordChange(%s, %+v) = %v, want an error (%v)", b.study, b.c, err, b.want)
		}
	}
	if got, _ := db.Changes(ctx, "s"); len(got) != 3 {
		t.Fatalf("refused changes were recorded: %d", len(got))
	}
}
