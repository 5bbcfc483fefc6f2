package workload

import (
	"strings"
)

// PasswordMask is what a password in a password position becomes: a
// string literal, so that the statement still parses (a replay creates
// the account with this password).
const PasswordMask = "'***'"

// Masking works on the tokens of MySQL's lexical rules (MySQL manual
// "Literal Values", "Comments"; MariaDB KB "String Literals"): strings in
// '...' or "..." (backslash escapes and doubled quotes; an optional
// _charset or N introducer), X'..' / 0x.. hex and B'..' / 0b.. bit values,
// numbers 12, 1.5, .5, 1e-3, `quoted identifiers`, comments (# ..., -- ...,
// /* ... */; the text of /*!NNNNN ... */ is SQL and is masked too). With
// sql_mode ANSI_QUOTES a "..." is an identifier; the masker, which does not
// know the session's sql_mode, treats it as a string.

type tokKind uint8

const (
	tWord    tokKind = iota // keyword or identifier
	tIdent                  // `quoted identifier`
	tNumber                 // 12, 1.5, 1e3
	tString                 // '...', "...", _utf8mb4'...', N'...'
	tBits                   // X'0A', 0x0A, B'01', 0b01
	tSpace                  // spaces, tabs, newlines
	tComment                // a comment, or the opener/closer of /*!NNNNN ... */
	tPunct                  // any other byte
)

// scan calls fn for each token of sql with its byte range.
func scan(sql string, fn func(k tokKind, start, end int)) {
	i, n := 0, len(sql)
	versioned := false // inside /*!NNNNN ... */
	lastSig := tPunct  // kind of the last significant token
	lastByte := byte(0)
	lastEnd := -1 // end of the last significant token
	emit := func(k tokKind, start, end int) {
		fn(k, start, end)
		if k != tSpace && k != tComment {
			lastSig, lastByte, lastEnd = k, sql[end-1], end
		}
	}
	for i < n {
		c := sql[i]
		start := i
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			for i < n && (sql[i] == ' ' || sql[i] == '\t' || sql[i] == '\n' || sql[i] == '\r') {
				i++
			}
			emit(tSpace, start, i)
		case c == '#' || (c == '-' && strings.HasPrefix(sql[i:], "--") && (i+2 == n || isSpace(sql[i+2]))):
			for i < n && sql[i] != '\n' {
				i++
			}
			emit(tComment, start, i)
		case c == '/' && i+1 < n && sql[i+1] == '*':
			if i+2 < n && sql[i+2] == '!' {
				i += 3
				for i < n && sql[i] >= '0' && sql[i] <= '9' {
					i++
				}
				versioned = true
				emit(tComment, start, i)
				continue
			}
			end := strings.Index(sql[i+2:], "*/")
			if end < 0 {
				i = n
			} else {
				i += 2 + end + 2
			}
			emit(tComment, start, i)
		case c == '*' && versioned && i+1 < n && sql[i+1] == '/':
			i += 2
			versioned = false
			emit(tComment, start, i)
		case c == '\'' || c == '"':
			i = endOfQuoted(sql, i)
			emit(tString, start, i)
		case c == '`':
			i++
			for i < n {
				if sql[i] == '`' {
					if i+1 < n && sql[i+1] == '`' {
						i += 2
						continue
					}
					i++
					break
				}
				i++
			}
			emit(tIdent, start, i)
		case c == '.' && i+1 < n && isDigit(sql[i+1]) && !(lastEnd == i && (lastSig == tWord || lastSig == tIdent || lastByte == ')')):
			// .5 is a number; t.5 (right after a name) qualifies a column.
			i = endOfNumber(sql, i)
			emit(tNumber, start, i)
		case isWordByte(c):
			j := i
			for j < n && isWordByte(sql[j]) {
				j++
			}
			word := sql[i:j]
			qualified := lastEnd == i && lastByte == '.' && lastSig == tPunct // t.1col
			switch {
			case j < n && (sql[j] == '\'' || sql[j] == '"') && isIntroducer(word):
				i = endOfQuoted(sql, j)
				k := tString
				if w := word[0] | 0x20; len(word) == 1 && (w == 'x' || w == 'b') {
					k = tBits
				}
				emit(k, start, i)
			case !qualified && isDigit(c) && isNumberWord(word, sql, j):
				if len(word) > 2 && word[0] == '0' && (word[1] == 'x' || word[1] == 'b') {
					i = j
					emit(tBits, start, i)
					break
				}
				i = endOfNumber(sql, i)
				emit(tNumber, start, i)
			default:
				i = j
				emit(tWord, start, i)
			}
		default:
			i++
			emit(tPunct, start, i)
		}
	}
}

