// Command fakebitbucket runs bitbuckettest's fake Bitbucket Cloud API as a
// standalone loopback process for the n8n end-to-end test, loaded with the
// fixture's repository: a real git repository is built in a temporary
// folder so that commit ids and diffs are git's own.
//
// Two listeners: the API (give PRSCOUT_BITBUCKET_BASE_URL its "api" URL) and
// a control API for the test:
//
//	GET  /_fake/state                  {api, prs:[{id, title, head, base}]}
//	GET  /_fake/comments?pr=N          the PR's comments (deleted ones included), in order
//	GET  /_fake/calls                  {op: count} per Bitbucket operation (git_* are
//	                                   git's smart HTTP requests, not REST calls)
//	GET  /_fake/insights?commit=SHA    the commit's build status "prscout" (status, null
//	                                   when none; States lists every state posted), its
//	                                   reports by id and the annotations of report "prscout"
//	GET  /_fake/event?pr=N             the pullrequest webhook body
//	POST /_fake/push?pr=N              move the PR's head to its prepared push commit
//	POST /_fake/state?pr=N&state=S     set the PR's state (OPEN, MERGED, DECLINED)
//	POST /_fake/draft?pr=N&draft=B     set the PR's draft flag (false: marked ready for
//	                                   review); the fixture opens its draft PRs as drafts
//	POST /_fake/deliver?pr=N&event=K   deliver that webhook to -webhook-url as Bitbucket
//	                                   does (X-Event-Key, X-Hub-Signature sha256 HMAC of
//	                                   the raw body, X-Request-UUID); &badsig=1 signs with
//	                                   a wrong secret. Answers {status, body}.
//	                                   &comment=ID delivers a comment event
//	                                   (pullrequest:comment_*) about that comment instead
//	POST /_fake/reply?pr=N&parent=ID&as=WHO&body=TEXT
//	                                   a comment by WHO (human: a reviewer; self: prscout's
//	                                   own account; bot: an app_user account), a reply to
//	                                   comment ID (&under=TEXT: to the top-level inline
//	                                   comment whose body contains TEXT; neither: a
//	                                   general comment), then its pullrequest:comment_created
//	                                   event delivered as above (&deliver=0: not delivered).
//	                                   Answers {commentId, parentId, status, body}
//	POST /_fake/commit?pr=N[&path=P]   a new commit on the PR's branch (a line added at the
//	                                   end of file P, else one more file under notes/),
//	                                   with its diffs, made the PR's head
//	POST /_fake/merge?pr=N[&path=P...] merge any pull request of the fake (one prscout opened
//	                                   too): a commit on the destination branch, in git and
//	                                   in the fake, with the source branch's versions of the
//	                                   files P (default .prscout/rules.json); open fixture
//	                                   PRs into that branch follow its new head
//	GET  /_fake/pullrequests           every pull request of the fake, by id: {id, title,
//	                                   description, state, source, destination}
//	GET  /_fake/file?rev=R&path=P      a file at a branch or commit (404 when absent)
//
// The repository is also served over git's smart HTTP at the API's host,
// {host}/acme/shop.git, behind the same token (x-token-auth), for prscout's
// repository mirror.
//
// The bound URLs are written to -state-file as {"api": ..., "control": ...}.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/prscout/prscout/bitbucket/bitbuckettest"
	"github.com/prscout/prscout/scripts/e2e/internal/fixture"
	"github.com/prscout/prscout/scripts/e2e/internal/webhook"
)

type prState struct {
	ID    int    `json:"id"`
	Title string `json:"title"`
	Head  string `json:"head"`
	Base  string `json:"base"`
	// Push is the commit /_fake/push makes the head ("" when none).
	Push string `json:"push,omitempty"`
}

