package runner

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestInnoDBStatusCases parses every status text of the case
// innodb-status-multiversion, compares the whole result with a golden file
// (-update rewrites it) and every value that expected.json names with the
// case's expectation.
func TestInnoDBStatusCases(t *testing.T) {
	dir := "testdata/innodb-status"
	var expected map[string]map[string]json.RawMessage
	b, err := os.ReadFile(filepath.Join(dir, "expected.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &expected); err != nil {
		t.Fatal(err)
	}
	if len(expected) != 4 {
		t.Fatalf("%d cases in expected.json", len(expected))
	}
	for name, want := range expected {
		t.Run(name, func(t *testing.T) {
			text, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				t.Fatal(err)
			}
			st := ParseInnoDBStatus(string(text), "")
			got, err := json.MarshalIndent(st, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join(dir, name[:len(name)-len(".txt")]+".golden.json")
			if sbUpdate() {
				if err := os.WriteFile(golden, append(got, '\n'), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			g, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update)", err)
			}
			if !bytes.Equal(bytes.TrimSpace(g), bytes.TrimSpace(got)) {
				t.Errorf("differs from %s:\n%s", golden, got)
			}
			var gotMap map[string]json.RawMessage
			_ = json.Unmarshal(got, &gotMap)
			for k, v := range want {
				if !jsonEqual(t, gotMap[k], v) {
					t.Errorf("%s = %s, want %s", k, gotMap[k], v)
				}
			}
			if !st.HeaderFound {
				t.Error("monitor header not found")
			}
		})
	}
}

func jsonEqual(t *testing.T, a, b json.RawMessage) bool {
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		return false
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatal(err)
	}
	xb, _ := json.Marshal(x)
	yb, _ := json.Marshal(y)
	return bytes.Equal(xb, yb)
}

func TestInnoDBStatusEdgeCases(t *testing.T) {
	// Unknown and renamed sections are kept; a lone dashed line is no
	// header; a number that does not parse is an error, not a zero.
	text := "\n=====\n2024-01-01 INNODB MONITOR OUTPUT\n=====\n" +
		"-----------------\nBACKGROUND THREAD\n-----------------\nsrv_master_thread loops: 1\n" +
		"------------\nNEW FANCY SECTION\n------------\n" +
		"------------\nTRANSACTIONS\n------------\nTrx id counter 12345\nHistory list length many\n" +
		"---\nLOG\n---\nLog sequence number 2000\nLast checkpoint at 1500\n" +
		"-----------------\n" + "Main thread process no. 1\n"
	st := ParseInnoDBStatus(text, "10.11.19-MariaDB")
	if st.HistoryListLength != nil || st.ParseErrors != 1 {
		t.Fatalf("history %v errors %d", st.HistoryListLength, st.ParseErrors)
	}
	if len(st.UnknownSections) != 1 || st.UnknownSections[0] != "NEW FANCY SECTION" || len(st.Sections) != 4 {
		t.Fatalf("sections %v unknown %v", st.Sections, st.UnknownSections)
	}
	if st.TrxIDCounter == nil || st.TrxIDCounter.Base != 10 || *st.LogSequenceNumber-*st.LastCheckpoint != 500 {
		t.Fatalf("%+v", st)
	}
	// A pre-5.6 server prints hex even without letters.
	st = ParseInnoDBStatus("Trx id counter 12345\n", "5.5.62-log")
	if st.TrxIDCounter.Base != 16 || st.TrxIDCounter.Value != 0x12345 {
		t.Fatalf("%+v", st.TrxIDCounter)
	}
}

func FuzzParseInnoDBStatus(f *testing.F) {
	files, _ := filepath.Glob("testdata/innodb-status/*.txt")
	for _, p := range files {
		b, _ := os.ReadFile(p)
		f.Add(string(b))
	}
	f.Fuzz(func(t *testing.T, s string) {
		_ = ParseInnoDBStatus(s, "")
	})
}
