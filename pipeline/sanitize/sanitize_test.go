package sanitize

import (
	"regexp"
	"strings"
	"testing"
)

// imageRe matches a Markdown image with a target.
var imageRe = regexp.MustCompile(`!\[[^\]\n]*\]\([^)\n]*\)`)

// TestAbuseMarkdownInjection: model text cannot post HTML, scripts,
// tracking images, links to other hosts or mentions; code stays as written.
func TestAbuseMarkdownInjection(t *testing.T) {
	hosts := []string{"bitbucket.org"}
	cases := []struct{ in, want string }{
		{`<img src=x onerror=alert(1)>`, `&lt;img src=x onerror=alert(1)>`},
		{`a <script>x()</script> b`, `a &lt;script>x()&lt;/script> b`},
		{`<!-- hidden -->`, `&lt;!-- hidden -->`},
		{`x < y and 3<4`, `x < y and 3<4`},
		{`![t](https://evil.example/p.png?d=1)`, `[image: t]`},
		{`[x](javascript:alert(1))`, `x (link removed)`},
		{`[x](JaVaScRiPt:alert(1))`, `x (link removed)`},
		{`[x](data:text/html,hi)`, `x (link removed)`},
		{`[x](//evil.example/a)`, `x (link removed)`},
		{`[x](https://evil.example/a)`, `x (link removed)`},
		{`[x](https://bitbucket.org/acme/shop)`, `[x](https://bitbucket.org/acme/shop)`},
		{`[x](https://bitbucket.org.evil.example/)`, `x (link removed)`},
		{`[x](src/a.go#L3)`, `[x](src/a.go#L3)`},
		{`see https://evil.example/?t=1 now`, "see `https://evil.example/?t=1` now"},
		{`see https://bitbucket.org/x now`, `see https://bitbucket.org/x now`},
		{`hi @everyone and @here`, "hi `@everyone` and `@here`"},
		{`cc @{557058:abc-def}`, "cc `@{557058:abc-def}`"},
		{`mail a@b.com`, `mail a@b.com`},
		{"`<b>` and `@here`", "`<b>` and `@here`"},
		{"```\n<b>x</b> @here\n```\n@here", "```\n<b>x</b> @here\n```\n`@here`"},
		{"[r]: https://evil.example\ntext", "\ntext"},
		{"line1\r\n<b>", "line1\r\n&lt;b>"},
	}
	for _, c := range cases {
		if got := Markdown(c.in, hosts); got != c.want {
			t.Errorf("Markdown(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
	}
}

// FuzzSanitizeMarkdown: whatever the model writes, the result keeps its
// line count and has no raw tag opener, image or foreign link outside code.
func FuzzSanitizeMarkdown(f *testing.F) {
	for _, s := range []string{"<img src=x>", "![a](http://x)", "[a](javascript:x)", "@here", "```\n<b>\n```", "`<i>`", "[[a](b)](c)"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := Markdown(s, []string{"bitbucket.org"})
		if strings.Count(got, "\n") != strings.Count(s, "\n") {
			t.Fatalf("line count changed: %q -> %q", s, got)
		}
		if strings.Contains(s, "`") || strings.Contains(s, "~~~") {
			return // code spans and fences keep their text
		}
		for _, bad := range []string{"<img", "<script", "](javascript:", "<!--"} {
			if strings.Contains(strings.ToLower(got), bad) {
				t.Fatalf("%q survived: %q -> %q", bad, s, got)
			}
		}
		if imageRe.MatchString(got) {
			t.Fatalf("an image survived: %q -> %q", s, got)
		}
	})
}

func TestCodeSpanAndCell(t *testing.T) {
	tests := []struct{ in, span, cell string }{
		{"a.go", "`a.go`", "a.go"},
		{"we`ird.go", "``we`ird.go``", "we`ird.go"},
		{"`x`", "`` `x` ``", "`x`"},
		{"a|b\nc", "`a|b c`", `a\|b c`},
		{`already \| escaped`, "`already \\| escaped`", `already \| escaped`},
		{"", "``", " "},
	}
	for _, tt := range tests {
		if got := CodeSpan(tt.in); got != tt.span {
			t.Errorf("CodeSpan(%q) = %q, want %q", tt.in, got, tt.span)
		}
		if got := TableCell(tt.in); got != tt.cell {
			t.Errorf("TableCell(%q) = %q, want %q", tt.in, got, tt.cell)
		}
	}
}

func TestCloseFences(t *testing.T) {
	tests := []struct{ in, want string }{
		{"text", "text"},
		{"```go\nx\n```", "```go\nx\n```"},
		{"```go\nx := 1", "```go\nx := 1\n```"},
		{"~~~~\ncode\n~~~", "~~~~\ncode\n~~~\n~~~~"},
		{"````\n```\nstill open", "````\n```\nstill open\n````"},
		{"    ```\nindented is code, not a fence", "    ```\nindented is code, not a fence"},
		{"``` not`a fence\ntext", "``` not`a fence\ntext"},
		{"a\n```\nb\n```\n```py\nc\n", "a\n```\nb\n```\n```py\nc\n```"},
	}
	for _, tt := range tests {
		if got := CloseFences(tt.in); got != tt.want {
			t.Errorf("CloseFences(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