// endOfQuoted returns the end of the quoted string starting at i.
func endOfQuoted(sql string, i int) int {
	q := sql[i]
	i++
	for i < len(sql) {
		switch sql[i] {
		case '\\':
			i += 2
			continue
		case q:
			if i+1 < len(sql) && sql[i+1] == q {
				i += 2
				continue
			}
			return i + 1
		}
		i++
	}
	return len(sql)
}

// endOfNumber returns the end of the number starting at i: digits, an
// optional fraction, an optional exponent.
func endOfNumber(sql string, i int) int {
	n := len(sql)
	for i < n && isDigit(sql[i]) {
		i++
	}
	if i < n && sql[i] == '.' {
		i++
		for i < n && isDigit(sql[i]) {
			i++
		}
	}
	if i < n && (sql[i] == 'e' || sql[i] == 'E') {
		j := i + 1
		if j < n && (sql[j] == '+' || sql[j] == '-') {
			j++
		}
		if j < n && isDigit(sql[j]) {
			for j < n && isDigit(sql[j]) {
				j++
			}
			i = j
		}
	}
	return i
}

// isNumberWord reports whether word, a run of word bytes starting with a
// digit that ends at sql[end], is a number (12, 1e5, 1e-5 with the sign
// after it, 0x1F, 0b01) rather than an identifier that starts with digits
// (MySQL allows 1abc as a name).
func isNumberWord(word, sql string, end int) bool {
	if len(word) > 2 && word[0] == '0' && (word[1] == 'x' || word[1] == 'b') {
		for _, c := range []byte(word[2:]) {
			if word[1] == 'x' && !isHex(c) || word[1] == 'b' && c != '0' && c != '1' {
				return false
			}
		}
		return true
	}
	i := 0
	for i < len(word) && isDigit(word[i]) {
		i++
	}
	if i == len(word) {
		return true
	}
	if word[i] != 'e' && word[i] != 'E' {
		return false
	}
	rest := word[i+1:]
	if rest == "" { // 1e-5, 1e+5: the sign ends the word
		return end+1 < len(sql) && (sql[end] == '-' || sql[end] == '+') && isDigit(sql[end+1])
	}
	for _, c := range []byte(rest) {
		if !isDigit(c) {
			return false
		}
	}
	return true
}

