package study

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/autotune/autotune/storage"
)

// emptyStore returns the path of a new SQLite store in dir, with no study.
func emptyStore(t *testing.T, dir string) string {
	t.Helper()
	db := filepath.Join(dir, "t.db")
	st, err := storage.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	return db
}

func TestParseStudyRef(t *testing.T) {
	dir := t.TempDir()
	db := emptyStore(t, dir)
	for _, tc := range []struct {
		arg  string
		want StudyRef
		err  string
	}{
		{arg: "a", want: StudyRef{DB: "trials.db", Name: "a"}},
		{arg: db + ":a", want: StudyRef{DB: db, Name: "a"}},
		{arg: "mysql://u@h:3306/at:a", want: StudyRef{DB: "mysql://u@h:3306/at", Name: "a"}},
		{arg: "v2:baseline", want: StudyRef{DB: "trials.db", Name: "v2:baseline"}},
		{arg: "nope.db:a", err: `study "nope.db:a": store nope.db: no such file or directory`},
		{arg: "MySQL://tuner:s3cret@db1/autotune:a", err: "store mysql://tuner:xxx@db1/autotune: no such file"},
		{arg: filepath.Join(dir, "x") + ":a", err: "no such file"},
		{arg: dir + ":a", err: "not an SQLite trials.db"},
		{arg: "", err: "want STUDY or TRIALS.DB:STUDY"},
	} {
		got, err := ParseStudyRef(tc.arg, "trials.db")
		if tc.err != "" {
			if err == nil || !IsUsage(err) || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: %+v, %v; want a usage error saying %q", tc.arg, got, err, tc.err)
			}
			if err != nil && strings.Contains(err.Error(), "s3cret") {
				t.Errorf("%q: the error shows the password: %v", tc.arg, err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%q: %+v, %v; want %+v", tc.arg, got, err, tc.want)
		}
	}
}
