package jsregexp

import (
	"testing"
	"unicode/utf8"
)

// FuzzValidateRegExp: the pattern checker never panics.
func FuzzValidateRegExp(f *testing.F) {
	for _, s := range []string{`(?<a>x)\k<a>`, `[\p{L}--[a-z]]`, `[\q{abc|d}]`, `a{2,1}`, `\1(a)`, `[😀-😂]`, `(?<=a)*`} {
		for _, flags := range []string{"", "u", "v", "gimsyd"} {
			f.Add(s, flags)
		}
	}
	f.Fuzz(func(t *testing.T, pattern, flags string) {
		if !utf8.ValidString(pattern) {
			return
		}
		validate(pattern, flags)
	})
}
