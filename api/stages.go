package api

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/prscout/prscout/pipeline/comments"
	"github.com/prscout/prscout/pipeline/gate"
	"github.com/prscout/prscout/pipeline/lookup"
	"github.com/prscout/prscout/pipeline/prcontext"
	"github.com/prscout/prscout/pipeline/scope"
)

// errNoRepository answers stages that read a repository when the server was
// built without one (library use; cmd always wires a provider).
var errNoRepository = &httpError{status: http.StatusServiceUnavailable, code: "unavailable", msg: "no repository provider is configured"}

// stages holds the stage handlers and their shared state (the lookup cache).
type stages struct {
	s       *Server
	batcher *lookup.Batcher
}

func newStages(s *Server) *stages {
	st := &stages{s: s}
	if s.opts.Repo != nil {
		st.batcher = lookup.NewBatcher(s.opts.Repo, s.opts.Limits, s.opts.CacheBytes)
	}
	return st
}

func (st *stages) register(g *gin.RouterGroup) {
	// Every stage accepts the keep-alive modes (keepalive.go); the ones that
	// call Bitbucket or Jira are those that can run long.
	ka := st.s.keepalive
	g.POST("/context", ka(st.context))
	g.POST("/needs", ka(jsonStage(st.s, st.needs, st.s.countNeeds)))
	g.POST("/repository/batch", ka(jsonStage(st.s, st.batch, st.s.countBatch)))
	g.POST("/merge", ka(jsonStage(st.s, st.merge, st.s.countMerge)))
	g.POST("/comments", ka(st.comments))
	g.POST("/workflows/validate", ka(st.validate))
	g.POST("/preview", ka(st.preview))
	g.POST("/rules/check", ka(jsonStage(st.s, st.rulesCheck, nil)))
}

// jsonStage is the shape most stages share: decode the request into In
// (400s name the field), run the stage, count its answer and send it as
// JSON; every error goes through writeError.
func jsonStage[In, Out any](s *Server, run func(ctx context.Context, in In) (Out, error), count func(Out)) gin.HandlerFunc {
	return func(c *gin.Context) {
		var in In
		if _, err := s.decodeJSON(c, &in); err != nil {
			s.writeError(c, err)
			return
		}
		out, err := run(c.Request.Context(), in)
		if err != nil {
			s.writeError(c, err)
			return
		}
		if count != nil {
			count(out)
		}
		c.JSON(http.StatusOK, out)
	}
}

func (st *stages) needs(_ context.Context, in lookup.NeedsInput) (lookup.NeedsResult, error) {
	return lookup.Needs(in, st.s.opts.Limits)
}

func (s *Server) countNeeds(res lookup.NeedsResult) {
	m := s.metrics
	m.NeedsAccepted.Add(float64(len(res.Requests)))
	for _, r := range res.Rejected {
		m.NeedsRejected.WithLabelValues(r.Reason).Inc()
	}
	if res.Skip {
		m.NeedsPlaceholders.Inc()
	}
	m.Candidates.WithLabelValues("asked_by_scout").Add(float64(res.Stats.Candidates.AskedByScout))
	m.Candidates.WithLabelValues("added").Add(float64(res.Stats.Candidates.Added))
}

func (st *stages) batch(ctx context.Context, in lookup.BatchInput) (lookup.BatchResult, error) {
	if st.batcher == nil {
		return lookup.BatchResult{}, errNoRepository
	}
	return st.batcher.Run(ctx, in)
}

func (s *Server) countBatch(res lookup.BatchResult) {
	m := s.metrics
	for _, r := range res.Results {
		m.Lookups.WithLabelValues(r.Op, r.Outcome()).Inc()
	}
	m.CacheHits.Add(float64(res.Stats.CacheHits))
	m.CacheMisses.Add(float64(res.Stats.UpstreamCalls))
}

func (st *stages) merge(_ context.Context, in prcontext.MergeInput) (prcontext.MergeResult, error) {
	return prcontext.Merge(in, st.s.opts.Limits)
}

