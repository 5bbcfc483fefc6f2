package workload

import (
	"reflect"
	"testing"
)

func TestParameterize(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
		args           []any
	}{
		{"sysbench point select", "SELECT c FROM sbtest1 WHERE id=2517", "SELECT c FROM sbtest1 WHERE id=?", []any{int64(2517)}},
		{"sysbench range", "SELECT DISTINCT c FROM sbtest3 WHERE id BETWEEN 10 AND 109 ORDER BY c", "SELECT DISTINCT c FROM sbtest3 WHERE id BETWEEN ? AND ? ORDER BY c", []any{int64(10), int64(109)}},
		{"sysbench update", "UPDATE sbtest1 SET k=k+1 WHERE id=5", "UPDATE sbtest1 SET k=k+? WHERE id=?", []any{int64(1), int64(5)}},
		{"sysbench insert", "INSERT INTO sbtest1 (id, k, c, pad) VALUES (5, 4993, '0-1', 'x''y')", "INSERT INTO sbtest1 (id, k, c, pad) VALUES (?, ?, ?, ?)", []any{int64(5), int64(4993), "0-1", "x'y"}},
		{"sign stays", "SELECT * FROM t WHERE a > -5", "SELECT * FROM t WHERE a > -?", []any{int64(5)}},
		{"order by positions stay", "SELECT a, b FROM t WHERE x = 3 ORDER BY 2 DESC, 1 LIMIT 10", "SELECT a, b FROM t WHERE x = ? ORDER BY 2 DESC, 1 LIMIT ?", []any{int64(3), int64(10)}},
		{"group by position in a subquery", "SELECT * FROM (SELECT a, COUNT(*) FROM t GROUP BY 1) s WHERE a IN (1, 2)", "SELECT * FROM (SELECT a, COUNT(*) FROM t GROUP BY 1) s WHERE a IN (?, ?)", []any{int64(1), int64(2)}},
		{"positions around a subquery in the list", "SELECT a, b FROM t ORDER BY (SELECT x FROM u GROUP BY 1 LIMIT 1), 2", "SELECT a, b FROM t ORDER BY (SELECT x FROM u GROUP BY 1 LIMIT ?), 2", []any{int64(1)}},
		{"order by expression", "SELECT a FROM t ORDER BY FIELD(a, 3, 1)", "SELECT a FROM t ORDER BY FIELD(a, ?, ?)", []any{int64(3), int64(1)}},
		{"decimal, exponent, hex, bits stay", "SELECT * FROM t WHERE a = 1.5 OR b = 1e3 OR c = 0x1F OR d = X'0A' OR e = b'01'", "SELECT * FROM t WHERE a = 1.5 OR b = 1e3 OR c = 0x1F OR d = X'0A' OR e = b'01'", nil},
		{"introducer, double quotes, backslash stay", `SELECT * FROM t WHERE a = _utf8mb4'x' OR b = N'y' OR c = "z" OR d = 'a\'b' OR e = 'ok'`, `SELECT * FROM t WHERE a = _utf8mb4'x' OR b = N'y' OR c = "z" OR d = 'a\'b' OR e = ?`, []any{"ok"}},
		{"versioned comment stays", "SELECT /*!50000 SQL_NO_CACHE 1, */ a FROM t WHERE id = 7", "SELECT /*!50000 SQL_NO_CACHE 1, */ a FROM t WHERE id = ?", []any{int64(7)}},
		{"comment stays", "SELECT a FROM t /* id = 5 */ WHERE id = 6 -- 7\n", "SELECT a FROM t /* id = 5 */ WHERE id = ? -- 7\n", []any{int64(6)}},
		{"beyond int64 stays", "SELECT * FROM t WHERE id = 18446744073709551615", "SELECT * FROM t WHERE id = 18446744073709551615", nil},
		{"qualified name stays", "SELECT t.1a FROM t WHERE id = 2", "SELECT t.1a FROM t WHERE id = ?", []any{int64(2)}},
		{"masked statement stays", "SELECT * FROM t WHERE id = ? AND a = 'x'", "SELECT * FROM t WHERE id = ? AND a = 'x'", nil},
		{"question mark in a string is not a placeholder", "SELECT * FROM t WHERE a = 'why?'", "SELECT * FROM t WHERE a = ?", []any{"why?"}},
		{"escape character stays", "SELECT * FROM t WHERE a LIKE 'x|%%' ESCAPE '|'", "SELECT * FROM t WHERE a LIKE ? ESCAPE '|'", []any{"x|%%"}},
		{"not DML", "SET SESSION sort_buffer_size = 1048576", "SET SESSION sort_buffer_size = 1048576", nil},
		{"transaction", "BEGIN", "BEGIN", nil},
		{"DDL", "CREATE TABLE t (a VARCHAR(20) DEFAULT 'x')", "CREATE TABLE t (a VARCHAR(20) DEFAULT 'x')", nil},
		{"no literal", "SELECT a FROM t", "SELECT a FROM t", nil},
		{"with", "WITH c AS (SELECT 1 AS x) SELECT x FROM c WHERE x = 'a'", "WITH c AS (SELECT ? AS x) SELECT x FROM c WHERE x = ?", []any{int64(1), "a"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, args := Parameterize(tc.in)
			if got != tc.want || !reflect.DeepEqual(args, tc.args) {
				t.Errorf("Parameterize(%q)\n got  %q %#v\n want %q %#v", tc.in, got, args, tc.want, tc.args)
			}
		})
	}
}

// BenchmarkParameterize measures the parameterisation of sysbench's
// statements (bytes/s), done once per captured statement when a replay
// is built.
func BenchmarkParameterize(b *testing.B) {
	stmts := []string{
		"SELECT c FROM sbtest1 WHERE id=2517",
		"SELECT DISTINCT c FROM sbtest3 WHERE id BETWEEN 10 AND 109 ORDER BY c",
		"UPDATE sbtest1 SET k=k+1 WHERE id=5",
		"INSERT INTO sbtest1 (id, k, c, pad) VALUES (5, 4993, '83868641912-28773972837-60736120486-75162659906-27563526494-20381887404-41576422241-93426793964-56405065102-33518432330', '67847967377-48000963322-62604785301-91415491898-96926520291')",
	}
	n := 0
	for _, s := range stmts {
		n += len(s)
	}
	b.SetBytes(int64(n))
	for i := 0; i < b.N; i++ {
		for _, s := range stmts {
			Parameterize(s)
		}
	}
}
