// Package world is the scale test's fixture (scripts/e2e-scale.sh): Repos
// repositories of PRsPerRepo pull requests each. Every pull request adds one
// Go file with two planted defects that the fake LLM's review reports, and
// has a prepared push that adds a third defect its delta review reports.
// The fake Bitbucket builds the repositories from it, the fake LLM answers
// from it and the checker asserts against it.
package world

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Shape of the world.
const (
	Workspace  = "acme"
	Repos      = 8
	PRsPerRepo = 5
	Base       = "main"
	// FailingRepo is the repository whose comment posts fail for good
	// (HTTP 503): its reviews end with the build status STOPPED.
	FailingRepo = Repos
)

// Slug is repository r's slug (r from 1).
func Slug(r int) string { return fmt.Sprintf("svc%d", r) }

// PR is one pull request of the world.
type PR struct {
	Repo, ID int
}

// All lists every pull request, repository by repository.
func All() []PR {
	var out []PR
	for r := 1; r <= Repos; r++ {
		for p := 1; p <= PRsPerRepo; p++ {
			out = append(out, PR{r, p})
		}
	}
	return out
}

// Key is "svcR#P".
func (p PR) Key() string { return fmt.Sprintf("%s#%d", Slug(p.Repo), p.ID) }

// Tag identifies the pull request inside prompts and code: "r3p2".
func (p PR) Tag() string { return fmt.Sprintf("r%dp%d", p.Repo, p.ID) }

// Title is the pull request's title; the fake LLM finds the PR by its tag.
func (p PR) Title() string {
	return fmt.Sprintf("Scale %s: add feature %d to %s", p.Tag(), p.ID, Slug(p.Repo))
}

// Branch is the source branch.
func (p PR) Branch() string { return fmt.Sprintf("feature/f%d", p.ID) }

// Path is the file the pull request adds.
func (p PR) Path() string { return fmt.Sprintf("pkg/feat%d/feat.go", p.ID) }

var tagRe = regexp.MustCompile(`Scale r(\d+)p(\d+):`)

// ByText finds the pull request whose title appears in text.
func ByText(text string) (PR, bool) {
	m := tagRe.FindStringSubmatch(text)
	if m == nil {
		return PR{}, false
	}
	r, _ := strconv.Atoi(m[1])
	p, _ := strconv.Atoi(m[2])
	if r < 1 || r > Repos || p < 1 || p > PRsPerRepo {
		return PR{}, false
	}
	return PR{r, p}, true
}

// BaseFiles are the files of every repository's first commit.
func BaseFiles(r int) map[string]string {
	return map[string]string{
		"go.mod":    fmt.Sprintf("module example.com/%s\n\ngo 1.22\n", Slug(r)),
		"README.md": fmt.Sprintf("# %s\n\nA service of the scale test.\n", Slug(r)),
		"pkg/core/core.go": `package core

// Parse turns a decimal string into a number.
func Parse(s string) (int, error) {
	n := 0
	for _, c := range s {
		n = n*10 + int(c-'0')
	}
	return n, nil
}
`,
	}
}

// BaseNote is the file the main branch's p-th commit adds: every pull
// request branches from its own commit of main, so that each commit id the
// fake Bitbucket sees belongs to one pull request.
func BaseNote(p int) (string, string) {
	return fmt.Sprintf("docs/note%d.md", p), fmt.Sprintf("# Note %d\n\nBase of feature %d.\n", p, p)
}

// Finding is a planted defect: the line it is on and what its comment says.
type Finding struct {
	Line     string // the line's text in the file
	Title    string
	Severity string
	Body     string
}

func (p PR) findings() []Finding {
	return []Finding{
		{Line: fmt.Sprintf("\tn, _ := strconv.Atoi(s) // %s parse", p.Tag()), Title: fmt.Sprintf("Atoi error ignored (%s)", p.Tag()),
			Severity: "high", Body: "A malformed value silently becomes 0; return the error."},
		{Line: fmt.Sprintf("\t_ = os.Remove(path) // %s cleanup", p.Tag()), Title: fmt.Sprintf("Remove error dropped (%s)", p.Tag()),
			Severity: "medium", Body: "A file that cannot be removed is left behind unnoticed; log or return the error."},
	}
}

// PushFinding is the defect the prepared push adds.
func (p PR) PushFinding() Finding {
	return Finding{Line: fmt.Sprintf("\tlog.Printf(\"token %%s\", tok) // %s push", p.Tag()), Title: fmt.Sprintf("Token written to the log (%s)", p.Tag()),
		Severity: "high", Body: "Secrets must not reach the log; drop the token or mask it."}
}

// Findings are the review's findings of the pull request's head.
func (p PR) Findings() []Finding { return p.findings() }

// filler is documented code that makes the file look like a real change.
func filler(p PR, n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "\n// Step%d is step %d of feature %s.\nfunc Step%d(x int) int {\n\treturn x*%d + %d\n}\n", i, i, p.Tag(), i, i+1, i)
	}
	return b.String()
}

// Head is the added file at the pull request's head.
func (p PR) Head() string {
	f := p.findings()
	return fmt.Sprintf(`package feat%d

import (
	"os"
	"strconv"
)

// Load reads feature %s's setting and removes its temporary file.
func Load(s, path string) int {
%s
%s
	return n
}
`, p.ID, p.Tag(), f[0].Line, f[1].Line) + filler(p, 8)
}

// Pushed is the added file after the prepared push: the head plus a logging
// helper with the push's defect; the head's lines stay as they were.
func (p PR) Pushed() string {
	return strings.Replace(p.Head(), "import (\n", "import (\n\t\"log\"\n", 1) + fmt.Sprintf(`
// Audit records who loaded feature %s.
func Audit(tok string) {
%s
}
`, p.Tag(), p.PushFinding().Line)
}

// LineOf returns the 1-based line of text in content, or 0.
func LineOf(content, text string) int {
	for i, l := range strings.Split(content, "\n") {
		if l == text {
			return i + 1
		}
	}
	return 0
}

func findingsJSON(p PR, content string, fs []Finding) string {
	var parts []string
	for _, f := range fs {
		parts = append(parts, fmt.Sprintf(`{"path":%q,"line":%d,"existingCode":%q,"severity":%q,"title":%q,"body":%q}`,
			p.Path(), LineOf(content, f.Line), strings.TrimSpace(strings.SplitN(f.Line, " //", 2)[0]), f.Severity, f.Title, f.Body))
	}
	return "[" + strings.Join(parts, ",") + "]"
}

// ScoutAnswer is the scout's answer: nothing to look up.
const ScoutAnswer = `{"files":[]}`

// ReviewAnswer is the full review's answer.
func (p PR) ReviewAnswer() string {
	return fmt.Sprintf(`{"summary":"Feature %s drops two errors.","findings":%s}`, p.Tag(), findingsJSON(p, p.Head(), p.findings()))
}

// DeltaReviewAnswer is the delta review's answer (the push).
func (p PR) DeltaReviewAnswer() string {
	return fmt.Sprintf(`{"summary":"The push to %s logs a token.","findings":%s}`, p.Tag(), findingsJSON(p, p.Pushed(), []Finding{p.PushFinding()}))
}