func (s *Server) countMerge(res prcontext.MergeResult) {
	m := s.metrics
	m.ContextDropped.Add(float64(len(res.Stats.Dropped)))
	for kind, n := range res.Stats.Redactions {
		m.Redactions.WithLabelValues(kind).Add(float64(n))
	}
	m.PromptChars.WithLabelValues("review").Observe(float64(res.Stats.PromptChars))
}

// rulesCheck explains which rule layer and pattern win for each path.
func (st *stages) rulesCheck(ctx context.Context, in scope.RulesCheckInput) (scope.RulesCheckResult, error) {
	in.ServiceRules, in.ServiceRulesSource = st.s.opts.ServiceRules, st.s.opts.ServiceRulesSource
	return scope.RulesCheck(ctx, st.s.opts.Repo, in)
}

// contextRequest reads a /v1/context-shaped request (also used by
// /v1/preview): the body, a raw webhook or the stage's own fields, the
// provider check and the service's rule file.
func (s *Server) contextRequest(c *gin.Context) (prcontext.ContextInput, error) {
	data, err := s.readBody(c)
	if err != nil {
		return prcontext.ContextInput{}, err
	}
	in, err := s.contextInput(data)
	if err != nil {
		return in, err
	}
	if s.opts.Repo == nil || s.opts.Diffs == nil {
		return in, errNoRepository
	}
	in.ServiceRules, in.ServiceRulesSource = s.opts.ServiceRules, s.opts.ServiceRulesSource
	return in, nil
}

func (st *stages) context(c *gin.Context) {
	s := st.s
	in, err := s.contextRequest(c)
	if err != nil {
		s.writeError(c, err)
		return
	}
	res, err := prcontext.Collect(c.Request.Context(), s.contextSources(), in, s.opts.Limits)
	if err != nil {
		s.writeError(c, err)
		return
	}
	s.countContext(res)
	// WriteJSON streams the answer: a 20 MB change stays far below the
	// memory json.Marshal would take.
	c.Header("Content-Type", "application/json; charset=utf-8")
	c.Status(http.StatusOK)
	if err := res.WriteJSON(c.Writer); err != nil {
		s.log.WarnContext(c.Request.Context(), "write context answer", "err", err, "request_id", requestID(c))
	}
}

func (s *Server) contextSources() prcontext.ContextSources {
	return prcontext.ContextSources{Repo: s.opts.Repo, Diffs: s.opts.Diffs, PRs: s.opts.PRs, Comments: s.opts.Comments, Issues: s.opts.Issues,
		Search: s.opts.Search, SearchOff: s.opts.SearchOff}
}

// countContext turns a context answer into metrics: one gate decision per
// changed file, the mode, redactions and the scout prompt size.
func (s *Server) countContext(res prcontext.ContextResult) {
	m := s.metrics
	m.ReviewModes.WithLabelValues(res.Mode).Inc()
	m.ContextFiles.WithLabelValues("reviewed").Add(float64(len(res.Files)))
	for _, e := range res.Excluded {
		m.ContextFiles.WithLabelValues(e.Reason).Inc()
	}
	for kind, n := range res.Stats.Redactions {
		m.Redactions.WithLabelValues(kind).Add(float64(n))
	}
	if !res.Skip {
		m.PromptChars.WithLabelValues("scout").Observe(float64(res.Stats.PromptChars))
		m.Candidates.WithLabelValues("listed").Add(float64(len(res.Candidates)))
		m.CandidatesListed.Observe(float64(len(res.Candidates)))
		m.CandidatesDuration.Observe(float64(res.Stats.CandidatesMs) / 1000)
	}
}

// preview answers what a review would see and cost, without a model: the
// context request's fields in, PreviewResult out (200 even when every file
// is excluded). It counts no metrics: nothing is reviewed.
func (st *stages) preview(c *gin.Context) {
	s := st.s
	in, err := s.contextRequest(c)
	if err != nil {
		s.writeError(c, err)
		return
	}
	res, err := prcontext.Preview(c.Request.Context(), s.contextSources(), in, s.opts.Limits)
	if err != nil {
		s.writeError(c, err)
		return
	}
	c.JSON(http.StatusOK, res)
}

