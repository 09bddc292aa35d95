package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/collect"
	"github.com/prscout/prscout/pipeline/gate"
	"github.com/prscout/prscout/pipeline/insights"
	"github.com/prscout/prscout/pipeline/learn"
	"github.com/prscout/prscout/pipeline/lookup"
	"github.com/prscout/prscout/pipeline/merge"
	"github.com/prscout/prscout/pipeline/preview"
	"github.com/prscout/prscout/pipeline/publish"
	"github.com/prscout/prscout/pipeline/review"
	"github.com/prscout/prscout/pipeline/scope"
	"github.com/prscout/prscout/sarif"
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
	// call Bitbucket or Jira are those that can run long. The heavy ones
	// share the in-flight cap (bounds.go), taken before keep-alive starts so
	// that a 429 is a plain answer.
	ka := st.s.keepalive
	heavy := func(h gin.HandlerFunc) gin.HandlerFunc { return st.s.limitInflight(ka(h)) }
	g.POST("/context", heavy(st.context))
	g.POST("/needs", heavy(jsonStage(st.s, st.needs, st.s.countNeeds)))
	g.POST("/repository/batch", heavy(jsonStage(st.s, st.batch, st.s.countBatch)))
	g.POST("/merge", heavy(jsonStage(st.s, st.merge, st.s.countMerge)))
	g.POST("/verify", heavy(jsonStage(st.s, st.verify, st.s.countVerify)))
	g.POST("/comments", heavy(st.comments))
	g.POST("/workflows/validate", heavy(st.validate))
	g.POST("/preview", heavy(st.preview))
	g.POST("/rules/check", ka(jsonStage(st.s, st.rulesCheck, nil)))
	g.POST("/rules/propose", ka(st.rulesPropose))
	g.POST("/status", ka(jsonStage(st.s, st.status, st.s.countStatus)))
	g.POST("/thread", heavy(st.thread))
	g.POST("/thread/answer", heavy(jsonStage(st.s, st.threadAnswer, st.s.countThread)))
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

// needs bounds the request before the stage reads it: files[] and the
// needs it carries, the scout answer's size; and, after reading, the needs
// the scout answer proposed. The answer to a request over a limit is a 422
// naming the field and the setting, never a partial result.
func (st *stages) needs(_ context.Context, in lookup.NeedsInput) (lookup.NeedsResult, error) {
	lim := st.s.opts.RequestLimits
	if len(in.Files) > lim.MaxFiles {
		return lookup.NeedsResult{}, tooMany("files", len(in.Files), lim.MaxFiles, "PRSCOUT_MAX_FILES")
	}
	given := 0
	for _, f := range in.Files {
		given += len(f.Needs)
	}
	if given > lim.MaxNeeds {
		return lookup.NeedsResult{}, tooMany("files[].needs", given, lim.MaxNeeds, "PRSCOUT_MAX_NEEDS")
	}
	if len(in.Scout) > lim.MaxScoutBytes {
		return lookup.NeedsResult{}, &httpError{status: http.StatusRequestEntityTooLarge, code: "too_large", field: "scout",
			msg: fmt.Sprintf("scout is %d bytes, over the limit of %d bytes (PRSCOUT_MAX_SCOUT_BYTES)", len(in.Scout), lim.MaxScoutBytes)}
	}
	res, err := lookup.Needs(in, st.s.opts.Limits)
	if err == nil && res.Stats.Proposed > lim.MaxNeeds {
		return lookup.NeedsResult{}, &httpError{status: http.StatusUnprocessableEntity, code: "too_large", field: "scout",
			msg: fmt.Sprintf("the scout answer proposes %d needs, over the limit of %d (PRSCOUT_MAX_NEEDS)", res.Stats.Proposed, lim.MaxNeeds)}
	}
	return res, err
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
	if q := res.Stats.ScoutQuality; q != "" {
		m.ModelAnswers.WithLabelValues("scout", q).Inc()
	}
	m.Candidates.WithLabelValues("asked_by_scout").Add(float64(res.Stats.Candidates.AskedByScout))
	m.Candidates.WithLabelValues("added").Add(float64(res.Stats.Candidates.Added))
}

