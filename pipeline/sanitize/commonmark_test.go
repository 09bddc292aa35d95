package sanitize

import (
	"bytes"
	"html"
	"math/rand"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
)

// The sanitizer's output is checked by rendering it with a CommonMark
// implementation (goldmark): nothing live may come out of it. A bare URL to
// another host left in the rendered text counts as live (Bitbucket links
// bare URLs, as GFM does).

var linkHosts = []string{"bitbucket.example"}

var renderer = goldmark.New()

// bareURLRe finds a URL a GFM renderer would link in rendered text.
var bareURLRe = regexp.MustCompile(`(?i)(?:^|[^A-Za-z0-9_])((?:https?://|ftp://|www\.)[^\s<>]*)`)

// mentionRe finds a mention in rendered text: "@" after a non-word
// character (or at the start), then a name or "{id}".
var mentionRe = regexp.MustCompile(`(?:^|[^A-Za-z0-9_@])@(?:\{[^}\s]+\}|[A-Za-z0-9_])`)

// codeRe and tagRe strip rendered code and tags.
var (
	codeRe = regexp.MustCompile(`(?s)<code[^>]*>.*?</code>`)
	tagRe  = regexp.MustCompile(`<[^>]*>`)
)

// live lists what is live in md once rendered: images, links to other
// hosts or other schemes, raw HTML, and mentions outside code.
func live(t *testing.T, md string) []string {
	t.Helper()
	src := []byte(md)
	var out []string
	doc := renderer.Parser().Parse(text.NewReader(src))
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Image:
			out = append(out, "image "+string(n.Destination))
		case *ast.Link:
			if !harmlessLink(string(n.Destination)) {
				out = append(out, "link "+string(n.Destination))
			}
		case *ast.AutoLink:
			if !harmlessLink(string(n.URL(src))) {
				out = append(out, "autolink "+string(n.URL(src)))
			}
		case *ast.RawHTML:
			out = append(out, "raw HTML")
		case *ast.HTMLBlock:
			out = append(out, "HTML block")
		}
		return ast.WalkContinue, nil
	})
	var h bytes.Buffer
	if err := renderer.Renderer().Render(&h, src, doc); err != nil {
		t.Fatal(err)
	}
	plain := html.UnescapeString(tagRe.ReplaceAllString(codeRe.ReplaceAllString(h.String(), " "), " "))
	for _, m := range mentionRe.FindAllString(plain, -1) {
		out = append(out, "mention "+strings.TrimSpace(m))
	}
	for _, m := range bareURLRe.FindAllStringSubmatch(plain, -1) {
		u := m[1]
		if strings.HasPrefix(strings.ToLower(u), "www.") {
			u = "http://" + u
		}
		if !harmlessLink(u) {
			out = append(out, "bare URL "+m[1])
		}
	}
	return out
}

