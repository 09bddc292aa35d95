package pathspec

import "testing"

// agreeWithRegexp checks that the matcher of each glob answers as the
// glob's regular expression does on every path.
func agreeWithRegexp(t *testing.T, globs, paths []string) {
	t.Helper()
	for _, g := range globs {
		fast, ok := Matcher([]string{g})
		if !ok {
			t.Fatalf("%q: not matched here", g)
		}
		re, err := globRegexp(g)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range paths {
			if got, want := fast(p), re.MatchString(p); got != want {
				t.Errorf("%q on %q = %v, want %v", g, p, got, want)
			}
		}
	}
}

// A "*.ext" pattern matched as a suffix agrees with git's wildcard reading
// of it ('*' matching '/' too), as the regular expression does.
func TestMatcherSuffix(t *testing.T) {
	agreeWithRegexp(t, []string{"*.ts", "*", "*x.ts", "*.d.ts"},
		[]string{"x.ts", "a/b/x.ts", "a/x.tsx", "a.ts/b.go", "ts", "a/.ts", "b/x.d.ts"})
}

// Star-only patterns matched piece by piece agree with the regular
// expression on paths that overlap their pieces, repeat them or stop
// short of them.
func TestMatcherStars(t *testing.T) {
	agreeWithRegexp(t, []string{"packages/*/package.json", "packages/integrations/*/package.json",
		"*/package.json", "a*b", "a*b*a", "ab*ab", "*a*b*", "a**b", "packages/*", "*/*/*"},
		[]string{
			"package.json", "packages/package.json", "packages/a/package.json", "packages/a/b/package.json",
			"packages/integrations/react/package.json", "xpackages/a/package.json", "packages/a/package.jsonx",
			"packages/package.json/package.json", "ab", "aba", "abab", "a/b/c", "abcab", "",
		})
}
