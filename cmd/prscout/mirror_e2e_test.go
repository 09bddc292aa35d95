package main

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/prscout/prscout/bitbucket/bitbuckettest"
)

// restCalls keeps the REST API calls of a run's calls (git fetches apart).
func restCalls(calls map[string]int) (rest map[string]int, restTotal, gitTotal int) {
	rest = map[string]int{}
	for op, n := range calls {
		if bitbuckettest.IsGitOp(op) {
			gitTotal += n
			continue
		}
		rest[op] = n
		restTotal += n
	}
	return rest, restTotal, gitTotal
}

// TestBitbucketMirror is the mirror's end-to-end test with the real binary:
// the fake Bitbucket serves the repository over git's smart HTTP behind the
// same credentials; a wrong token is refused; the same full review runs
// without a mirror, with a cold one (the first clone starts when the pull
// request is read) and with a warm one, and the REST calls of each are
// compared (the figures docs/bitbucket-jira.md quotes). The context answer lists the
// candidates, and a review whose scout asks for nothing still fetches the
// top candidate, from the mirror.
func TestBitbucketMirror(t *testing.T) {
	f := newBBFixture(t)
	fake := f.fake
	if err := fake.ServeGit(bbWorkspace, bbSlug, filepath.Join(f.dir, ".git")); err != nil {
		t.Fatal(err)
	}
	for _, id := range []int{21, 22, 23, 24} {
		f.pr(id, "Reject empty tokens", f.h1, f.base)
	}

	// Git with a wrong token is refused, as Bitbucket does.
	cloneURL := fake.URL + "/" + bbWorkspace + "/" + bbSlug + ".git"
	lsRemote := func(user, token string) error {
		cmd := exec.Command("git", "ls-remote", cloneURL)
		hdr := "Authorization: Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+token))
		cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
			"GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=http.extraHeader", "GIT_CONFIG_VALUE_0="+hdr)
		out, err := cmd.CombinedOutput()
		if err != nil {
			return fmt.Errorf("%w: %s", err, bytes.TrimSpace(out))
		}
		return nil
	}
	if err := lsRemote("x-bitbucket-api-token-auth", "wrong-token"); err == nil {
		t.Fatal("git with a wrong token was not refused")
	} else {
		t.Logf("git with a wrong token: %v", err)
	}
	if err := lsRemote("x-bitbucket-api-token-auth", bbToken); err != nil {
		t.Fatalf("git with the API token: %v", err)
	}

	// Without a mirror: the warning, no candidates.
	plain := startBB(t, fake)
	before := plain.review(t, fake, 21, bbScout, reviewOf("Two findings.", findingLookup, findingEmpty))
	if n := len(list(before.ctx["candidates"])); n != 0 {
		t.Errorf("without a mirror %d candidates were listed", n)
	}
	if w := fmt.Sprint(before.ctx["warnings"]); !strings.Contains(w, "PRSCOUT_MIRROR_DIR is not set") {
		t.Errorf("without a mirror the warnings do not say it is off: %v", w)
	}

	mirrorDir := t.TempDir()
	var s *server
	// Registered first, so it runs after the server stopped (cleanups run
	// last in, first out) and its whole log is written: debug level logs
	// every upstream call, none may show the token.
	t.Cleanup(func() {
		if s != nil && strings.Contains(s.logs.String(), bbToken) {
			t.Errorf("the token is in prscout's log")
		}
	})
	s = startBB(t, fake, "PRSCOUT_MIRROR_DIR="+mirrorDir, "PRSCOUT_LOG_LEVEL=debug")
	cold := s.review(t, fake, 22, bbScout, reviewOf("Two findings.", findingLookup, findingEmpty))
	warm := s.review(t, fake, 23, bbScout, reviewOf("Two findings.", findingLookup, findingEmpty))

	for _, r := range []struct {
		name string
		run  reviewRun
	}{{"cold", cold}, {"warm", warm}} {
		t.Logf("%s mirror: warnings %v, candidatesMs %v", r.name, r.run.ctx["warnings"], obj(r.run.ctx["stats"])["candidatesMs"])
		cands := list(r.run.ctx["candidates"])
		if len(cands) != 1 || obj(cands[0])["path"] != "pkg/auth/token.go" || obj(cands[0])["kind"] != "uses" {
			t.Errorf("%s mirror: candidates = %v, want pkg/auth/token.go (uses: Validate)", r.name, cands)
		} else {
			t.Logf("%s mirror: candidate %v", r.name, cands[0])
		}
		if st := obj(obj(r.run.needs["stats"])["candidates"]); st["askedByScout"] != float64(1) || st["added"] != float64(0) {
			t.Errorf("%s mirror: needs candidate stats = %v, want the scout's own request for token.go counted", r.name, st)
		}
		if len(list(r.run.batch["results"])) != 3 {
			t.Errorf("%s mirror: batch results = %v", r.name, r.run.batch["results"])
		}
	}
	// The mirror: a bare partial clone, the token in none of its files.
	m := filepath.Join(mirrorDir, bbWorkspace, bbSlug)
	if out, err := exec.Command("git", "-C", m, "config", "remote.origin.partialclonefilter").Output(); err != nil || strings.TrimSpace(string(out)) != "blob:none" {
		t.Errorf("mirror %s is not a blob-less partial clone: %q, %v", m, out, err)
	}
	_ = filepath.WalkDir(mirrorDir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if b, _ := os.ReadFile(p); bytes.Contains(b, []byte(bbToken)) {
				t.Errorf("the token is stored in %s", p)
			}
		}
		return nil
	})

	beforeOps, beforeREST, _ := restCalls(before.calls)
	coldOps, coldREST, coldGit := restCalls(cold.calls)
	warmOps, warmREST, warmGit := restCalls(warm.calls)
	t.Logf("REST calls per full review: no mirror %s", fmtCalls(beforeOps))
	t.Logf("REST calls per full review: cold mirror %s; git requests %d", fmtCalls(coldOps), coldGit)
	t.Logf("REST calls per full review: warm mirror %s; git requests %d", fmtCalls(warmOps), warmGit)
	if coldGit == 0 {
		t.Errorf("the cold review made no git request: the mirror was not fetched")
	}
	if warmREST >= beforeREST {
		t.Errorf("a warm mirror saves no REST call: %d with, %d without", warmREST, beforeREST)
	}
	for _, op := range []string{bitbuckettest.OpGetSrc, bitbuckettest.OpListDir, bitbuckettest.OpGetCommit} {
		if warmOps[op] != 0 {
			t.Errorf("warm mirror: %d %s calls, want 0 (read from the mirror)", warmOps[op], op)
		}
	}
	// prscout's own metrics count only REST calls as upstream calls.
	for _, r := range []struct {
		name string
		run  reviewRun
		rest int
	}{{"cold", cold, coldREST}, {"warm", warm, warmREST}} {
		var sum float64
		for _, v := range r.run.metrics {
			sum += v
		}
		if int(sum) != r.rest {
			t.Errorf("%s: prscout_upstream_requests_total rose by %v, the fake saw %d REST calls", r.name, sum, r.rest)
		}
	}
	metrics := s.metricsText(t)
	for series, min := range map[string]float64{
		`prscout_mirror_reads_total{source="mirror"}`:                                         1,
		`prscout_mirror_fetches_total{outcome="ok"}`:                                          1,
		`prscout_candidates_total{outcome="listed"}`:                                          2,
		`prscout_candidates_total{outcome="asked_by_scout"}`:                                  2,
		`prscout_candidates_listed_count`:                                                     2,
		`prscout_candidates_duration_seconds_count`:                                           2,
		`prscout_mirror_fetch_duration_seconds_count`:                                         1,
		`prscout_candidates_total{outcome="added"}`:                                           0,
		`prscout_mirror_fetches_total{outcome="failed"}`:                                      0,
		`prscout_upstream_requests_total{code="200",operation="get_src",service="bitbucket"}`: 0,
	} {
		if v := metricValue(metrics, series); v < min {
			t.Errorf("%s = %v, want at least %v", series, v, min)
		}
	}

	// The scout asks for nothing: the top candidate is fetched anyway, from
	// the mirror, and reaches the review prompt.
	mark := len(fake.Requests())
	empty := s.review(t, fake, 24, `{"files":[]}`, reviewOf("Fine.", findingEmpty))
	reqs := list(empty.needs["requests"])
	if empty.needs["skip"] != false || len(reqs) != 1 || obj(reqs[0])["path"] != "pkg/auth/token.go" || obj(reqs[0])["source"] != "candidate" {
		t.Errorf("needs with an empty scout = skip %v, requests %v; want token.go from the candidates", empty.needs["skip"], reqs)
	}
	if !strings.Contains(fmt.Sprint(obj(empty.merged["reviewPrompt"])["user"]), "func Validate(tok string) bool") {
		t.Errorf("the review prompt lacks the candidate's content")
	}
	if n := callsSince(fake, mark)[bitbuckettest.OpGetSrc]; n != 0 {
		t.Errorf("the candidate was read through REST (%d get_src)", n)
	}

	// docs/bitbucket-jira.md quotes the REST calls per full review with a mirror.
	readme, err := os.ReadFile("../../docs/bitbucket-jira.md")
	if err != nil {
		t.Fatal(err)
	}
	quoted := map[string]int{}
	for _, m := range regexp.MustCompile(`(?m)^\| full, (no mirror|cold mirror|warm mirror) [^|]*\| (\d+) \|`).FindAllStringSubmatch(string(readme), -1) {
		quoted[m[1]], _ = strconv.Atoi(m[2])
	}
	for name, n := range map[string]int{"no mirror": beforeREST, "warm mirror": warmREST} {
		if quoted[name] != n {
			t.Errorf("docs/bitbucket-jira.md says %d REST calls for a full review with %s, measured %d: update the table", quoted[name], name, n)
		}
	}
	// The cold figure depends on how fast the first clone is: between the two.
	if q := quoted["cold mirror"]; q < warmREST || q > beforeREST {
		t.Errorf("docs/bitbucket-jira.md says %d REST calls for a full review with a cold mirror, outside %d..%d", q, warmREST, beforeREST)
	}
}
