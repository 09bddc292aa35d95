package bitbuckettest

import (
	"net/http"
	"slices"

	"github.com/prscout/prscout/bitbucket/bitbuckettest/bbspec"
	"github.com/prscout/prscout/internal/apicheck"
)

// The fake holds itself and its clients to Bitbucket's published API
// description (package bbspec): every request of an operation the
// description names is validated against it (path parameters, query
// parameters, body schema, enums) and against the limits Bitbucket
// enforces beyond it before it runs, and is answered 400 in Bitbucket's
// error shape when it does not fit; every answer the fake's own handlers
// write is validated against the operation's responses (status and
// schema), and a mismatch is kept as a violation (Violations), so a test
// fails when the fake drifts from the description. Injected faults and
// the rate limit's 429 are Bitbucket's behaviour beyond the description
// and are not validated.

const repoPath = "/repositories/{workspace}/{repo_slug}"

// specPaths maps each operation of the fake to its path in the
// description; the method is the request's.
var specPaths = map[string]string{
	OpGetUser:           "/user",
	OpGetPullRequest:    repoPath + "/pullrequests/{pull_request_id}",
	OpUpdatePullRequest: repoPath + "/pullrequests/{pull_request_id}",
	OpListPullRequests:  repoPath + "/pullrequests",
	OpCreatePullRequest: repoPath + "/pullrequests",
	OpPRDiff:            repoPath + "/pullrequests/{pull_request_id}/diff",
	OpPRDiffstat:        repoPath + "/pullrequests/{pull_request_id}/diffstat",
	OpPRCommits:         repoPath + "/pullrequests/{pull_request_id}/commits",
	OpListComments:      repoPath + "/pullrequests/{pull_request_id}/comments",
	OpCreateComment:     repoPath + "/pullrequests/{pull_request_id}/comments",
	OpGetComment:        repoPath + "/pullrequests/{pull_request_id}/comments/{comment_id}",
	OpUpdateComment:     repoPath + "/pullrequests/{pull_request_id}/comments/{comment_id}",
	OpDeleteComment:     repoPath + "/pullrequests/{pull_request_id}/comments/{comment_id}",
	OpResolveComment:    repoPath + "/pullrequests/{pull_request_id}/comments/{comment_id}/resolve",
	OpReopenComment:     repoPath + "/pullrequests/{pull_request_id}/comments/{comment_id}/resolve",
	OpListTasks:         repoPath + "/pullrequests/{pull_request_id}/tasks",
	OpCreateTask:        repoPath + "/pullrequests/{pull_request_id}/tasks",
	OpGetTask:           repoPath + "/pullrequests/{pull_request_id}/tasks/{task_id}",
	OpUpdateTask:        repoPath + "/pullrequests/{pull_request_id}/tasks/{task_id}",
	OpGetDiff:           repoPath + "/diff/{spec}",
	OpDiffstat:          repoPath + "/diffstat/{spec}",
	OpMergeBase:         repoPath + "/merge-base/{revspec}",
	OpGetCommit:         repoPath + "/commit/{commit}",
	OpGetSrc:            repoPath + "/src/{commit}/{path}",
	OpListDir:           repoPath + "/src/{commit}/{path}",
	OpCommitSrc:         repoPath + "/src",
	OpGetBranch:         repoPath + "/refs/branches/{name}",
	OpSetStatus:         repoPath + "/commit/{commit}/statuses/build",
	OpGetStatus:         repoPath + "/commit/{commit}/statuses/build/{key}",
	OpPutReport:         repoPath + "/commit/{commit}/reports/{reportId}",
	OpGetReport:         repoPath + "/commit/{commit}/reports/{reportId}",
	OpDeleteReport:      repoPath + "/commit/{commit}/reports/{reportId}",
	OpListAnnotations:   repoPath + "/commit/{commit}/reports/{reportId}/annotations",
	OpPostAnnotations:   repoPath + "/commit/{commit}/reports/{reportId}/annotations",
	OpDeleteAnnotation:  repoPath + "/commit/{commit}/reports/{reportId}/annotations/{annotationId}",
}

// specParams maps the fake's path wildcards to the description's names.
var specParams = map[string]string{
	"workspace": "workspace", "repo": "repo_slug", "id": "pull_request_id", "comment": "comment_id",
	"task": "task_id", "spec": "spec", "rev": "commit", "commit": "commit", "path": "path",
	"name": "name", "report": "reportId", "annotation": "annotationId", "key": "key",
}

// specParamsOf returns the description's path of a request of op, with
// its path parameters by the description's names; ok is false when the
// description has no such operation.
func specParamsOf(op string, r *http.Request) (path string, params map[string]string, ok bool) {
	path, ok = specPaths[op]
	if !ok {
		return "", nil, false
	}
	params = map[string]string{}
	for fake, name := range specParams {
		if v := r.PathValue(fake); v != "" {
			params[name] = v
		}
	}
	if op == OpMergeBase {
		params["revspec"] = params["spec"]
	}
	if (op == OpGetSrc || op == OpListDir) && params["path"] == "" {
		params["path"] = "/" // the root listing: the trailing slash
	}
	return path, params, true
}

// checkSpec validates a request of op against the description and the
// limits; it answers Bitbucket's 400, records the violation and reports
// false when the request does not fit.
func (s *Server) checkSpec(w http.ResponseWriter, op string, r *http.Request, body []byte) bool {
	path, params, known := specParamsOf(op, r)
	if !known {
		return true
	}
	doc, err := bbspec.Spec()
	if err != nil { // the vendored description is tested to load (TestSpecLoads)
		writeError(w, http.StatusInternalServerError, err.Error())
		return false
	}
	v, ok := doc.CheckRequest(path, r, params, body)
	if ok {
		v, ok = bbspec.CheckLimits(r.Method, path, body)
	}
	if ok {
		return true
	}
	s.mu.Lock()
	s.violations = append(s.violations, v.Text)
	s.mu.Unlock()
	if v.Field != "" {
		writeFieldError(w, v.Field, v.Msg)
	} else {
		writeError(w, http.StatusBadRequest, "body: "+v.Msg)
	}
	return false
}

// checkAnswerLocked validates what the handler answered to a request of
// op and records a mismatch; s.mu is held.
func (s *Server) checkAnswerLocked(op string, r *http.Request, rec *apicheck.Recorder) {
	path, params, known := specParamsOf(op, r)
	doc, err := bbspec.Spec()
	if !known || err != nil {
		return
	}
	if s.specOps == nil {
		s.specOps = map[string]bool{}
	}
	s.specOps[apicheck.Operation(r.Method, path)] = true
	var v string
	if op == OpGetSrc && r.URL.Query().Get("format") != "meta" {
		v = doc.CheckStatus(path, r, params, rec.Status, rec.Header()) // a file's content, typed by its name
	} else {
		v = doc.CheckResponse(path, r, params, rec.Status, rec.Header(), rec.Body.Bytes())
	}
	if v != "" {
		s.violations = append(s.violations, v)
	}
}

// Violations lists every departure from the API description seen so far:
// requests refused for not fitting it (or a limit), and answers of the
// fake that do not fit the operation's responses.
func (s *Server) Violations() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.violations)
}

// SpecOperations lists the operations of the description the fake
// answered a request of ("POST /repositories/{workspace}/{repo_slug}/src"),
// each once, sorted.
func (s *Server) SpecOperations() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]string, 0, len(s.specOps))
	for k := range s.specOps {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