func (st *stages) comments(c *gin.Context) {
	s := st.s
	var in comments.CommentsInput
	if _, err := s.decodeJSON(c, &in); err != nil {
		s.writeError(c, err)
		return
	}
	rendered, err := comments.Render(in)
	if err != nil {
		s.writeError(c, err)
		return
	}
	posted := comments.DryRunPosted()
	if !in.DryRun && s.opts.Comments != nil {
		repo, prID, err := in.PostTarget()
		if err != nil {
			s.writeError(c, err)
			return
		}
		if posted, err = comments.Post(c.Request.Context(), s.opts.Comments, repo, prID, rendered); err != nil {
			s.writeError(c, err)
			return
		}
	}
	m := s.metrics
	for anchor, n := range rendered.Stats.ByAnchor {
		m.Findings.WithLabelValues(anchor).Add(float64(n))
	}
	action := posted.Summary
	if action == "dry-run" {
		action = "dry_run"
	}
	m.Comments.WithLabelValues("summary", action).Inc()
	m.Comments.WithLabelValues("inline", "created").Add(float64(posted.InlineCreated))
	m.Comments.WithLabelValues("inline", "skipped").Add(float64(posted.InlineSkipped))
	m.Comments.WithLabelValues("inline", "failed").Add(float64(posted.InlineFailed))
	c.JSON(http.StatusOK, commentsAnswer{Rendered: rendered, Posted: posted})
}

// commentsAnswer is the /v1/comments answer: the rendering plus what was posted.
type commentsAnswer struct {
	comments.Rendered
	Posted comments.Posted `json:"posted"`
}

// contextInput reads a /v1/context request: the stage's own fields, or a raw
// Bitbucket pull request webhook body ({actor, pullrequest, repository}),
// also wrapped as n8n's Webhook node hands it over ({headers, body, ...}).
func (s *Server) contextInput(data []byte) (prcontext.ContextInput, error) {
	var in prcontext.ContextInput
	var probe struct {
		PullRequest json.RawMessage `json:"pullrequest"`
		Body        json.RawMessage `json:"body"`
	}
	_ = json.Unmarshal(data, &probe)
	hook := []byte(nil)
	if len(probe.PullRequest) > 0 {
		hook = data
	} else if len(probe.Body) > 0 {
		var inner struct {
			PullRequest json.RawMessage `json:"pullrequest"`
		}
		if json.Unmarshal(probe.Body, &inner) == nil && len(inner.PullRequest) > 0 {
			hook = probe.Body
		}
	}
	if hook == nil {
		return in, unmarshalStrict(data, &in)
	}
	if s.opts.ParseWebhook == nil {
		return in, badRequest("pullrequest", "a webhook body needs the Bitbucket provider: send base and head instead")
	}
	repo, id, err := s.opts.ParseWebhook(hook)
	if err != nil {
		return in, err
	}
	return prcontext.ContextInput{Workspace: repo.Workspace, RepoSlug: repo.RepoSlug, PRID: id}, nil
}

// validate runs the workflow gate on one export (object or array). The
// answer is 200 with ok:false when a node is invalid: the request itself was
// fine. ?expressions=false switches the expression check off,
// ?allowUndecided=true lets undecided snippets pass.
func (st *stages) validate(c *gin.Context) {
	s := st.s
	data, err := s.readBody(c)
	if err != nil {
		s.writeError(c, err)
		return
	}
	opt := gate.Options{Expressions: c.Query("expressions") != "false", AllowUndecided: c.Query("allowUndecided") == "true"}
	rep := gate.CheckExport("request", data, opt)
	for _, n := range rep.Nodes {
		if n.Check == "code" {
			s.metrics.GateNodes.WithLabelValues(n.Verdict).Inc()
		}
	}
	c.Header("Content-Type", "application/json; charset=utf-8")
	c.Status(http.StatusOK)
	if err := rep.WriteJSON(c.Writer); err != nil {
		s.log.WarnContext(c.Request.Context(), "write gate answer", "err", err, "request_id", requestID(c))
	}
}
