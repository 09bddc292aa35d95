package api

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/prscout/prscout/pipeline"
)

// stages holds the stage handlers and their shared state (the lookup cache).
type stages struct {
	s       *Server
	batcher *pipeline.Batcher
}

func newStages(s *Server) *stages {
	st := &stages{s: s}
	if s.opts.Repo != nil {
		st.batcher = pipeline.NewBatcher(s.opts.Repo, s.opts.Limits, s.opts.CacheBytes)
	}
	return st
}

func (st *stages) register(g *gin.RouterGroup) {
	g.POST("/context", st.context)
	g.POST("/needs", st.needs)
	g.POST("/repository/batch", st.batch)
	g.POST("/merge", st.merge)
}

func (st *stages) context(c *gin.Context) {
	s := st.s
	var in pipeline.ContextInput
	if _, err := s.decodeJSON(c, &in); err != nil {
		s.writeError(c, err)
		return
	}
	res, err := pipeline.CollectContext(c.Request.Context(), s.opts.Repo, s.opts.Diffs, in, s.opts.Limits)
	if err != nil {
		s.writeError(c, err)
		return
	}
	m := s.metrics
	m.ReviewModes.WithLabelValues(res.Mode).Inc()
	m.ContextFiles.WithLabelValues("reviewed").Add(float64(len(res.Files)))
	for _, e := range res.Excluded {
		m.ContextFiles.WithLabelValues(e.Reason).Inc()
	}
	if !res.Skip {
		m.PromptChars.WithLabelValues("scout").Observe(float64(res.Stats.PromptChars))
	}
	// WriteJSON streams the answer: a 20 MB change stays far below the
	// memory json.Marshal would take.
	c.Header("Content-Type", "application/json; charset=utf-8")
	c.Status(http.StatusOK)
	if err := res.WriteJSON(c.Writer); err != nil {
		s.log.WarnContext(c.Request.Context(), "write context answer", "err", err, "request_id", requestID(c))
	}
}

func (st *stages) needs(c *gin.Context) {
	s := st.s
	var in pipeline.NeedsInput
	if _, err := s.decodeJSON(c, &in); err != nil {
		s.writeError(c, err)
		return
	}
	res, err := pipeline.Needs(in, s.opts.Limits)
	if err != nil {
		s.writeError(c, err)
		return
	}
	m := s.metrics
	m.NeedsAccepted.Add(float64(len(res.Requests)))
	for _, r := range res.Rejected {
		m.NeedsRejected.WithLabelValues(r.Reason).Inc()
	}
	if res.Skip {
		m.NeedsPlaceholders.Inc()
	}
	c.JSON(http.StatusOK, res)
}

func (st *stages) batch(c *gin.Context) {
	s := st.s
	var in pipeline.BatchInput
	if _, err := s.decodeJSON(c, &in); err != nil {
		s.writeError(c, err)
		return
	}
	res, err := st.batcher.Run(c.Request.Context(), in)
	if err != nil {
		s.writeError(c, err)
		return
	}
	m := s.metrics
	for _, r := range res.Results {
		m.Lookups.WithLabelValues(r.Op, r.Outcome()).Inc()
	}
	m.CacheHits.Add(float64(res.Stats.CacheHits))
	m.CacheMisses.Add(float64(res.Stats.UpstreamCalls))
	c.JSON(http.StatusOK, res)
}

func (st *stages) merge(c *gin.Context) {
	s := st.s
	var in pipeline.MergeInput
	if _, err := s.decodeJSON(c, &in); err != nil {
		s.writeError(c, err)
		return
	}
	res, err := pipeline.Merge(in, s.opts.Limits)
	if err != nil {
		s.writeError(c, err)
		return
	}
	s.metrics.ContextDropped.Add(float64(len(res.Stats.Dropped)))
	s.metrics.PromptChars.WithLabelValues("review").Observe(float64(res.Stats.PromptChars))
	c.JSON(http.StatusOK, res)
}

