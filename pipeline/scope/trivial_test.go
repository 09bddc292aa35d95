package scope

import (
	"context"
	"strings"
	"testing"
)

func TestTrivialClass(t *testing.T) {
	for p, want := range map[string]string{
		"package-lock.json": ClassLockfile, "web/yarn.lock": ClassLockfile, "pnpm-lock.yaml": ClassLockfile, "go.sum": ClassLockfile,
		"Cargo.lock": ClassLockfile, "poetry.lock": ClassLockfile, "Gemfile.lock": ClassLockfile, "composer.lock": ClassLockfile,
		"api/v1/svc.pb.go": ClassGenerated, "pkg/zz_generated.deepcopy.go": ClassGenerated, "web/__generated__/a.ts": ClassGenerated,
		"src/generated/client.py": ClassGenerated, "x/api_pb2.py": ClassGenerated, "ui/a.generated.ts": ClassGenerated,
		"README.md": ClassDocs, "docs/index.html": ClassDocs, "svc/docs/setup.go": ClassDocs, "doc/x.go": ClassDocs,
		"notes.rst": ClassDocs, "CHANGELOG": ClassDocs, "LICENSE": ClassDocs, "guide.adoc": ClassDocs, "NOTES.TXT": ClassDocs,
		"main.go": "", "requirements.txt": "", "dev-requirements.txt": "", "CMakeLists.txt": "", "pkg/doc/doc.go": "",
		"go.mod": "", "package.json": "", "vendor/x/y.go": "", "Dockerfile": "", "docs": "",
	} {
		if got := TrivialClass(p); got != want {
			t.Errorf("TrivialClass(%q) = %q, want %q", p, got, want)
		}
	}
}

func TestPushReviews(t *testing.T) {
	file := func(push string) *RuleFile { return &RuleFile{Reviews: &ReviewSettings{Push: push}} }
	for _, c := range []struct {
		name                     string
		request, repo, service   *RuleFile
		fallback, want, wantFrom string
		warnings                 int
	}{
		{name: "setting", fallback: "off", want: PushOff},
		{name: "no setting", want: PushDelta},
		{name: "bad setting", fallback: "maybe", want: PushDelta},
		{name: "repository over setting", repo: file("off"), fallback: "delta", want: PushOff, wantFrom: ".prscout/rules.json@abc.reviews.push"},
		{name: "request over repository", request: file(" Delta "), repo: file("off"), want: PushDelta, wantFrom: "rules.reviews.push"},
		{name: "bad repository value", repo: file("never"), service: file("off"), fallback: "delta", want: PushOff, wantFrom: "svc.json.reviews.push", warnings: 1},
		{name: "no reviews key", repo: &RuleFile{}, fallback: "off", want: PushOff},
	} {
		rs, err := NewRuleSet(c.request, c.repo, ".prscout/rules.json@abc", c.service, "svc.json")
		if err != nil {
			t.Fatal(err)
		}
		got, from, warns := rs.PushReviews(c.fallback)
		if got != c.want || from != c.wantFrom || len(warns) != c.warnings {
			t.Errorf("%s: PushReviews = %q from %q, warnings %q; want %q from %q, %d warnings", c.name, got, from, warns, c.want, c.wantFrom, c.warnings)
		}
	}
	if _, err := ParseRuleFile([]byte(`{"reviews": {"push": "off", "pull": 1}}`), "rules"); err == nil {
		t.Error("an unknown key under reviews was accepted")
	}
}

// TestRulesCheckPushWarning: the rules check shows the warning a review
// gives for a bad reviews.push, and none for a good one.
func TestRulesCheckPushWarning(t *testing.T) {
	for push, want := range map[string]int{"off": 0, "sometimes": 1} {
		res, err := RulesCheck(context.Background(), nil, RulesCheckInput{Paths: []string{"a.go"},
			Rules: RulesField{File: &RuleFile{Reviews: &ReviewSettings{Push: push}}}})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Warnings) != want || (want > 0 && !strings.Contains(res.Warnings[0], `rules.reviews.push: "sometimes"`)) {
			t.Errorf("push %q: warnings %q, want %d", push, res.Warnings, want)
		}
	}
}