func (st *stages) batch(ctx context.Context, in lookup.BatchInput) (lookup.BatchResult, error) {
	if st.batcher == nil {
		return lookup.BatchResult{}, errNoRepository
	}
	if lim := st.s.opts.RequestLimits; len(in.Requests) > lim.MaxBatchRequests {
		return lookup.BatchResult{}, tooMany("requests", len(in.Requests), lim.MaxBatchRequests, "PRSCOUT_MAX_BATCH_REQUESTS")
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
	s.countRedactions(res.Stats.Redactions)
}

func (st *stages) merge(_ context.Context, in merge.MergeInput) (merge.MergeResult, error) {
	lim := st.s.opts.RequestLimits
	if len(in.Context.Files) > lim.MaxFiles {
		return merge.MergeResult{}, tooMany("files", len(in.Context.Files), lim.MaxFiles, "PRSCOUT_MAX_FILES")
	}
	if len(in.Results) > lim.MaxBatchRequests {
		return merge.MergeResult{}, tooMany("results", len(in.Results), lim.MaxBatchRequests, "PRSCOUT_MAX_BATCH_REQUESTS")
	}
	return merge.Merge(in, st.s.opts.Limits)
}

// countRedactions adds one answer's stats.redactions to
// prscout_redactions_total.
func (s *Server) countRedactions(counts map[string]int) {
	for kind, n := range counts {
		s.metrics.Redactions.WithLabelValues(kind).Add(float64(n))
	}
}

func (s *Server) countMerge(res merge.MergeResult) {
	m := s.metrics
	m.ContextDropped.Add(float64(len(res.Stats.Dropped)))
	s.countRedactions(res.Stats.Redactions)
	m.PromptChars.WithLabelValues("review").Observe(float64(res.Stats.PromptChars))
}

// rulesCheck explains which rule layer and pattern win for each path.
func (st *stages) rulesCheck(ctx context.Context, in scope.RulesCheckInput) (scope.RulesCheckResult, error) {
	in.ServiceRules, in.ServiceRulesSource = st.s.opts.ServiceRules, st.s.opts.ServiceRulesSource
	return scope.RulesCheck(ctx, st.s.opts.Repo, in)
}

// rulesPropose adds a rule proposed in a review thread to the review rules
// pull request (learn.Propose), or answers it only (PRSCOUT_LEARNINGS).
func (st *stages) rulesPropose(c *gin.Context) {
	s := st.s
	var in learn.Request
	if _, err := s.decodeJSON(c, &in); err != nil {
		s.writeError(c, err)
		return
	}
	mode := s.learningsMode()
	ports := s.learnPorts(mode)
	repo, proposal := in.Split()
	res, err := learn.Propose(c.Request.Context(), ports, repo, proposal)
	if err != nil {
		status := "refused"
		var inv *pipeline.InvalidError
		if errors.As(err, &inv) {
			status = "invalid"
		}
		s.metrics.RulesProposed.WithLabelValues(status).Inc()
		s.writeError(c, err)
		return
	}
	s.metrics.RulesProposed.WithLabelValues(res.Status).Inc()
	c.JSON(http.StatusOK, res)
}

// contextRequest reads a /v1/context-shaped request (also used by
// /v1/preview): the body, a raw webhook or the stage's own fields, the
// provider check and the service's rule file.
func (s *Server) contextRequest(c *gin.Context) (collect.ContextInput, error) {
	data, err := s.readBody(c)
	if err != nil {
		return collect.ContextInput{}, err
	}
	in, err := s.contextInput(data)
	if err != nil {
		return in, err
	}
	if s.opts.Repo == nil || s.opts.Diffs == nil {
		return in, errNoRepository
	}
	in.ServiceRules, in.ServiceRulesSource = s.opts.ServiceRules, s.opts.ServiceRulesSource
	in.Instructions = s.opts.Instructions
	return in, nil
}

func (st *stages) context(c *gin.Context) {
	s := st.s
	in, err := s.contextRequest(c)
	if err != nil {
		s.writeError(c, err)
		return
	}
	// Only the context stage starts a review: it alone gets the reporter
	// (for the INPROGRESS build status).
	src := s.contextSources()
	src.Reporter, in.Surfaces = s.opts.Reporter, s.opts.Surfaces
	in.Skips = s.opts.Skips
	res, err := collect.Collect(c.Request.Context(), src, in, s.opts.Limits)
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

func (s *Server) contextSources() collect.ContextSources {
	return collect.ContextSources{Repo: s.opts.Repo, Diffs: s.opts.Diffs, PRs: s.opts.PRs, Comments: s.opts.Comments, Issues: s.opts.Issues,
		Search: s.opts.Search, SearchOff: s.opts.SearchOff, Readings: s.readings}
}

// countContext turns a context answer into metrics: one gate decision per
// changed file, the mode and a skip's code, redactions and the scout prompt sizes (one per
// review group).
func (s *Server) countContext(res collect.ContextResult) {
	m := s.metrics
	m.ReviewModes.WithLabelValues(res.Mode).Inc()
	if res.Skip {
		m.ReviewsSkipped.WithLabelValues(res.SkipCode).Inc()
	}
	m.ContextFiles.WithLabelValues("reviewed").Add(float64(len(res.Files)))
	for _, e := range res.Excluded {
		m.ContextFiles.WithLabelValues(e.Reason).Inc()
	}
	s.countRedactions(res.Stats.Redactions)
	m.LearnedRulesApplied.Add(float64(res.Stats.LearnedRules))
	switch {
	case len(res.Groups) > 1:
		// A change split into review groups: each group's scout prompt is sent.
		for _, g := range res.Groups {
			m.PromptChars.WithLabelValues("scout").Observe(float64(g.Stats.PromptChars))
		}
	case !res.Skip:
		m.PromptChars.WithLabelValues("scout").Observe(float64(res.Stats.PromptChars))
		m.Candidates.WithLabelValues("listed").Add(float64(len(res.Candidates)))
		m.CandidatesListed.Observe(float64(len(res.Candidates)))
		m.CandidatesDuration.Observe(float64(res.Stats.CandidatesMs) / 1000)
	}
	m.countSurfaces(res.BuildStatus, nil)
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
	res, err := preview.Preview(c.Request.Context(), s.contextSources(), in, s.opts.Limits)
	if err != nil {
		s.writeError(c, err)
		return
	}
	c.JSON(http.StatusOK, res)
}

func (st *stages) comments(c *gin.Context) {
	s := st.s
	var in review.CommentsInput
	if _, err := s.decodeJSON(c, &in); err != nil {
		s.writeError(c, err)
		return
	}
	answer, err := st.postComments(c.Request.Context(), in, acceptsSARIF(c.Request))
	if err != nil {
		s.writeError(c, err)
		return
	}
	s.countComments(in, answer)
	c.JSON(http.StatusOK, answer)
}

// verify bounds a /v1/verify request as /v1/comments is bounded and runs
// the stage (review.VerifyPrompt).
func (st *stages) verify(ctx context.Context, in review.VerifyInput) (review.VerifyResult, error) {
	o := st.s.opts
	if lim := o.RequestLimits; len(in.Files) > lim.MaxFiles {
		return review.VerifyResult{}, tooMany("files", len(in.Files), lim.MaxFiles, "PRSCOUT_MAX_FILES")
	}
	in.RequestID = pipeline.RequestID(ctx)
	in.LinkHosts = o.LinkHosts
	return review.VerifyPrompt(in)
}

func (s *Server) countVerify(res review.VerifyResult) {
	s.metrics.VerifyPrompts.WithLabelValues(strconv.FormatBool(res.Verify)).Inc()
}

// postComments bounds a /v1/comments request and runs the stage
// (publish.Publish: render, then post, or compare only in a dry run, and the
// commit surfaces), with the findings as SARIF when the request or its
// Accept header asks for them.
func (st *stages) postComments(ctx context.Context, in review.CommentsInput, acceptSARIF bool) (commentsAnswer, error) {
	o := st.s.opts
	if lim := o.RequestLimits; len(in.Files) > lim.MaxFiles {
		return commentsAnswer{}, tooMany("files", len(in.Files), lim.MaxFiles, "PRSCOUT_MAX_FILES")
	}
	in.RequestID = pipeline.RequestID(ctx)
	in.LinkHosts = o.LinkHosts
	in.Policy = o.CommentPolicy
	wantSARIF, err := in.WantsSARIF()
	if err != nil {
		return commentsAnswer{}, err
	}
	if o.PostTimeout > 0 {
		// A caller that goes away (an n8n worker killed mid-request) must
		// not leave the head's build status INPROGRESS after the comments
		// were posted: the redelivered webhook then skips the head as
		// reviewed. Posting runs to its end, bounded.
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(context.WithoutCancel(ctx), o.PostTimeout)
		defer cancel()
	}
	rendered, posted, err := publish.Publish(ctx, publish.Ports{
		Comments: o.Comments, Reporter: o.Reporter, Surfaces: o.Surfaces, Sources: o.Repo,
		Budget: o.Budget, DeferBelow: o.DeferBelow,
	}, in,
		publish.PostOptions{ResolveThreads: o.ResolveThreads, Tasks: o.Tasks})
	if err != nil {
		return commentsAnswer{}, err
	}
	answer := commentsAnswer{Rendered: rendered, Posted: posted}
	if wantSARIF || acceptSARIF {
		if answer.SARIF, err = sarif.FromFindings(review.ReportFindings(rendered), sarif.Options{ToolVersion: Version}).Marshal(); err != nil {
			return commentsAnswer{}, err
		}
	}
	return answer, nil
}

// countComments turns a comments answer into metrics: redactions, the
// review answer's quality, findings by anchor, what was posted, the commit
// surfaces, and the review memory's counts of a real post.
func (s *Server) countComments(in review.CommentsInput, answer commentsAnswer) {
	m := s.metrics
	rendered, posted := answer.Rendered, answer.Posted
	if !in.DryRun && rendered.Memory != nil {
		m.CountMemory(in.Workspace+"/"+in.RepoSlug, rendered.Memory.Counted)
	}
	s.countRedactions(rendered.Stats.Redactions)
	if q := rendered.Stats.ReviewQuality; q != "" {
		m.ModelAnswers.WithLabelValues("review", q).Inc()
	}
	if q := rendered.Stats.VerifyQuality; q != "" {
		m.ModelAnswers.WithLabelValues("verify", q).Inc()
		m.VerifyFindings.WithLabelValues("kept").Add(float64(rendered.Stats.Findings))
		m.VerifyFindings.WithLabelValues("dropped").Add(float64(rendered.Stats.VerifyDropped))
	}
	for anchor, n := range rendered.Stats.ByAnchor {
		m.Findings.WithLabelValues(anchor).Add(float64(n))
	}
	for placement, n := range rendered.Stats.ByPlacement {
		m.Placements.WithLabelValues(placement).Add(float64(n))
	}
	for verdict, n := range rendered.Stats.ByEvidence {
		m.Evidence.WithLabelValues(verdict).Add(float64(n))
	}
	action := posted.Summary
	if action == "dry-run" {
		action = "dry_run"
	}
	m.Comments.WithLabelValues("summary", action).Inc()
	m.Comments.WithLabelValues("inline", "created").Add(float64(posted.InlineCreated))
	m.Comments.WithLabelValues("inline", "skipped").Add(float64(posted.InlineSkipped))
	m.Comments.WithLabelValues("inline", "failed").Add(float64(posted.InlineFailed))
	m.Comments.WithLabelValues("inline", "single_line").Add(float64(posted.InlineSingleLine))
	m.Comments.WithLabelValues("task", "created").Add(float64(posted.TasksCreated))
	m.Comments.WithLabelValues("task", "resolved").Add(float64(posted.TasksResolved))
	m.countSurfaces(posted.BuildStatus, posted.Report)
	for _, what := range posted.Deferred {
		m.Deferred.WithLabelValues(what).Inc()
	}
}

// commentsAnswer is the /v1/comments answer: the rendering plus what was
// posted, and the findings as SARIF when asked.
type commentsAnswer struct {
	review.Rendered
	Posted publish.Posted `json:"posted"`
	// SARIF is a SARIF 2.1.0 log of the findings (sarif.FromFindings), with
	// `formats: ["sarif"]` or `Accept: application/sarif+json`.
	SARIF json.RawMessage `json:"sarif,omitempty"`
}

// acceptsSARIF reports whether the Accept header names SARIF.
func acceptsSARIF(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept"), ",") {
		if mt, _, err := mime.ParseMediaType(strings.TrimSpace(part)); err == nil && mt == sarifMediaType {
			return true
		}
	}
	return false
}

// sarifMediaType is SARIF's registered media type.
const sarifMediaType = "application/sarif+json"

// status closes the build status of a review that died between /v1/context
// and /v1/comments (the workflow's error path).
func (st *stages) status(ctx context.Context, in insights.StopInput) (insights.StopResult, error) {
	o := st.s.opts
	return insights.StopReview(ctx, insights.StopSources{Repo: o.Repo, PRs: o.PRs, Reporter: o.Reporter}, o.Surfaces, in)
}

func (s *Server) countStatus(res insights.StopResult) {
	s.metrics.countSurfaces(res.BuildStatus, nil)
}

// contextInput reads a /v1/context request: the stage's own fields, or a raw
// Bitbucket pull request webhook body ({actor, pullrequest, repository}),
// also wrapped as n8n's Webhook node hands it over ({headers, body, ...}).
func (s *Server) contextInput(data []byte) (collect.ContextInput, error) {
	var in collect.ContextInput
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
	// A review a thread command started carries prscout.command (the relay
	// refuses Bitbucket deliveries with a top-level prscout key).
	var cmd struct {
		Prscout *struct {
			Command string `json:"command"`
		} `json:"prscout"`
	}
	_ = json.Unmarshal(hook, &cmd)
	in = collect.ContextInput{Workspace: repo.Workspace, RepoSlug: repo.RepoSlug, PRID: id}
	if cmd.Prscout != nil {
		in.Command = cmd.Prscout.Command
	}
	return in, nil
}

// validate runs the workflow gate on one export (object or array). The
// answer is 200 with ok:false when a node is invalid: the request itself was
// fine. ?expressions=false switches the expression check off,
// ?allowUndecided=true lets undecided snippets pass. The gate's limits and
// time budget (RequestLimits.Gate, GateTimeout) bound the work: snippets
// over them are reported too_deep, too_large or timeout, never parsed.
func (st *stages) validate(c *gin.Context) {
	s := st.s
	lim := s.opts.RequestLimits
	// An export over the gate's limit is refused while it arrives, not
	// after it is all in memory.
	limit, setting := s.opts.MaxBodyBytes, "PRSCOUT_MAX_BODY_BYTES"
	if g := int64(lim.Gate.MaxExportBytes); g < limit {
		limit, setting = g, "the workflow gate's export limit"
	}
	data, err := s.readBodyLimit(c, limit, setting)
	if err != nil {
		s.writeError(c, err)
		return
	}
	opt := gate.Options{Expressions: c.Query("expressions") != "false", AllowUndecided: c.Query("allowUndecided") == "true", Limits: lim.Gate}
	ctx, cancel := context.WithTimeout(c.Request.Context(), lim.GateTimeout)
	defer cancel()
	rep := gate.CheckExportContext(ctx, "request", data, opt)
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
