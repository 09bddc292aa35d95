package main

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/prscout/prscout/scripts/e2e/internal/fixture"
)

type comment struct {
	ID       int64
	Body     string
	Path     string
	From     *int
	To       *int
	Parent   *int64
	Deleted  bool
	Author   string
	Resolved bool
	// AccountID is the author's account id.
	AccountID string
}

// inlineCount checks how many inline comments PR id shows.
func (c *checker) inlineCount(control string, id, want int) {
	var cs []comment
	if err := getJSON(fmt.Sprintf("%s/_fake/comments?pr=%d", control, id), &cs); err != nil {
		c.check(false, "read comments: %v", err)
		return
	}
	n := 0
	for _, cm := range cs {
		if !cm.Deleted && cm.Path != "" {
			n++
		}
	}
	c.check(n == want, "PR %d has %d inline comment(s) (got %d)", id, want, n)
}

var (
	htmlRe    = regexp.MustCompile(`(?i)<!--|</?(details|summary|sub|sup|br|p|div|span|table|tr|td|a|img|b|i)\b[^>]*>`)
	linkRefRe = regexp.MustCompile(`^\[[^\]]+\]:\s*#\s*"[^"]*"\s*$`)
)

// visible returns what Bitbucket renders of a Markdown body: link reference
// definitions (prscout's hidden markers) render as nothing. It reports a
// marker that is not on its own line after a blank line.
func visible(body string) (string, []string) {
	var out []string
	var problems []string
	lines := strings.Split(body, "\n")
	for i, l := range lines {
		if linkRefRe.MatchString(strings.TrimSpace(l)) {
			if i > 0 && strings.TrimSpace(lines[i-1]) != "" && !linkRefRe.MatchString(strings.TrimSpace(lines[i-1])) {
				problems = append(problems, fmt.Sprintf("marker on line %d does not follow a blank line", i+1))
			}
			continue
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n"), problems
}

// comments checks the PR as a person sees it: one summary, the expected
// inline comments on the right lines, no HTML, no visible marker, nothing twice.
func (c *checker) comments(control string, pr fixture.PR) {
	c.commentsAs(control, pr.ID, pr.SummaryHas, pr.Inline, fixture.HeadFiles(pr))
	c.inlineCount(control, pr.ID, len(pr.Inline))
}

// summaryText returns PR id's summary comment as Bitbucket shows it.
func (c *checker) summaryText(control string, id int) string {
	var cs []comment
	if err := getJSON(fmt.Sprintf("%s/_fake/comments?pr=%d", control, id), &cs); err != nil {
		c.check(false, "read comments: %v", err)
		return ""
	}
	for _, cm := range cs {
		if !cm.Deleted && cm.Path == "" {
			text, _ := visible(cm.Body)
			return text
		}
	}
	return ""
}

// commentsAs checks PR id's comments against the given expectations; files
// are the head files the inline comments' lines are counted in. Other
// comments by earlier reviews may remain, but none may appear twice.
func (c *checker) commentsAs(control string, id int, summaryHas []string, want []fixture.ExpectedInline, head map[string]string) {
	var cs []comment
	if err := getJSON(fmt.Sprintf("%s/_fake/comments?pr=%d", control, id), &cs); err != nil {
		c.check(false, "read comments: %v", err)
		return
	}
	var summaries, inline []comment
	if showComments {
		for _, cm := range cs {
			where := "summary"
			if cm.Path != "" {
				where = fmt.Sprintf("inline %s:%d", cm.Path, deint(cm.To))
			}
			text, _ := visible(cm.Body)
			fmt.Printf("  --- comment %d (%s), as shown:\n      %s\n", cm.ID, where, strings.ReplaceAll(strings.TrimSpace(text), "\n", "\n      "))
		}
	}
	for _, cm := range cs {
		if cm.Deleted {
			continue
		}
		if cm.Path == "" {
			summaries = append(summaries, cm)
		} else {
			inline = append(inline, cm)
		}
	}
	c.check(len(summaries) == 1, "PR %d has exactly one summary comment (got %d)", id, len(summaries))
	for _, s := range summaries {
		text, problems := visible(s.Body)
		c.check(len(problems) == 0, "summary markers are hidden link definitions after a blank line %v", problems)
		c.check(!htmlRe.MatchString(s.Body), "summary holds no HTML (Bitbucket shows it as text)")
		c.check(!strings.Contains(text, "head=") && !strings.Contains(text, "[prscout"), "summary shows no marker text")
		for _, s := range summaryHas {
			c.check(strings.Contains(text, s), "summary shows %q", s)
		}
	}
	seen := map[string]int{}
	for _, cm := range inline {
		seen[fmt.Sprintf("%s:%d %s", cm.Path, deint(cm.To), firstLine(cm.Body))]++
	}
	dups := 0
	for k, n := range seen {
		if n > 1 {
			dups++
			c.check(false, "inline comment posted %d times: %s", n, k)
		}
	}
	c.check(dups == 0, "PR %d: no inline comment appears twice (%d inline in all)", id, len(inline))
	for _, want := range want {
		line := fixture.LineOf(head[want.Path], want.LineText)
		n := 0
		for _, cm := range inline {
			if cm.Path == want.Path && cm.To != nil && *cm.To == line && strings.Contains(cm.Body, want.BodyHas) {
				n++
				text, problems := visible(cm.Body)
				c.check(len(problems) == 0 && !htmlRe.MatchString(cm.Body) && !strings.Contains(text, "[prscout"),
					"inline comment on %s:%d has no HTML and no visible marker", want.Path, line)
			}
		}
		c.check(n == 1, "one inline comment %q on %s:%d (%s) (got %d)", want.BodyHas, want.Path, line, strings.TrimSpace(want.LineText), n)
	}
}

// memory checks review memory as a person sees it after a push: the
// summary table's rows ("State | Severity | title", in order), and the inline
// threads: those of the resolved findings resolved, the others open.
func (c *checker) memory(control string, id int, rows, resolved []string) {
	var cs []comment
	if err := getJSON(fmt.Sprintf("%s/_fake/comments?pr=%d", control, id), &cs); err != nil {
		c.check(false, "read comments: %v", err)
		return
	}
	var got []string
	for _, cm := range cs {
		if cm.Deleted || cm.Path != "" || !strings.Contains(cm.Body, "| State | Severity | Where | Finding |") {
			continue
		}
		// The findings table: from its header to the next blank line.
		in := false
		for _, l := range strings.Split(cm.Body, "\n") {
			switch {
			case strings.HasPrefix(l, "| State | Severity | Where | Finding |"):
				in = true
				continue
			case strings.TrimSpace(l) == "":
				in = false
			}
			cells := strings.Split(strings.Trim(l, "| "), " | ")
			if !in || len(cells) != 4 || strings.HasPrefix(cells[0], "---") {
				continue
			}
			got = append(got, cells[0]+" | "+cells[1]+" | "+cells[3])
			c.check(strings.Contains(cells[2], "](") && strings.Contains(cells[2], "#comment-"), "table row %q links its inline comment: %s", cells[3], cells[2])
		}
	}
	c.check(strings.Join(got, "\n") == strings.Join(rows, "\n"), "summary table rows (new / still open / resolved):\n      %s\n    want\n      %s",
		strings.Join(got, "\n      "), strings.Join(rows, "\n      "))
	for _, cm := range cs {
		if cm.Deleted || cm.Path == "" || cm.Parent != nil {
			continue
		}
		title := firstLine(cm.Body)
		want := false
		for _, r := range resolved {
			want = want || strings.Contains(title, r)
		}
		c.check(cm.Resolved == want, "inline thread %d (%s) resolved=%v, want %v", cm.ID, title, cm.Resolved, want)
	}
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return l
}
