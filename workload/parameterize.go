package workload

import (
	"strconv"
	"strings"
)

// Parameterize returns the statement sql as a prepared statement would
// send it: its integer and single-quoted string literals replaced by "?"
// placeholders, and their values in order (int64 for an integer, string
// for a string), so that executing the text with the values does what sql
// does. It is how a replay runs a captured statement as a server-side
// prepared statement (replay Options.Prepared), as applications on
// prepared statements (sysbench, JDBC with useServerPrepStmts, Go's
// database/sql) send them: the slow log writes such a statement with its
// values in place.
//
// Only DML (SELECT, WITH, INSERT, REPLACE, UPDATE, DELETE) is
// parameterised, and only literals whose value is exact as a parameter:
// an integer that fits int64 (a decimal such as 1.5 is DECIMAL as a
// literal and would change type), a '...' string without a backslash
// (whose meaning depends on the session's NO_BACKSLASH_ESCAPES) and
// without an introducer (_utf8mb4'..', N'..'). Left as they are: "..."
// (an identifier under ANSI_QUOTES), hex and bit values, literals inside
// /*!NNNNN ... */ (which a server of a lower version ignores, so the
// placeholder count would differ), and the column positions of ORDER BY
// and GROUP BY (ORDER BY 2 sorts by the second column; ORDER BY ? by a
// constant), and the character of LIKE ... ESCAPE '|' (which the server
// checks at execution, after the prepare succeeded). A statement that already holds placeholders (a masked
// workload) is returned as it is with no values. A literal in a place
// the server does not take a placeholder (CAST(x AS DECIMAL(10, 2))) makes
// the prepare fail; the replay then runs the statement as text.
func Parameterize(sql string) (string, []any) {
	switch (Statement{SQL: sql}).Kind() {
	case "SELECT", "WITH", "INSERT", "REPLACE", "UPDATE", "DELETE":
	default:
		return sql, nil
	}
	if strings.IndexByte(sql, '?') >= 0 && hasPlaceholder(sql) {
		return sql, nil
	}
	var out strings.Builder
	var args []any
	out.Grow(len(sql))
	versioned := false
	// prev and prev2 are the last two significant tokens in upper case;
	// byDepths are the parenthesis depths of the ORDER BY and GROUP BY
	// lists open (a subquery's inside another's), depth the current one.
	prev, prev2 := "", ""
	depth := 0
	var byDepths []int
	inList := func() bool { return len(byDepths) > 0 && byDepths[len(byDepths)-1] == depth }
	scan(sql, func(k tokKind, start, end int) {
		tok := sql[start:end]
		if k == tComment {
			switch {
			case strings.HasPrefix(tok, "/*!"):
				versioned = true
			case tok == "*/":
				versioned = false
			}
		}
		if k == tSpace || k == tComment {
			out.WriteString(tok)
			return
		}
		up := tok
		if k == tWord || k == tPunct {
			up = strings.ToUpper(tok)
		}
		switch up {
		case "(":
			depth++
		case ")":
			depth--
			for len(byDepths) > 0 && byDepths[len(byDepths)-1] > depth {
				byDepths = byDepths[:len(byDepths)-1]
			}
		case "BY":
			if prev == "ORDER" || prev == "GROUP" {
				byDepths = append(byDepths, depth)
			}
		case "LIMIT", "HAVING", "WINDOW", "UNION", "INTERSECT", "EXCEPT", "FOR", "LOCK", "INTO", "FROM", "WHERE", ";":
			if inList() {
				byDepths = byDepths[:len(byDepths)-1]
			}
		}
		position := inList() && (prev == "BY" && (prev2 == "ORDER" || prev2 == "GROUP") || prev == ",") ||
			prev == "ESCAPE" // LIKE ... ESCAPE '|' wants a constant at execution
		switch {
		case versioned || position:
			out.WriteString(tok)
		case k == tNumber:
			if v, err := strconv.ParseInt(tok, 10, 64); err == nil {
				out.WriteByte('?')
				args = append(args, v)
			} else {
				out.WriteString(tok)
			}
		case k == tString && tok[0] == '\'' && strings.IndexByte(tok, '\\') < 0 && len(tok) >= 2 && tok[len(tok)-1] == '\'':
			out.WriteByte('?')
			args = append(args, strings.ReplaceAll(tok[1:len(tok)-1], "''", "'"))
		default:
			out.WriteString(tok)
		}
		prev2, prev = prev, up
	})
	if len(args) == 0 {
		return sql, nil
	}
	return out.String(), args
}

// hasPlaceholder reports whether sql holds a "?" outside strings,
// identifiers and comments (a masked statement's placeholder).
func hasPlaceholder(sql string) bool {
	found := false
	scan(sql, func(k tokKind, start, end int) {
		if k == tPunct && sql[start] == '?' {
			found = true
		}
	})
	return found
}
