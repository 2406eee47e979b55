package config

import (
	"strings"
)

// expandProblem is one reason a value could not be expanded. It names a
// variable at most, never the value around it.
type expandProblem struct {
	// Missing is the name of a variable the lookup did not find ("" for a
	// malformed reference).
	Missing string
}

// message describes the problem without quoting the value.
func (p expandProblem) message() string {
	if p.Missing != "" {
		return "environment variable " + p.Missing + " is not set"
	}
	return "malformed ${...} reference: want ${NAME}, NAME a letter or _ then letters, digits and _ (write $${ for a literal ${)"
}

// expand replaces every ${NAME} in s with lookup(NAME). "$${" stands for a
// literal "${"; any other "$" is kept as is; substituted values are not
// expanded again. It returns every problem found (each missing variable
// once), and the expansion only when there is none.
func expand(s string, lookup func(string) (string, bool)) (string, []expandProblem) {
	if !strings.Contains(s, "${") {
		return s, nil
	}
	var (
		b    strings.Builder
		errs []expandProblem
	)
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			b.WriteString(s)
			break
		}
		if i > 0 && s[i-1] == '$' {
			// "$${": the escape. The first "$" was already copied.
			b.WriteString(s[:i-1])
			b.WriteString("${")
			s = s[i+2:]
			continue
		}
		b.WriteString(s[:i])
		rest := s[i+2:]
		end := strings.IndexByte(rest, '}')
		if end < 0 || !isVarName(rest[:end]) {
			errs = append(errs, expandProblem{})
			// Without a well-formed reference there is nothing reliable to
			// resume from.
			break
		}
		name := rest[:end]
		v, ok := lookup(name)
		if !ok {
			if !containsMissing(errs, name) {
				errs = append(errs, expandProblem{Missing: name})
			}
		} else {
			b.WriteString(v)
		}
		s = rest[end+1:]
	}
	if len(errs) > 0 {
		return "", errs
	}
	return b.String(), nil
}

// isVarName reports whether s is [A-Za-z_][A-Za-z0-9_]*.
func isVarName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '_', 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
		case '0' <= c && c <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

// containsMissing reports whether errs already names the variable.
func containsMissing(errs []expandProblem, name string) bool {
	for _, e := range errs {
		if e.Missing == name {
			return true
		}
	}
	return false
}
