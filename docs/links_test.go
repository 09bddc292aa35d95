package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// linkedFiles are the Markdown files whose relative links must resolve, from
// the repository root.
var linkedFiles = []string{"README.md", "workflows/README.md"}

var (
	fence      = regexp.MustCompile("(?ms)^[ \t]*```.*?^[ \t]*```[ \t]*$")
	codeSpan   = regexp.MustCompile("`[^`\n]*`")
	htmlNote   = regexp.MustCompile(`(?s)<!--.*?-->`)
	inlineLink = regexp.MustCompile(`\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)
	heading    = regexp.MustCompile(`(?m)^#{1,6}[ \t]+(.+?)[ \t]*#*[ \t]*$`)
	notSlug    = regexp.MustCompile(`[^\p{L}\p{N}_\- ]`)
)

// TestDocsLinks fails on a relative link to a file that is not in the
// repository, or to an #anchor that is no heading of its target.
func TestDocsLinks(t *testing.T) {
	root := ".."
	files := append([]string(nil), linkedFiles...)
	mds, err := filepath.Glob("*.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range mds {
		files = append(files, "docs/"+m)
	}
	checked := 0
	for _, f := range files {
		text, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		for _, target := range links(string(text)) {
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			checked++
			path, anchor, _ := strings.Cut(target, "#")
			dest := f
			if path != "" {
				dest = filepath.ToSlash(filepath.Join(filepath.Dir(f), path))
				if strings.HasPrefix(dest, "../") || filepath.IsAbs(path) {
					t.Errorf("%s: link %q leaves the repository", f, target)
					continue
				}
				if _, err := os.Stat(filepath.Join(root, dest)); err != nil {
					t.Errorf("%s: link %q: no file %s in the repository", f, target, dest)
					continue
				}
			}
			if anchor == "" || !strings.HasSuffix(dest, ".md") {
				continue
			}
			body, err := os.ReadFile(filepath.Join(root, dest))
			if err != nil {
				t.Errorf("%s: link %q: %v", f, target, err)
				continue
			}
			if !anchors(string(body))[anchor] {
				t.Errorf("%s: link %q: %s has no heading with the anchor #%s", f, target, dest, anchor)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no relative link found: the link reader is broken")
	}
}

// links gives the targets of the inline links outside code.
func links(md string) []string {
	md = fence.ReplaceAllString(md, "")
	md = htmlNote.ReplaceAllString(md, "")
	md = codeSpan.ReplaceAllString(md, "")
	var out []string
	for _, m := range inlineLink.FindAllStringSubmatch(md, -1) {
		out = append(out, strings.Trim(m[1], "<>"))
	}
	return out
}

// anchors gives the anchors of a Markdown file's headings as GitHub makes
// them: lower case, punctuation dropped, spaces as hyphens, repeats
// numbered (-1, -2, ...).
func anchors(md string) map[string]bool {
	md = fence.ReplaceAllString(md, "")
	out := map[string]bool{}
	seen := map[string]int{}
	for _, m := range heading.FindAllStringSubmatch(md, -1) {
		s := slug(m[1])
		if n := seen[s]; n > 0 {
			out[s+"-"+strconv.Itoa(n)] = true
		} else {
			out[s] = true
		}
		seen[s]++
	}
	return out
}

func slug(h string) string {
	h = strings.ToLower(strings.TrimSpace(h))
	h = notSlug.ReplaceAllString(h, "")
	return strings.ReplaceAll(h, " ", "-")
}

func TestSlug(t *testing.T) {
	for h, want := range map[string]string{
		"Long calls behind proxies: keep-alive modes": "long-calls-behind-proxies-keep-alive-modes",
		"Sizing `max_tokens`":                         "sizing-max_tokens",
		"Trace of one /v1/comments request":           "trace-of-one-v1comments-request",
		"What a review sees and says":                 "what-a-review-sees-and-says",
	} {
		if got := slug(h); got != want {
			t.Errorf("slug(%q) = %q, want %q", h, got, want)
		}
	}
	a := anchors("# A\n\n## B\n\n```\n# not a heading\n```\n\n## B\n")
	if !a["a"] || !a["b"] || !a["b-1"] || a["not-a-heading"] {
		t.Errorf("anchors = %v", a)
	}
}
