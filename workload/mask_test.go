package workload

import "testing"

func TestMaskLiterals(t *testing.T) {
	for _, tc := range []struct{ in, want, params string }{
		{"SELECT c FROM sbtest1 WHERE id=5", "SELECT c FROM sbtest1 WHERE id=?", "n"},
		{"SELECT * FROM t WHERE a = 'x' AND b = \"y\"", "SELECT * FROM t WHERE a = ? AND b = ?", "ss"},
		{"INSERT INTO t VALUES (1,'apple',1.50),(-2,'it''s',.5)", "INSERT INTO t VALUES (?,?,?),(-?,?,?)", "nsnnsn"},
		{`UPDATE t SET a = 'it\'s \\' WHERE id = 1e3`, "UPDATE t SET a = ? WHERE id = ?", "sn"},
		{"SELECT 1.5e-3, 2E+10, 0x1F, X'0A', b'01', 0b11", "SELECT ?, ?, ?, ?, ?, ?", "nnbbbb"},
		{"SELECT _utf8mb4'x', N'y' COLLATE utf8mb4_bin", "SELECT ?, ? COLLATE utf8mb4_bin", "ss"},
		{"SELECT t1.c2, `col 3`, 1abc FROM db2.t3 LIMIT 10", "SELECT t1.c2, `col 3`, 1abc FROM db2.t3 LIMIT ?", "n"},
		{"SELECT a FROM t WHERE d > DATE '2024-01-02' AND n IS NULL AND f = TRUE", "SELECT a FROM t WHERE d > DATE ? AND n IS NULL AND f = TRUE", "s"},
		{"SELECT /* id=5 */ 1 -- 7\n# 8\n", "SELECT /* id=5 */ ? -- 7\n# 8\n", "n"},
		{"/*!40101 SET NAMES utf8 */; /*!50503 SET @x = 5 */", "/*!40101 SET NAMES utf8 */; /*!50503 SET @x = ? */", "n"},
		{"SELECT /*+ MAX_EXECUTION_TIME(1000) */ a FROM t", "SELECT /*+ MAX_EXECUTION_TIME(1000) */ a FROM t", ""},
		{"SELECT @@global.max_connections, @v1, t.5col FROM t", "SELECT @@global.max_connections, @v1, t.5col FROM t", ""},
		{"SELECT 'unterminated", "SELECT ?", "s"},
		{"SELECT a-1, a - -1, `a``b` FROM t", "SELECT a-?, a - -?, `a``b` FROM t", "nn"},
	} {
		got, params := MaskLiterals(tc.in)
		if got != tc.want || params != tc.params {
			t.Errorf("MaskLiterals(%q) = %q, %q; want %q, %q", tc.in, got, params, tc.want, tc.params)
		}
	}
}

func TestMaskPasswords(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"CREATE USER 'u'@'%' IDENTIFIED BY 'sekret'", "CREATE USER 'u'@'%' IDENTIFIED BY '***'"},
		{"create user u identified with mysql_native_password by 'x', v identified by \"y\"", "create user u identified with mysql_native_password by '***', v identified by '***'"},
		{"CREATE USER u IDENTIFIED WITH caching_sha2_password AS '$A$005$abc'", "CREATE USER u IDENTIFIED WITH caching_sha2_password AS '***'"},
		{"ALTER USER u IDENTIFIED BY 'new' REPLACE 'old' RETAIN CURRENT PASSWORD", "ALTER USER u IDENTIFIED BY '***' REPLACE '***' RETAIN CURRENT PASSWORD"},
		{"CREATE USER u IDENTIFIED BY PASSWORD '*94BDCEBE19083CE2A1F959FD02F964C7AF4CFC29'", "CREATE USER u IDENTIFIED BY PASSWORD '***'"},
		{"CREATE USER u IDENTIFIED VIA ed25519 USING PASSWORD('pw') OR unix_socket", "CREATE USER u IDENTIFIED VIA ed25519 USING PASSWORD('***') OR unix_socket"},
		{"GRANT ALL ON *.* TO 'u'@'h' IDENTIFIED BY 'pw' WITH GRANT OPTION", "GRANT ALL ON *.* TO 'u'@'h' IDENTIFIED BY '***' WITH GRANT OPTION"},
		{"SET PASSWORD FOR 'u'@'%' = PASSWORD('pw')", "SET PASSWORD FOR 'u'@'%' = PASSWORD('***')"},
		{"SET PASSWORD = 'pw'", "SET PASSWORD = '***'"},
		{"set password for u = old_password('pw')", "set password for u = old_password('***')"},
		{"CHANGE MASTER TO MASTER_HOST='h', MASTER_USER='r', MASTER_PASSWORD='pw'", "CHANGE MASTER TO MASTER_HOST='h', MASTER_USER='r', MASTER_PASSWORD='***'"},
		{"CHANGE REPLICATION SOURCE TO SOURCE_PASSWORD = 'pw', SOURCE_SSL=1", "CHANGE REPLICATION SOURCE TO SOURCE_PASSWORD = '***', SOURCE_SSL=1"},
		{"START SLAVE USER='r' PASSWORD='pw'", "START SLAVE USER='r' PASSWORD='***'"},
		{"CREATE SERVER s FOREIGN DATA WRAPPER mysql OPTIONS (USER 'r', PASSWORD 'pw')", "CREATE SERVER s FOREIGN DATA WRAPPER mysql OPTIONS (USER 'r', PASSWORD '***')"},
		{"CREATE USER u IDENTIFIED BY <secret>", "CREATE USER u IDENTIFIED BY <secret>"},
		{"SELECT 'password', name FROM users WHERE pw_hash = 'x'", "SELECT 'password', name FROM users WHERE pw_hash = 'x'"},
		{"SELECT * FROM t WHERE a = 'by'", "SELECT * FROM t WHERE a = 'by'"},
	} {
		if got := MaskPasswords(tc.in); got != tc.want {
			t.Errorf("MaskPasswords(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	// With literals masked too, a password is a placeholder like any string.
	if got, p := MaskLiterals(MaskPasswords("CREATE USER u IDENTIFIED BY 'x'")); got != "CREATE USER u IDENTIFIED BY ?" || p != "s" {
		t.Errorf("masked = %q %q", got, p)
	}
}

func TestKind(t *testing.T) {
	for in, want := range map[string]string{
		"select 1":                             "SELECT",
		"  (SELECT 1) UNION (SELECT 2)":        "SELECT",
		"/* app=web */ UPDATE t SET a=1":       "UPDATE",
		"-- x\nINSERT INTO t VALUES (1)":       "INSERT",
		"/*!40101 SET NAMES utf8 */":           "SET",
		"WITH c AS (SELECT 1) SELECT * FROM c": "WITH",
		"":                                     "",
	} {
		if got := (Statement{SQL: in}).Kind(); got != want {
			t.Errorf("Kind(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestMask: Mask masks every statement of a copy and keeps the original.
func TestMask(t *testing.T) {
	w := readLog(t, "mysql-8.0-slow.log")
	m := Mask(w)
	if !m.Masked || w.Masked {
		t.Fatalf("Masked: copy %v, original %v", m.Masked, w.Masked)
	}
	s := m.Connections[0].Statements[3]
	if s.SQL != "INSERT INTO items VALUES (?,?,?),(?,?,?),(?,?,?)" || s.Params != "nsnnsnnsn" {
		t.Errorf("masked INSERT %q %q", s.SQL, s.Params)
	}
	if w.Connections[0].Statements[3].SQL == s.SQL {
		t.Error("the original was masked too")
	}
}
