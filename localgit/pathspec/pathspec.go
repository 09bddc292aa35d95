// Package pathspec matches paths as git's default pathspecs do, without
// running git: the local provider's indexed code search answers the globs
// a search names ("*.go", "packages/*/package.json") as `git grep` would.
package pathspec

import (
	"regexp"
	"strings"
)

// Matcher matches paths like git's default pathspecs: a pattern
// with wildcards is matched against the whole path with '*' also matching
// '/'; one without is the path itself or a directory above it. ok is false
// for pathspec magic (a leading ':'), left to git.
func Matcher(globs []string) (match func(string) bool, ok bool) {
	if len(globs) == 0 {
		return func(string) bool { return true }, true
	}
	var prefixes, suffixes []string
	var stars [][]string
	var res []*regexp.Regexp
	for _, g := range globs {
		switch {
		case g == "" || strings.HasPrefix(g, ":"):
			return nil, false
		case !strings.ContainsAny(g, "*?["):
			prefixes = append(prefixes, strings.TrimSuffix(g, "/"))
		case g[0] == '*' && !strings.ContainsAny(g[1:], "*?["):
			// "*.ts": '*' matches any run, '/' included, so the pattern
			// is the suffix; a regular expression costs a backtracking
			// match per path.
			suffixes = append(suffixes, g[1:])
		case !strings.ContainsAny(g, "?["):
			// "packages/*/package.json": only stars, matched piece by
			// piece (the workspace globs of a monorepo, one match per
			// tracked path).
			stars = append(stars, strings.Split(g, "*"))
		default:
			re, err := globRegexp(g)
			if err != nil {
				return nil, false
			}
			res = append(res, re)
		}
	}
	return func(p string) bool {
		for _, pre := range prefixes {
			if p == pre || strings.HasPrefix(p, pre+"/") {
				return true
			}
		}
		for _, suf := range suffixes {
			if strings.HasSuffix(p, suf) {
				return true
			}
		}
		for _, pieces := range stars {
			if starMatch(pieces, p) {
				return true
			}
		}
		for _, re := range res {
			if re.MatchString(p) {
				return true
			}
		}
		return false
	}, true
}

// starMatch reports whether p matches the pattern whose literal pieces,
// between its stars, are pieces ('*' matching any run, '/' included): the
// first piece starts p, the last ends it, and the others appear in order
// between them. Taking each middle piece at its first place is right:
// a later place leaves less room for the pieces after it.
func starMatch(pieces []string, p string) bool {
	first, last := pieces[0], pieces[len(pieces)-1]
	if len(p) < len(first)+len(last) || !strings.HasPrefix(p, first) || !strings.HasSuffix(p, last) {
		return false
	}
	rest := p[len(first) : len(p)-len(last)]
	for _, piece := range pieces[1 : len(pieces)-1] {
		i := strings.Index(rest, piece)
		if i < 0 {
			return false
		}
		rest = rest[i+len(piece):]
	}
	return true
}

// globRegexp turns a wildcard pattern into an anchored regular expression:
// '*' is any run of characters ('/' included), '?' one character, [...] a
// class.
func globRegexp(g string) (*regexp.Regexp, error) {
	var b strings.Builder
	b.WriteString(`^`)
	for i := 0; i < len(g); i++ {
		switch c := g[i]; c {
		case '*':
			b.WriteString(`.*`)
		case '?':
			b.WriteString(`.`)
		case '[':
			j := strings.IndexByte(g[i+1:], ']')
			if j < 0 {
				b.WriteString(`\[`)
				continue
			}
			class := g[i+1 : i+1+j]
			if strings.HasPrefix(class, "!") {
				class = "^" + class[1:]
			}
			b.WriteString("[" + strings.ReplaceAll(class, `\`, `\\`) + "]")
			i += j + 1
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString(`$`)
	return regexp.Compile(b.String())
}