func main() {
	stateFile := flag.String("state-file", "", "write {api, control} URLs here once listening")
	token := flag.String("token", "", "bearer token the API requires (empty: any)")
	webhookURL := flag.String("webhook-url", "", "where /_fake/deliver posts webhooks")
	secret := flag.String("webhook-secret", "", "webhook secret used to sign deliveries")
	flag.Parse()

	fake := bitbuckettest.NewServer() // listens on 127.0.0.1:<random>
	defer fake.Close()
	if *token != "" {
		fake.RequireBearer(*token)
	}
	prs, gitDir, err := loadFixture(fake)
	if err != nil {
		log.Fatalf("fakebitbucket: load fixture: %v", err)
	}
	defer os.RemoveAll(gitDir)
	// The same repository over git's smart HTTP, for prscout's mirror:
	// {api without /2.0}/acme/shop.git, behind the same token.
	if err := fake.ServeGit(fixture.Workspace, fixture.RepoSlug, filepath.Join(gitDir, ".git")); err != nil {
		log.Fatalf("fakebitbucket: serve git: %v", err)
	}

	g := &gitRepo{dir: gitDir, base: prs[0].Base}
	var ctlMu sync.Mutex // /_fake/commit and /_fake/merge change prs and the repository
	// history[id] is every head PR id had, the current one last.
	history := map[int][]string{}
	for _, st := range prs {
		history[st.ID] = []string{st.Head}
	}

	ctl := http.NewServeMux()
	ctl.HandleFunc("GET /_fake/state", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"api": fake.BaseURL, "prs": prs})
	})
	ctl.HandleFunc("GET /_fake/comments", func(w http.ResponseWriter, r *http.Request) {
		id, _ := strconv.Atoi(r.URL.Query().Get("pr"))
		cs := fake.Comments(fixture.Workspace, fixture.RepoSlug, id)
		if cs == nil {
			cs = []bitbuckettest.Comment{}
		}
		writeJSON(w, http.StatusOK, cs)
	})
	ctl.HandleFunc("GET /_fake/calls", func(w http.ResponseWriter, r *http.Request) {
		out := map[string]int{}
		for _, op := range []string{bitbuckettest.OpGetPullRequest, bitbuckettest.OpPRDiff, bitbuckettest.OpPRDiffstat,
			bitbuckettest.OpGetDiff, bitbuckettest.OpDiffstat, bitbuckettest.OpGetCommit, bitbuckettest.OpMergeBase,
			bitbuckettest.OpGetSrc, bitbuckettest.OpListDir, bitbuckettest.OpListComments, bitbuckettest.OpGetComment,
			bitbuckettest.OpCreateComment, bitbuckettest.OpUpdateComment, bitbuckettest.OpDeleteComment,
			bitbuckettest.OpPRCommits, bitbuckettest.OpResolveComment, bitbuckettest.OpReopenComment,
			bitbuckettest.OpGitInfoRefs, bitbuckettest.OpGitUploadPack} {
			out[op] = fake.Calls(op)
		}
		for _, op := range bitbuckettest.InsightsOps {
			out[op] = fake.Calls(op)
		}
		writeJSON(w, http.StatusOK, out)
	})
	ctl.HandleFunc("GET /_fake/insights", func(w http.ResponseWriter, r *http.Request) {
		commit := r.URL.Query().Get("commit")
		out := map[string]any{
			"status":      nil,
			"reports":     fake.Reports(fixture.Workspace, fixture.RepoSlug, commit),
			"annotations": fake.Annotations(fixture.Workspace, fixture.RepoSlug, commit, "prscout"),
		}
		if st, ok := fake.Status(fixture.Workspace, fixture.RepoSlug, commit, "prscout"); ok {
			out["status"] = st
		}
		writeJSON(w, http.StatusOK, out)
	})
	ctl.HandleFunc("POST /_fake/push", func(w http.ResponseWriter, r *http.Request) {
		id, _ := strconv.Atoi(r.URL.Query().Get("pr"))
		for i, st := range prs {
			if st.ID != id || st.Push == "" {
				continue
			}
			pr := fixture.PRs[i]
			fake.SetBranch(fixture.Workspace, fixture.RepoSlug, pr.Branch, st.Push)
			fake.AddPullRequest(fixture.Workspace, fixture.RepoSlug, bitbuckettest.PullRequest{
				ID: pr.ID, Title: pr.Title, Description: pr.Description, Author: fixture.AuthorOf(pr),
				SourceBranch: pr.Branch, DestinationBranch: fixture.Base,
				SourceCommit: st.Push, DestinationCommit: st.Base,
			})
			writeJSON(w, http.StatusOK, map[string]string{"head": st.Push})
			return
		}
		writeJSON(w, http.StatusNotFound, map[string]string{"error": "no push prepared for this pull request"})
	})
	ctl.HandleFunc("POST /_fake/state", func(w http.ResponseWriter, r *http.Request) {
		id, _ := strconv.Atoi(r.URL.Query().Get("pr"))
		state := r.URL.Query().Get("state")
		switch state {
		case "OPEN", "MERGED", "DECLINED", "SUPERSEDED":
		default:
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "state must be OPEN, MERGED, DECLINED or SUPERSEDED"})
			return
		}
		if !fake.SetPullRequestState(fixture.Workspace, fixture.RepoSlug, id, state) {
			writeJSON(w, http.StatusNotFound, map[string]string{"error": "no such pull request"})
			return
		}
		writeJSON(w, http.StatusOK, map[string]string{"state": state})
	})
	ctl.HandleFunc("POST /_fake/draft", func(w http.ResponseWriter, r *http.Request) {
		id, _ := strconv.Atoi(r.URL.Query().Get("pr"))
		draft, err := strconv.ParseBool(r.URL.Query().Get("draft"))
		if err != nil {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "draft must be true or false"})
			return
		}
		if !fake.SetPullRequestDraft(fixture.Workspace, fixture.RepoSlug, id, draft) {
			writeJSON(w, http.StatusNotFound, map[string]string{"error": "no such pull request"})
			return
		}
		writeJSON(w, http.StatusOK, map[string]bool{"draft": draft})
	})
	ctl.HandleFunc("GET /_fake/event", func(w http.ResponseWriter, r *http.Request) {
		id, _ := strconv.Atoi(r.URL.Query().Get("pr"))
		body := fake.PullRequestEvent(fixture.Workspace, fixture.RepoSlug, id)
		if body == nil {
			writeJSON(w, http.StatusNotFound, map[string]string{"error": "no such pull request"})
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	})
	ctl.HandleFunc("POST /_fake/deliver", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		id, _ := strconv.Atoi(q.Get("pr"))
		body := fake.PullRequestEvent(fixture.Workspace, fixture.RepoSlug, id)
		if cid, _ := strconv.ParseInt(q.Get("comment"), 10, 64); cid > 0 && body != nil {
			if body = commentEvent(fake, id, cid); body == nil {
				writeJSON(w, http.StatusNotFound, map[string]string{"error": "no such comment on the pull request"})
				return
			}
		}
		if body == nil || *webhookURL == "" {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "unknown pr or no -webhook-url"})
			return
		}
		event := q.Get("event")
		if event == "" {
			event = "pullrequest:created"
		}
		key := []byte(*secret)
		if q.Get("badsig") != "" {
			key = []byte("not-the-secret")
		}
		a, err := webhook.Deliver(r.Context(), *webhookURL, event, key, body)
		if err != nil {
			writeJSON(w, http.StatusBadGateway, map[string]string{"error": err.Error()})
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{"status": a.Status, "body": a.Body})
	})

	ctl.HandleFunc("POST /_fake/reply", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		id, _ := strconv.Atoi(q.Get("pr"))
		if fake.PullRequestEvent(fixture.Workspace, fixture.RepoSlug, id) == nil {
			writeJSON(w, http.StatusNotFound, map[string]string{"error": "no such pull request"})
			return
		}
		c := bitbuckettest.Comment{Body: q.Get("body"), CreatedOn: time.Now()}
		if strings.TrimSpace(c.Body) == "" {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "body: required"})
			return
		}
		switch q.Get("as") {
		case "human", "":
			c.Author, c.AccountID = "Jo Reviewer", "user-joreviewer"
		case "self":
			c.Author, c.AccountID = "prscout bot", bitbuckettest.DefaultAccountID
		case "bot":
			c.Author, c.AccountID, c.AccountType = "Deploy Bot", "deploy-bot", "app_user"
		default:
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "as: want human, self or bot"})
			return
		}
		var parent int64
		if v := q.Get("parent"); v != "" {
			parent, _ = strconv.ParseInt(v, 10, 64)
		} else if under := q.Get("under"); under != "" {
			for _, cm := range fake.Comments(fixture.Workspace, fixture.RepoSlug, id) {
				if cm.Parent == nil && cm.Path != "" && !cm.Deleted && strings.Contains(cm.Body, under) {
					parent = cm.ID
				}
			}
			if parent == 0 {
				writeJSON(w, http.StatusNotFound, map[string]string{"error": "no inline comment holds " + strconv.Quote(under)})
				return
			}
		}
		if parent > 0 {
			c.Parent = &parent
		}
		cid := fake.AddComment(fixture.Workspace, fixture.RepoSlug, id, c)
		out := map[string]any{"commentId": cid, "parentId": parent}
		if q.Get("deliver") != "0" {
			body := commentEvent(fake, id, cid)
			a, err := webhook.Deliver(r.Context(), *webhookURL, "pullrequest:comment_created", []byte(*secret), body)
			if err != nil {
				writeJSON(w, http.StatusBadGateway, map[string]string{"error": err.Error()})
				return
			}
			out["status"], out["body"] = a.Status, a.Body
		}
		writeJSON(w, http.StatusOK, out)
	})
	ctl.HandleFunc("POST /_fake/commit", func(w http.ResponseWriter, r *http.Request) {
		ctlMu.Lock()
		defer ctlMu.Unlock()
		id, _ := strconv.Atoi(r.URL.Query().Get("pr"))
		cur, ok := fake.PullRequests(fixture.Workspace, fixture.RepoSlug)[id]
		if !ok {
			writeJSON(w, http.StatusNotFound, map[string]string{"error": "no such pull request"})
			return
		}
		path := r.URL.Query().Get("path")
		if path == "" {
			path = fmt.Sprintf("notes/change-%d.md", len(history[id]))
		}
		if strings.Contains(path, "..") || strings.HasPrefix(path, "/") {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "path: want a path inside the repository"})
			return
		}
		head, err := g.commitOn(fake, cur, history[id], path)
		if err != nil {
			writeJSON(w, http.StatusInternalServerError, map[string]string{"error": err.Error()})
			return
		}
		history[id] = append(history[id], head)
		writeJSON(w, http.StatusOK, map[string]string{"head": head})
	})
	ctl.HandleFunc("POST /_fake/merge", func(w http.ResponseWriter, r *http.Request) {
		ctlMu.Lock()
		defer ctlMu.Unlock()
		q := r.URL.Query()
		id, _ := strconv.Atoi(q.Get("pr"))
		pr, ok := fake.PullRequests(fixture.Workspace, fixture.RepoSlug)[id]
		if !ok || pr.State != "OPEN" {
			writeJSON(w, http.StatusNotFound, map[string]string{"error": "no open pull request with this id"})
			return
		}
		files := q["path"]
		if len(files) == 0 {
			files = []string{".prscout/rules.json"}
		}
		merged, err := g.merge(fake, pr, files)
		if err != nil {
			writeJSON(w, http.StatusInternalServerError, map[string]string{"error": err.Error()})
			return
		}
		// Open fixture PRs into the branch now compare with its new head;
		// their changes (three-dot, from the merge base) are the same.
		followed := []int{}
		for _, other := range fake.PullRequests(fixture.Workspace, fixture.RepoSlug) {
			if other.State != "OPEN" || other.DestinationBranch != pr.DestinationBranch || history[other.ID] == nil {
				continue
			}
			if err := g.setDiffs(fake, g.base, merged, other.SourceCommit); err != nil {
				writeJSON(w, http.StatusInternalServerError, map[string]string{"error": err.Error()})
				return
			}
			other.DestinationCommit = merged
			fake.AddPullRequest(fixture.Workspace, fixture.RepoSlug, other)
			followed = append(followed, other.ID)
		}
		sort.Ints(followed)
		writeJSON(w, http.StatusOK, map[string]any{"merged": merged, "followed": followed})
	})
	ctl.HandleFunc("GET /_fake/pullrequests", func(w http.ResponseWriter, r *http.Request) {
		all := fake.PullRequests(fixture.Workspace, fixture.RepoSlug)
		out := []map[string]any{}
		for _, pr := range all {
			out = append(out, map[string]any{"id": pr.ID, "title": pr.Title, "description": pr.Description, "state": pr.State,
				"source": pr.SourceBranch, "destination": pr.DestinationBranch})
		}
		sort.Slice(out, func(i, j int) bool { return out[i]["id"].(int) < out[j]["id"].(int) })
		writeJSON(w, http.StatusOK, out)
	})
	ctl.HandleFunc("GET /_fake/file", func(w http.ResponseWriter, r *http.Request) {
		b, ok := fake.FileAt(fixture.Workspace, fixture.RepoSlug, r.URL.Query().Get("rev"), r.URL.Query().Get("path"))
		if !ok {
			writeJSON(w, http.StatusNotFound, map[string]string{"error": "no such file"})
			return
		}
		_, _ = w.Write(b)
	})

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	if *stateFile != "" {
		b, _ := json.Marshal(map[string]string{"api": fake.BaseURL, "control": "http://" + ln.Addr().String()})
		if err := os.WriteFile(*stateFile, b, 0o644); err != nil {
			log.Fatal(err)
		}
	}
	log.Printf("fakebitbucket: api %s, control http://%s", fake.BaseURL, ln.Addr())
	srv := &http.Server{Handler: ctl, ReadHeaderTimeout: 10 * time.Second}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		log.Fatal(err)
	}
}

