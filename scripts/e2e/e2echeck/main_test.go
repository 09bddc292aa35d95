package main

import (
	"reflect"
	"testing"
)

func TestVisible(t *testing.T) {
	for _, tc := range []struct {
		name, body, text string
		problems         int
	}{
		{"marker after blank line is hidden", "Summary\n\n[prscout]: # \"review head=abc v=1\"", "Summary\n", 0},
		{"marker glued to text is reported", "Summary\n[prscout]: # \"review head=abc v=1\"", "Summary", 1},
		{"two markers in a row", "S\n\n[prscout]: # \"a\"\n[prscout-f]: # \"b\"", "S\n", 0},
		{"a plain link is kept", "see [docs](http://x)", "see [docs](http://x)", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text, problems := visible(tc.body)
			if text != tc.text || len(problems) != tc.problems {
				t.Errorf("visible(%q) = %q, %v; want %q, %d problem(s)", tc.body, text, problems, tc.text, tc.problems)
			}
		})
	}
}

func TestHTMLRe(t *testing.T) {
	var got []bool
	for _, s := range []string{"<!-- m -->", "<details>", "a <sub>b</sub>", "if a < b && c > d", "`<T>`", "<br/>"} {
		got = append(got, htmlRe.MatchString(s))
	}
	if want := []bool{true, true, true, false, false, true}; !reflect.DeepEqual(got, want) {
		t.Errorf("htmlRe matches %v, want %v", got, want)
	}
}
