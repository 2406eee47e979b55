package config

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Key paths name a key of the document the way TOML spells it: keys joined
// with dots, an array element as [n], and a key that is not a bare key
// (letters A-Z and a-z, digits, _ and -) quoted as a TOML basic string,
// with every control or non-printable character escaped (\n, \u001B,
// \u202E, ...). So a path never holds a line break or a terminal control
// sequence that could forge a line of the error output, and a dot or a
// bracket inside a quoted key is never taken for structure.

// quoteKey spells one key: as is when bare, else quoted.
func quoteKey(k string) string {
	if isBareKey(k) {
		return k
	}
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range k {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		default:
			writeRune(&b, r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// isBareKey reports whether k is a non-empty TOML bare key.
func isBareKey(k string) bool {
	if k == "" {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '_', c == '-':
		default:
			return false
		}
	}
	return true
}

// writeRune writes r as is when printable (the ASCII space included), else
// as a TOML escape: \b \t \n \f \r, \uXXXX or \UXXXXXXXX.
func writeRune(b *strings.Builder, r rune) {
	switch {
	case unicode.IsPrint(r):
		b.WriteRune(r)
	case r == '\b':
		b.WriteString(`\b`)
	case r == '\t':
		b.WriteString(`\t`)
	case r == '\n':
		b.WriteString(`\n`)
	case r == '\f':
		b.WriteString(`\f`)
	case r == '\r':
		b.WriteString(`\r`)
	case r > 0xFFFF:
		b.WriteString(`\U`)
		b.WriteString(hexDigits(uint32(r), 8))
	default:
		b.WriteString(`\u`)
		b.WriteString(hexDigits(uint32(r), 4))
	}
}

// hexDigits formats v in upper-case hex, zero-padded to n digits.
func hexDigits(v uint32, n int) string {
	s := strings.ToUpper(strconv.FormatUint(uint64(v), 16))
	return strings.Repeat("0", max(0, n-len(s))) + s
}

// printable escapes every control or non-printable character of s (and
// every byte that is not UTF-8) the way quoteKey does, leaving the rest,
// backslashes included, as it is. Every path, message and file name is
// printed through it, whatever built the Problem.
func printable(s string) string {
	clean := true
	for _, r := range s {
		if !unicode.IsPrint(r) || r == utf8.RuneError {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b.WriteString(`\x`)
			b.WriteString(hexDigits(uint32(s[i]), 2))
		} else {
			writeRune(&b, r)
		}
		i += size
	}
	return b.String()
}

// join appends key to path with a dot, quoting the key when it is not bare.
func join(path, key string) string {
	if path == "" {
		return quoteKey(key)
	}
	return path + "." + quoteKey(key)
}

// joinKeys spells a sequence of keys as a path.
func joinKeys(keys []string) string {
	path := ""
	for _, k := range keys {
		path = join(path, k)
	}
	return path
}

// scanPath calls f with the byte offset of every '.', '[' and ']' of path
// that is structure, not part of a quoted key.
func scanPath(path string, f func(i int, c byte)) {
	quoted := false
	for i := 0; i < len(path); i++ {
		c := path[i]
		switch {
		case quoted && c == '\\':
			i++ // the escaped character
		case c == '"':
			quoted = !quoted
		case !quoted && (c == '.' || c == '[' || c == ']'):
			f(i, c)
		}
	}
}

// parent returns the path one step up: "a[1].b" -> "a[1]" -> "a" -> "".
func parent(path string) string {
	lastDot, lastBracket := -1, -1
	scanPath(path, func(i int, c byte) {
		switch c {
		case '.':
			lastDot = i
		case '[':
			lastBracket = i
		}
	})
	if strings.HasSuffix(path, "]") && lastBracket >= 0 {
		return path[:lastBracket]
	}
	if lastDot >= 0 {
		return path[:lastDot]
	}
	return ""
}

// stripIndexes removes every "[n]" from a path.
func stripIndexes(path string) string {
	if !strings.Contains(path, "[") {
		return path
	}
	var b strings.Builder
	from := 0 // start of the text to keep; -1 inside an index
	scanPath(path, func(i int, c byte) {
		switch {
		case c == '[' && from >= 0:
			b.WriteString(path[from:i])
			from = -1
		case c == ']':
			from = i + 1
		}
	})
	if from >= 0 {
		b.WriteString(path[from:])
	}
	return b.String()
}

// pathKeys splits a path without indexes into its keys, as spelt (quoted
// keys keep their quotes).
func pathKeys(path string) []string {
	var keys []string
	from := 0
	scanPath(path, func(i int, c byte) {
		if c == '.' {
			keys = append(keys, path[from:i])
			from = i + 1
		}
	})
	return append(keys, path[from:])
}