// loadFixture builds the fixture's git repository and loads it into the
// fake; it returns the repository's directory (the caller removes it).
func loadFixture(fake *bitbuckettest.Server) ([]prState, string, error) {
	dir, err := os.MkdirTemp("", "prscout-fakebb-")
	if err != nil {
		return nil, "", err
	}
	prs, err := loadInto(fake, dir)
	if err != nil {
		os.RemoveAll(dir)
		return nil, "", err
	}
	return prs, dir, nil
}

// loadInto builds the fixture's git repository in dir and loads it into the fake.
func loadInto(fake *bitbuckettest.Server, dir string) ([]prState, error) {
	git := func(args ...string) (string, error) {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(),
			"GIT_AUTHOR_NAME=Mina Park", "GIT_AUTHOR_EMAIL=mina@example.invalid",
			"GIT_COMMITTER_NAME=Mina Park", "GIT_COMMITTER_EMAIL=mina@example.invalid",
			"GIT_AUTHOR_DATE=2026-11-02T09:00:00Z", "GIT_COMMITTER_DATE=2026-11-02T09:00:00Z",
			"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
		out, err := cmd.CombinedOutput()
		if err != nil {
			return "", fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, out)
		}
		return string(out), nil
	}
	write := func(files map[string]string) error {
		for p, c := range files {
			full := filepath.Join(dir, filepath.FromSlash(p))
			if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
				return err
			}
			if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
				return err
			}
		}
		return nil
	}
	commit := func(msg string) (string, error) {
		if _, err := git("add", "-A"); err != nil {
			return "", err
		}
		if _, err := git("commit", "-q", "-m", msg); err != nil {
			return "", err
		}
		out, err := git("rev-parse", "HEAD")
		return strings.TrimSpace(out), err
	}

	ws, slug := fixture.Workspace, fixture.RepoSlug
	if _, err := git("init", "-q", "-b", fixture.Base); err != nil {
		return nil, err
	}
	if err := write(fixture.BaseFiles); err != nil {
		return nil, err
	}
	base, err := commit("Initial orders service")
	if err != nil {
		return nil, err
	}
	fake.AddCommit(ws, slug, base)
	fake.SetBranch(ws, slug, fixture.Base, base)
	setFiles(fake, base, fixture.BaseFiles)

	var out []prState
	for _, pr := range fixture.PRs {
		if _, err := git("checkout", "-q", "-B", pr.Branch, base); err != nil {
			return nil, err
		}
		for p, c := range pr.Changes {
			if c == "" {
				if _, err := git("rm", "-q", p); err != nil {
					return nil, err
				}
			}
		}
		if err := write(withoutDeleted(pr.Changes)); err != nil {
			return nil, err
		}
		head, err := commit(fixture.CommitMessage(pr))
		if err != nil {
			return nil, err
		}
		fake.SetCommitMessage(ws, slug, head, fixture.CommitMessage(pr))
		diff, err := git("diff", "-U30", base, head)
		if err != nil {
			return nil, err
		}
		stats, err := bitbuckettest.GitDiffstat(git, base, head)
		if err != nil {
			return nil, err
		}
		fake.AddCommit(ws, slug, head, base)
		fake.SetBranch(ws, slug, pr.Branch, head)
		setFiles(fake, head, fixture.HeadFiles(pr))
		fake.SetDiff(ws, slug, base, head, diff)
		fake.SetDiffstat(ws, slug, base, head, stats)
		fake.AddPullRequest(ws, slug, bitbuckettest.PullRequest{
			ID: pr.ID, Title: pr.Title, Description: pr.Description, Author: fixture.AuthorOf(pr),
			Draft:        pr.Draft,
			SourceBranch: pr.Branch, DestinationBranch: fixture.Base,
			SourceCommit: head, DestinationCommit: base,
		})
		st := prState{ID: pr.ID, Title: pr.Title, Head: head, Base: base}
		if pr.Push != nil {
			// Prepared now, applied by /_fake/push: the pushed commit, its
			// files, and the diffs from the base (full) and from the
			// reviewed head (delta).
			if err := write(pr.Push.Changes); err != nil {
				return nil, err
			}
			if st.Push, err = commit(pr.Title + " (review fixes)"); err != nil {
				return nil, err
			}
			fake.AddCommit(ws, slug, st.Push, head)
			fake.SetCommitMessage(ws, slug, st.Push, pr.Title+" (review fixes)")
			setFiles(fake, st.Push, fixture.PushedFiles(pr))
			for _, from := range []string{base, head} {
				diff, err := git("diff", "-U30", from, st.Push)
				if err != nil {
					return nil, err
				}
				stats, err := bitbuckettest.GitDiffstat(git, from, st.Push)
				if err != nil {
					return nil, err
				}
				fake.SetDiff(ws, slug, from, st.Push, diff)
				fake.SetDiffstat(ws, slug, from, st.Push, stats)
			}
		}
		out = append(out, st)
	}
	return out, nil
}