// schemeRe is a URL's scheme as a browser reads it.
var schemeRe = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*:`)

// harmlessLink: a relative path (no scheme, no "//"), or http(s) to an
// allowed host.
func harmlessLink(dest string) bool {
	d := strings.TrimLeft(dest, " \t\r\n")
	if !schemeRe.MatchString(d) {
		return !strings.HasPrefix(d, "//") && !strings.HasPrefix(d, `\\`) && !strings.HasPrefix(d, `/\`) && !strings.HasPrefix(d, `\/`)
	}
	u, err := url.Parse(d)
	if err != nil {
		return false
	}
	return (u.Scheme == "http" || u.Scheme == "https") && strings.EqualFold(u.Hostname(), linkHosts[0])
}

// TestMarkdownCodeAsCommonMark: code spans and fences are decided as
// CommonMark decides them, so nothing the renderer shows live is left
// "inside code": a closing fence followed by spaces closes the block; a
// backslash before a backtick opens no span; a backtick fence's info string
// holds no backtick; a fence in a list item ends with the item; a span runs
// across the lines of a paragraph; raw HTML blocks lose their meaning.
func TestMarkdownCodeAsCommonMark(t *testing.T) {
	img := "![x](https://evil.example/p.png)"
	for name, in := range map[string]string{
		"fence closed by a line with trailing spaces": "```\ncode\n```  \n" + img + "\n",
		"fence closed by a line with a trailing tab":  "~~~\ncode\n~~~\t\n" + img + "\n",
		"backslash before a backtick":                 "\\`" + img + "`",
		"two backslashes before a backtick":           "\\\\`" + img + "`",
		"backtick in a backtick fence's info":         "```a`b\n" + img + "\n```\n",
		"fence in a list item":                        "- a\n  ```\n" + img + "\n  ```\n",
		"fence opened in a list item":                 "- ```\n  x\n  ```\n  " + img + "\n",
		"span across lines":                           "`a\nb` " + img + " `c`\n",
		"span split by a list item":                   "x `a\n- " + img + " `\n",
		"html comment then a span":                    "<!-- `\n-->\n` " + img + " `\n",
		"html block then fences":                      "<!--\n- x\n-->\n  ```\n" + img + "\n  ```\n",
		"html block hiding a tilde fence":             "<div>\n~~~\n\n~~~\n" + img + "\n~~~\n",
		"link around a code span":                     "[`code`](https://evil.example/a)",
		"mention after emphasis":                      "*@everyone* and _@here_",
		"mention after a backslash":                   "\\@everyone",
		"lone CR line break":                          "```\rcode\r```\r" + img,
		"indented fence closer":                       "```\ncode\n    ```\n" + img + "\n```\n",
		"definition in a quote":                       "> [r]: https://evil.example/d\n\n[r]\n",
	} {
		got := Markdown(in, linkHosts)
		if l := live(t, got); len(l) > 0 {
			t.Errorf("%s: %q sanitized to %q renders live %v", name, in, got, l)
		}
	}
	// Code stays as written.
	for _, in := range []string{"```go\nx := `@here` + \"![a](b)\"\n```", "Use `<b>@here</b>` here.", "``a ` b``"} {
		if got := Markdown(in, linkHosts); got != in {
			t.Errorf("code changed: %q -> %q", in, got)
		}
	}
}

// TestMarkdownDifferential: generated Markdown made of the pieces that
// decide code and links (backtick and tilde runs, backslashes, fences,
// containers, HTML, images, links, mentions, bare URLs, line breaks),
// sanitized, then rendered by a CommonMark implementation: no case may
// render a live image, link, HTML or mention.
func TestMarkdownDifferential(t *testing.T) {
	pieces := []string{"`", "``", "```", "````", "~~~", "\\", "\\`", " ", "  ", "    ", "\t", "\n", "\n", "\n\n", "\r",
		"> ", "- ", "* ", "1. ", "# ", "x", "ab", "(", ")", "[", "]", "!", ":", "*", "_", "<", ">", "-->", "<!--", "<div>",
		"![i](https://evil.example/p.png)", "[l](https://evil.example/l)", "[l](javascript:alert(1))", "[ok](https://bitbucket.example/x)",
		"<img src=x>", "<https://evil.example/a>", "@everyone", "@{557058:ab}", "@here", "https://evil.example/u", "www.evil.example",
		"[r]: https://evil.example/d", "[r]", "---", "===", "&lt;",
	}
	n := 30000
	if testing.Short() {
		n = 3000
	}
	rng := rand.New(rand.NewSource(43))
	failed := 0
	for i := 0; i < n; i++ {
		var b strings.Builder
		for k := rng.Intn(24) + 1; k > 0; k-- {
			b.WriteString(pieces[rng.Intn(len(pieces))])
		}
		in := b.String()
		got := Markdown(in, linkHosts)
		if l := live(t, got); len(l) > 0 {
			failed++
			if failed <= 10 {
				t.Errorf("case %d: %q sanitized to %q renders live %v", i, in, got, l)
			}
		}
	}
	t.Logf("%d generated cases, %d rendered something live", n, failed)
	if failed > 0 {
		t.Errorf("%d of %d generated cases rendered something live", failed, n)
	}
}