// isIntroducer reports whether word before a quote makes it one literal:
// a _charset introducer, N (national), X (hex) or B (bit).
func isIntroducer(word string) bool {
	if len(word) == 1 {
		switch word[0] | 0x20 {
		case 'n', 'x', 'b':
			return true
		}
		return false
	}
	return word[0] == '_'
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
func isHex(c byte) bool   { return isDigit(c) || (c|0x20 >= 'a' && c|0x20 <= 'f') }
func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// MaskLiterals returns sql with every string, number, hex and bit literal
// replaced by a "?" placeholder, and the kinds of the replaced literals
// in order (n number, s string, b hex or bit). Identifiers, keywords,
// comments, NULL, TRUE and FALSE stay; a sign stays in front of its
// placeholder ("-?"). Passwords are masked first (MaskPasswords), so a
// masked password is a placeholder like any string.
func MaskLiterals(sql string) (string, string) {
	var out strings.Builder
	var kinds []byte
	out.Grow(len(sql))
	scan(sql, func(k tokKind, start, end int) {
		switch k {
		case tString:
			out.WriteByte('?')
			kinds = append(kinds, 's')
		case tNumber:
			out.WriteByte('?')
			kinds = append(kinds, 'n')
		case tBits:
			out.WriteByte('?')
			kinds = append(kinds, 'b')
		default:
			out.WriteString(sql[start:end])
		}
	})
	return out.String(), string(kinds)
}

// MaskPasswords returns sql with the string literals in password
// positions replaced by PasswordMask:
//
//   - after BY, AS, USING or REPLACE in a statement with IDENTIFIED:
//     CREATE/ALTER USER and GRANT ... IDENTIFIED [WITH plugin] BY|AS '...',
//     MariaDB IDENTIFIED VIA plugin USING '...', MySQL 8 ALTER USER ...
//     REPLACE 'current';
//   - after a word ending in PASSWORD, with or without "=": MASTER_PASSWORD
//     = '...', SOURCE_PASSWORD='...', START SLAVE ... PASSWORD='...',
//     CREATE SERVER ... OPTIONS (PASSWORD '...');
//   - the argument of PASSWORD('...') and OLD_PASSWORD('...');
//   - after the "=" of SET PASSWORD [FOR account] = ....
//
// Statements without the words IDENTIFIED and PASSWORD are returned as
// they are, without being scanned. MySQL itself writes some of these as
// <secret> in its logs (log_raw OFF); those stay.
func MaskPasswords(sql string) string {
	if !mayHoldPassword(sql) {
		return sql
	}
	type tok struct {
		k          tokKind
		start, end int
		up         string // upper-case text of a word or punctuation
	}
	var sig []tok
	var masks [][2]int
	identified, setPassword, afterEq := false, false, false
	scan(sql, func(k tokKind, start, end int) {
		if k == tSpace || k == tComment {
			return
		}
		t := tok{k: k, start: start, end: end}
		if k == tWord || k == tPunct {
			t.up = strings.ToUpper(sql[start:end])
		}
		if k == tString {
			mask := false
			if p1 := len(sig) - 1; p1 >= 0 {
				a := sig[p1].up
				b := ""
				if p1 > 0 {
					b = sig[p1-1].up
				}
				switch {
				case identified && (a == "BY" || a == "AS" || a == "USING" || a == "REPLACE"):
					mask = true
				case strings.HasSuffix(a, "PASSWORD"):
					mask = true
				case a == "=" && strings.HasSuffix(b, "PASSWORD"):
					mask = true
				case a == "(" && (b == "PASSWORD" || b == "OLD_PASSWORD"):
					mask = true
				case setPassword && afterEq:
					mask = true
				}
			}
			if mask {
				masks = append(masks, [2]int{start, end})
			}
		}
		switch t.up {
		case "IDENTIFIED":
			identified = true
		case "PASSWORD":
			if len(sig) == 1 && sig[0].up == "SET" {
				setPassword = true
			}
		case "=":
			afterEq = true
		}
		sig = append(sig, t)
	})
	if len(masks) == 0 {
		return sql
	}
	var out strings.Builder
	last := 0
	for _, m := range masks {
		out.WriteString(sql[last:m[0]])
		out.WriteString(PasswordMask)
		last = m[1]
	}
	out.WriteString(sql[last:])
	return out.String()
}

// mayHoldPassword reports whether sql holds the word PASSWORD or
// IDENTIFIED in any case: one pass, as every statement read goes
// through it.
func mayHoldPassword(sql string) bool {
	for i := 0; i+8 <= len(sql); i++ {
		switch sql[i] | 0x20 {
		case 'p':
			if strings.EqualFold(sql[i:i+8], "password") {
				return true
			}
		case 'i':
			if i+10 <= len(sql) && strings.EqualFold(sql[i:i+10], "identified") {
				return true
			}
		}
	}
	return false
}

// Mask returns a copy of w with every statement's literals masked
// (MaskLiterals) and Masked set; the statements' Params give the kinds of
// their placeholders.
func Mask(w *Workload) *Workload {
	out := *w
	out.Masked = true
	out.Connections = make([]Connection, len(w.Connections))
	for i, c := range w.Connections {
		c.Statements = append([]Statement(nil), c.Statements...)
		for j := range c.Statements {
			c.Statements[j].SQL, c.Statements[j].Params = MaskLiterals(c.Statements[j].SQL)
		}
		out.Connections[i] = c
	}
	return &out
}