func withoutDeleted(m map[string]string) map[string]string {
	out := map[string]string{}
	for p, c := range m {
		if c != "" {
			out[p] = c
		}
	}
	return out
}

func setFiles(fake *bitbuckettest.Server, commit string, files map[string]string) {
	for p, c := range files {
		fake.SetFile(fixture.Workspace, fixture.RepoSlug, commit, p, []byte(c))
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// commentEvent is the body of a pullrequest:comment_* webhook about comment
// cid of pull request prID, nil when there is no such comment: the pull
// request event with the comment and its author as the actor.
func commentEvent(fake *bitbuckettest.Server, prID int, cid int64) []byte {
	var ev map[string]any
	if json.Unmarshal(fake.PullRequestEvent(fixture.Workspace, fixture.RepoSlug, prID), &ev) != nil {
		return nil
	}
	for _, c := range fake.Comments(fixture.Workspace, fixture.RepoSlug, prID) {
		if c.ID != cid {
			continue
		}
		t := c.AccountType
		if t == "" {
			t = "user"
		}
		user := map[string]any{"type": t, "display_name": c.Author, "account_id": c.AccountID}
		cm := map[string]any{
			"type": "pullrequest_comment", "id": c.ID, "deleted": c.Deleted,
			"content": map[string]any{"raw": c.Body, "markup": "markdown"},
			"user":    user,
			"links": map[string]any{"html": map[string]any{
				"href": fmt.Sprintf("%s/_/diff#comment-%d", fixture.PRURL(prID), c.ID)}},
		}
		if c.Parent != nil {
			cm["parent"] = map[string]any{"id": *c.Parent}
		}
		if c.Path != "" {
			cm["inline"] = map[string]any{"path": c.Path, "to": c.To, "from": c.From}
		}
		ev["comment"], ev["actor"] = cm, user
		b, _ := json.Marshal(ev)
		return b
	}
	return nil
}
