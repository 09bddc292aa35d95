package api

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"

	"github.com/gin-gonic/gin"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/learn"
	"github.com/prscout/prscout/pipeline/thread"
)

// thread answers POST /v1/thread: a comment event (as n8n forwards it, or
// {workspace, repoSlug, prId, commentId}) read, then one stage call.
func (st *stages) thread(c *gin.Context) {
	s := st.s
	data, err := s.readBody(c)
	if err != nil {
		s.writeError(c, err)
		return
	}
	in, err := thread.ParseInput(data)
	if err != nil {
		s.writeError(c, err)
		return
	}
	res, err := thread.Thread(c.Request.Context(), s.threadDeps(), in, s.threadOptions())
	if err != nil {
		s.writeError(c, err)
		return
	}
	s.countThread(res)
	c.JSON(http.StatusOK, res)
}

func (st *stages) threadAnswer(ctx context.Context, in thread.AnswerInput) (thread.Result, error) {
	res, err := thread.Answer(ctx, st.s.threadDeps(), in, st.s.threadOptions())
	res.Event = "answer"
	return res, err
}

func (s *Server) threadDeps() thread.Deps {
	d := thread.Deps{Comments: s.opts.Comments, PRs: s.opts.PRs, Repo: s.opts.Repo}
	if wo := s.opts.Webhook; wo != nil && wo.ForwardURL != "" {
		d.StartReview = s.startReview
	}
	if mode := s.learningsMode(); mode != learn.ModeOff {
		ports := s.learnPorts(mode)
		d.Propose = func(ctx context.Context, repo pipeline.Repo, p learn.Proposal) (learn.Result, error) {
			res, err := learn.Propose(ctx, ports, repo, p)
			if err == nil {
				s.metrics.RulesProposed.WithLabelValues(res.Status).Inc()
			}
			return res, err
		}
	}
	return d
}

// learnPorts are the ports of learn.Propose in mode.
func (s *Server) learnPorts(mode string) learn.Ports {
	ports := learn.Ports{Repo: s.opts.RulesRepo, PRs: s.opts.PRs, Committer: s.opts.Committer, Mode: mode, LinkHosts: s.opts.LinkHosts}
	if ports.Repo == nil {
		ports.Repo = s.opts.Repo
	}
	return ports
}

func (s *Server) threadOptions() thread.Options {
	return thread.Options{BotAuthors: s.opts.Skips.BotAuthors, MaxAnswersPerHour: s.opts.ThreadMaxAnswers, LinkHosts: s.opts.LinkHosts,
		MaxFileBytes: s.opts.Limits.MaxFileBytes, ServiceRules: s.opts.ServiceRules, ServiceRulesSource: s.opts.ServiceRulesSource}
}

// startReview forwards a synthetic pullrequest:updated event to the review
// workflow's webhook (PRSCOUT_FORWARD_URL) with the relay's header auth; its
// prscout.command tells /v1/context a thread command asked for it.
func (s *Server) startReview(ctx context.Context, repo pipeline.Repo, pr pipeline.PullRequestInfo, command, by string, commentID int64) error {
	body, err := json.Marshal(map[string]any{
		"repository":  map[string]any{"full_name": repo.Workspace + "/" + repo.RepoSlug},
		"pullrequest": map[string]any{"id": pr.ID, "title": pr.Title, "source": map[string]any{"commit": map[string]any{"hash": pr.SourceCommit}}},
		"prscout":     map[string]any{"command": command, "by": by, "commentId": commentID},
	})
	if err != nil {
		return err
	}
	h := http.Header{}
	h.Set("X-Event-Key", "pullrequest:updated")
	h.Set("X-Request-UUID", "prscout-command-"+strconv.FormatInt(commentID, 10))
	if _, err := s.forwardTo(ctx, s.opts.Webhook.ForwardURL, h, bytes.TrimSpace(body)); err != nil {
		return fmt.Errorf("%w: %w", err, pipeline.ErrUpstream)
	}
	s.metrics.ThreadReviews.WithLabelValues(command).Inc()
	return nil
}

// countThread turns a thread answer into metrics.
func (s *Server) countThread(res thread.Result) {
	m := s.metrics
	m.ThreadEvents.WithLabelValues(eventKind(res.Event), res.Outcome).Inc()
	switch {
	case res.Outcome == thread.OutcomeAnswered:
		m.ThreadAnswers.Inc()
	case res.Action == thread.ActionAnswered && res.Command != "":
		m.ThreadCommands.WithLabelValues(res.Command).Inc()
		if res.Command == thread.CmdDismiss {
			m.Dismissals.Inc()
			m.FindingStates.WithLabelValues(res.Workspace+"/"+res.RepoSlug, "dismissed").Inc()
		}
	case res.Outcome == thread.OutcomeDismissed:
		// A person resolved an open finding's thread.
		m.Dismissals.Inc()
		m.FindingStates.WithLabelValues(res.Workspace+"/"+res.RepoSlug, "dismissed").Inc()
	}
}

// eventKind is the metric label of a comment event key.
func eventKind(ev string) string {
	switch ev {
	case thread.EventCreated:
		return "created"
	case thread.EventResolved:
		return "resolved"
	case thread.EventReopened:
		return "reopened"
	case thread.EventUpdated:
		return "updated"
	case "answer":
		return "answer"
	}
	return "other"
}

// learningsMode is PRSCOUT_LEARNINGS, dry-run when unset.
func (s *Server) learningsMode() string {
	if s.opts.Learnings == "" {
		return learn.ModeDryRun
	}
	return s.opts.Learnings
}
