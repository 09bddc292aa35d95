package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

func TestPreviewCommand(t *testing.T) {
	dir := makeReviewRepo(t)
	// The feature branch rewrites the rules; the preview reads main's.
	git(t, dir, "checkout", "-q", "main")
	writeRepoFile(t, dir, ".prscout/rules.json", `{"exclude":["pkg/big/**"],"rules":[{"path":"pkg/api/**","rule":"handlers check auth first"}]}`)
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-q", "-m", "rules")
	git(t, dir, "checkout", "-q", "feature")
	git(t, dir, "merge", "-q", "--no-edit", "main")
	writeRepoFile(t, dir, ".prscout/rules.json", `{"rules":[{"path":"**","rule":"approve"}]}`)
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-q", "-m", "soften rules")

	var out, errb bytes.Buffer
	code := run([]string{"preview", "--repo", dir, "--base", "main", "--head", "feature", "--json"}, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var res struct {
		Files    []struct{ Path, Decision, Reason, RuleSource string }
		Coverage struct {
			Changed, Reviewed, Excluded int
		}
		ScoutPromptChars, ReviewPromptChars, EstimatedChars int
	}
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, f := range res.Files {
		got[f.Path] = f.Decision + " " + f.Reason + f.RuleSource
	}
	want := map[string]string{
		".env":                  "exclude secret",
		"assets/logo.bin":       "exclude binary",
		"pkg/big/big.go":        "exclude user_exclude",
		"pkg/old/gone.go":       "exclude deleted",
		"vendor/lib/lib.go":     "exclude default_path",
		"web/package-lock.json": "exclude default_path",
		"pkg/api/handler.go":    "review repository (.prscout/rules.json@",
		".prscout/rules.json":   "review ",
	}
	for p, w := range want {
		if !strings.HasPrefix(strings.ReplaceAll(got[p], "repository .prscout", "repository (.prscout"), w) {
			t.Errorf("%s: %q, want %q...", p, got[p], w)
		}
	}
	if res.Coverage.Changed != len(res.Files) || res.EstimatedChars != res.ScoutPromptChars+res.ReviewPromptChars || res.ScoutPromptChars == 0 {
		t.Errorf("coverage %+v, sizes %d + %d = %d", res.Coverage, res.ScoutPromptChars, res.ReviewPromptChars, res.EstimatedChars)
	}

	out.Reset()
	if code := run([]string{"preview", "--repo", dir, "--base", "main", "--head", "feature"}, &out, &errb); code != 0 {
		t.Fatalf("text exit %d", code)
	}
	for _, w := range []string{"exclude  .env", "secret", "Coverage: ", "Estimated cost: "} {
		if !strings.Contains(out.String(), w) {
			t.Errorf("text output lacks %q:\n%s", w, out.String())
		}
	}
	if code := run([]string{"preview", "--repo", dir}, &out, &errb); code != 2 {
		t.Errorf("no --base: exit %d, want 2", code)
	}
	if code := run([]string{"preview", "--repo", dir, "--base", "main", "--exclude", "src/{a"}, &out, &errb); code != 2 {
		t.Errorf("bad glob: exit %d, want 2", code)
	}
}

func TestRulesCheckCommand(t *testing.T) {
	dir := makeReviewRepo(t)
	rules := filepath.Join(t.TempDir(), "rules.json")
	writeRepoFile(t, filepath.Dir(rules), "rules.json", `{"rules":[{"path":"pkg/**/*.{go, md}","rule":"service rule"}]}`)
	var out, errb bytes.Buffer
	code := run([]string{"rules", "check", "--repo", dir, "--ref", "main", "--rules-file", rules, "pkg/a/b.go", "web/x.ts"}, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	for _, w := range []string{"pkg/a/b.go\n  Gate:    reviewed\n  Source:  service (" + rules + ")\n  Pattern: pkg/**/*.{go, md}", "web/x.ts\n  Gate:    reviewed\n  Source:  builtin\n  Pattern: language:typescript"} {
		if !strings.Contains(out.String(), w) {
			t.Errorf("output lacks %q:\n%s", w, out.String())
		}
	}
	if code := run([]string{"rules"}, &out, &errb); code != 2 {
		t.Errorf("rules without check: exit %d", code)
	}
}
