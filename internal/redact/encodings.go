package redact

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"unicode/utf8"
)

// encodings returns s and every form of it a server or a runtime can
// echo: URL-escaped (query and path), JSON-escaped (with and without "<>&"
// escaped as \u003c, "/" as "\/" and non-ASCII as \uXXXX) and base64
// (see base64Forms).
func encodings(s string) []string {
	out := []string{s, url.QueryEscape(s), url.PathEscape(s)}
	for _, html := range []bool{true, false} {
		j := jsonEscape(s, html)
		for _, v := range []string{j, asciiJSON(j)} {
			out = append(out, v, strings.ReplaceAll(v, "/", `\/`))
		}
	}
	return append(out, base64Forms(s)...)
}

// jsonEscape returns s as encoding/json writes it inside a string literal,
// with or without HTML escaping.
func jsonEscape(s string, html bool) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(html)
	_ = enc.Encode(s) // a string always encodes
	j := bytes.TrimSuffix(b.Bytes(), []byte("\n"))
	return string(j[1 : len(j)-1])
}

// asciiJSON escapes every non-ASCII rune of the JSON string body j as
// \uXXXX (a surrogate pair beyond the BMP), as Python and PHP do.
func asciiJSON(j string) string {
	var b strings.Builder
	for _, r := range j {
		switch {
		case r < utf8.RuneSelf:
			b.WriteRune(r)
		case r > 0xFFFF:
			r -= 0x10000
			fmt.Fprintf(&b, `\u%04x\u%04x`, 0xD800+(r>>10), 0xDC00+(r&0x3FF))
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
	}
	return b.String()
}

// base64Forms returns s in standard and URL base64, padded and not, and
// the parts of its encoding that appear whatever precedes it: base64 codes
// 3 bytes as 4 characters, so s inside a longer encoded text (a whole URL,
// a "user:password") is coded differently after 1 or 2 bytes of other
// data. For each offset, the characters that code only s's bytes (all
// whole 3-byte groups after its first 0, 1 or 2 bytes) are listed when at
// least minBase64Core long. Up to 2 bytes at each end of a secret met at
// such an offset stay coded in the characters around "[redacted]".
func base64Forms(s string) []string {
	var out []string
	b := []byte(s)
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding} {
		out = append(out, enc.EncodeToString(b), enc.WithPadding(base64.NoPadding).EncodeToString(b))
		for skip := range 3 {
			if skip >= len(b) {
				break
			}
			rest := b[skip:]
			core := enc.EncodeToString(rest[:len(rest)/3*3])
			if len(core) >= minBase64Core {
				out = append(out, core)
			}
		}
	}
	return out
}
