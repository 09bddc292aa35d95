package api

import (
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"

	"github.com/prscout/prscout/pipeline/thread"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/collect"
	"github.com/prscout/prscout/pipeline/evidence"
	"github.com/prscout/prscout/pipeline/insights"
	"github.com/prscout/prscout/pipeline/learn"
	"github.com/prscout/prscout/pipeline/llmanswer"
	"github.com/prscout/prscout/pipeline/placement"
	"github.com/prscout/prscout/pipeline/redact"
	"github.com/prscout/prscout/pipeline/scope"
)

// Metrics are prscout's Prometheus metrics, registered on an injected
// registry (no package globals). Label values that are known in advance are
// pre-initialised so dashboards and alerts see zeros, not gaps.
type Metrics struct {
	HTTPRequests *prometheus.CounterVec
	HTTPDuration *prometheus.HistogramVec
	InFlight     prometheus.Gauge
	// Throttled counts heavy requests refused with 429 (PRSCOUT_MAX_INFLIGHT), by route.
	Throttled         *prometheus.CounterVec
	InternalErrors    prometheus.Counter
	NeedsAccepted     prometheus.Counter
	NeedsRejected     *prometheus.CounterVec
	NeedsPlaceholders prometheus.Counter
	Lookups           *prometheus.CounterVec
	CacheHits         prometheus.Counter
	CacheMisses       prometheus.Counter
	PromptChars       *prometheus.HistogramVec
	ContextFiles      *prometheus.CounterVec
	ContextDropped    prometheus.Counter
	Redactions        *prometheus.CounterVec
	ReviewModes       *prometheus.CounterVec
	// ReviewsSkipped counts /v1/context answers in mode skip by skip code
	// (collect.SkipCodes: closed, draft, bot_author, title_marker, ignored,
	// reviewed, merge_unchanged, paused, push_off, empty, trivial).
	ReviewsSkipped *prometheus.CounterVec
	// RulesProposed counts POST /v1/rules/propose answers by status
	// (dry-run, added, duplicate, approved, refused, invalid);
	// LearnedRulesApplied counts, per review, the learned rules (approved by
	// merging the review rules pull request) that won for a reviewed file.
	RulesProposed       *prometheus.CounterVec
	LearnedRulesApplied prometheus.Counter
	Findings            *prometheus.CounterVec
	// Placements counts findings by placement (inline, summary,
	// unverified); Evidence by evidence verdict (verified, elsewhere,
	// unverified).
	Placements *prometheus.CounterVec
	Evidence   *prometheus.CounterVec
	// FindingStates counts review memory by repository and state (posted,
	// resolved, outdated, still_open): the code-resolution rate is
	// resolved ÷ posted.
	FindingStates      *prometheus.CounterVec
	Comments           *prometheus.CounterVec
	GateNodes          *prometheus.CounterVec
	UpstreamCalls      *prometheus.CounterVec
	UpstreamDuration   *prometheus.HistogramVec
	UpstreamRetries    *prometheus.CounterVec
	RateLimitRemaining *prometheus.GaugeVec
	RateLimitLimit     *prometheus.GaugeVec
	RateLimitNear      *prometheus.GaugeVec
	RateLimitSeen      *prometheus.GaugeVec
	Deferred           *prometheus.CounterVec
	WebhooksReceived   *prometheus.CounterVec
	// ThreadEvents counts /v1/thread and /v1/thread/answer answers by event
	// kind (created, resolved, reopened, updated, answer) and outcome
	// (thread.Outcomes); ThreadCommands the commands carried out, by name;
	// ThreadAnswers the answers posted; Dismissals the findings dismissed;
	// ThreadReviews the reviews a command started.
	ThreadEvents   *prometheus.CounterVec
	ThreadCommands *prometheus.CounterVec
	ThreadAnswers  prometheus.Counter
	Dismissals     prometheus.Counter
	ThreadReviews  *prometheus.CounterVec
	// KeepaliveRequests counts stage requests answered in a keep-alive mode
	// (ndjson, n8n); KeepaliveHeartbeats the heartbeats sent.
	KeepaliveRequests   *prometheus.CounterVec
	KeepaliveHeartbeats *prometheus.CounterVec
	// ModelAnswers counts the model answers /v1/needs (stage scout) and
	// /v1/comments (stage review) read, by how they were read
	// (llmanswer.Quality: clean, repaired, salvaged, unreadable).
	ModelAnswers *prometheus.CounterVec
	// VerifyPrompts counts /v1/verify answers by whether they ask for the
	// verify call; VerifyFindings the findings a verify answer kept or
	// dropped at /v1/comments.
	VerifyPrompts  *prometheus.CounterVec
	VerifyFindings *prometheus.CounterVec
	// CommitSurfaces counts build status and report writes by outcome.
	CommitSurfaces *prometheus.CounterVec
	// Candidates counts context candidates by outcome: listed by
	// /v1/context, asked_by_scout (the scout asked for a listed one itself),
	// added (a request /v1/needs added for one). CandidatesListed is the
	// number listed per review, CandidatesDuration the time spent finding
	// them per review.
	Candidates         *prometheus.CounterVec
	CandidatesListed   prometheus.Histogram
	CandidatesDuration prometheus.Histogram
	// MirrorFetches counts fetches into the repository mirror by outcome (ok,
	// failed); MirrorFetchDuration times them. MirrorReads counts reads by
	// where they were served from (mirror, rest).
	MirrorFetches       *prometheus.CounterVec
	MirrorFetchDuration prometheus.Histogram
	MirrorReads         *prometheus.CounterVec
	// MirrorBytes is the mirror directory's size after the last fetch;
	// MirrorEvictions counts repositories removed to keep it under
	// PRSCOUT_MIRROR_MAX_BYTES.
	MirrorBytes     prometheus.Gauge
	MirrorEvictions prometheus.Counter
}

// Known label values, pre-initialised at start.
var (
	knownRoutes = []string{
		"/v1/context", "/v1/needs", "/v1/repository/batch", "/v1/merge", "/v1/comments",
		"/v1/workflows/validate", "/v1/webhooks/bitbucket", "/v1/preview", "/v1/rules/check",
		"/v1/rules/propose", "/v1/status",
	}
	// knownProposalStatuses are prscout_rules_proposed_total's statuses.
	knownProposalStatuses = []string{learn.StatusDryRun, learn.StatusAdded, learn.StatusDuplicate, learn.StatusApproved, "refused", "invalid"}
	knownNeedsReasons     = scope.Reasons
	knownLookupOutcomes   = []string{
		"ok", pipeline.LookupNotFound, pipeline.LookupBinary, pipeline.LookupTooLarge, pipeline.LookupIsDir,
		pipeline.LookupNotDir, pipeline.LookupSecret, pipeline.LookupTimeout, pipeline.LookupCancelled,
		pipeline.LookupUpstream, pipeline.LookupBatchLimit, pipeline.LookupUnsupportedOp,
		pipeline.LookupMissingRepo, pipeline.LookupInvalidRepo, pipeline.LookupRefNotFound,
		scope.ReasonParentEscape, scope.ReasonEmpty,
	}
	knownReviewModes = []string{"full", "delta", "skip"}
	knownAnchors     = []string{"line", "snippet", "file", "unanchored"}
	// knownFindingStates are prscout_findings_total's states
	// (review.FindingCounts).
	knownFindingStates = []string{"posted", "resolved", "outdated", "still_open", "dismissed"}
	knownGateVerdicts  = []string{"ok", "syntax_error", "undecided", "missing_code", "too_deep", "too_large", "timeout"}
)

// NewMetrics registers prscout's metrics on reg.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	f := promauto.With(reg)
	m := &Metrics{
		HTTPRequests: f.NewCounterVec(prometheus.CounterOpts{
			Name: "prscout_http_requests_total", Help: "HTTP requests answered, by route template and status code.",
		}, []string{"route", "code"}),
		HTTPDuration: f.NewHistogramVec(prometheus.HistogramOpts{
			Name: "prscout_http_request_duration_seconds", Help: "Time to answer an HTTP request, by route template.",
			Buckets: []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60},
		}, []string{"route"}),
		InFlight: f.NewGauge(prometheus.GaugeOpts{
			Name: "prscout_http_requests_in_flight", Help: "HTTP requests being served now.",
		}),
		Throttled: f.NewCounterVec(prometheus.CounterOpts{
			Name: "prscout_http_throttled_total", Help: "Heavy requests refused with 429 because PRSCOUT_MAX_INFLIGHT were running, by route.",
		}, []string{"route"}),
		InternalErrors: f.NewCounter(prometheus.CounterOpts{
			Name: "prscout_internal_errors_total", Help: "Requests that ended in an internal (5xx) error.",
		}),
		NeedsAccepted: f.NewCounter(prometheus.CounterOpts{
			Name: "prscout_needs_accepted_total", Help: "Scout needs turned into repository lookups.",
		}),
		NeedsRejected: f.NewCounterVec(prometheus.CounterOpts{
			Name: "prscout_needs_rejected_total", Help: "Scout needs refused, by reason.",
		}, []string{"reason"}),
		NeedsPlaceholders: f.NewCounter(prometheus.CounterOpts{
			Name: "prscout_needs_placeholder_total", Help: "Needs answers with no requests (the {skip:true} placeholder that keeps the n8n chain alive).",
		}),
		Lookups: f.NewCounterVec(prometheus.CounterOpts{
			Name: "prscout_lookups_total", Help: "Repository lookups, by operation and outcome.",
		}, []string{"op", "outcome"}),
		CacheHits: f.NewCounter(prometheus.CounterOpts{
			Name: "prscout_lookup_cache_hits_total", Help: "Lookups answered from the (repository, commit, path) cache.",
		}),
		CacheMisses: f.NewCounter(prometheus.CounterOpts{
			Name: "prscout_lookup_cache_misses_total", Help: "Lookups that went to the repository provider.",
		}),
		PromptChars: f.NewHistogramVec(prometheus.HistogramOpts{
			Name: "prscout_prompt_chars", Help: "Size of the prompts prscout builds, in characters, by stage (scout, review).",
			Buckets: prometheus.ExponentialBuckets(1000, 2, 10),
		}, []string{"stage"}),
		ContextFiles: f.NewCounterVec(prometheus.CounterOpts{
			Name: "prscout_context_files_total", Help: "Changed files seen by /v1/context, by decision (reviewed or the exclusion reason).",
		}, []string{"decision"}),
		ContextDropped: f.NewCounter(prometheus.CounterOpts{
			Name: "prscout_merge_dropped_total", Help: "Additional context files dropped by /v1/merge to meet the prompt budget.",
		}),
		Redactions: f.NewCounterVec(prometheus.CounterOpts{
			Name: "prscout_redactions_total", Help: "Secrets replaced by [REDACTED:<kind>] before text left prscout toward a prompt or an n8n item (context, batch, merge, comments answers), by kind.",
		}, []string{"kind"}),
		ReviewModes: f.NewCounterVec(prometheus.CounterOpts{
			Name: "prscout_review_mode_total", Help: "Context answers by review mode (full, delta, skip).",
		}, []string{"mode"}),
		ReviewsSkipped: f.NewCounterVec(prometheus.CounterOpts{
			Name: "prscout_reviews_skipped_total", Help: "Reviews /v1/context skipped, by reason (skipCode: closed, draft, bot_author, title_marker, reviewed, merge_unchanged, paused, push_off, empty, trivial).",
		}, []string{"reason"}),
		RulesProposed: f.NewCounterVec(prometheus.CounterOpts{
			Name: "prscout_rules_proposed_total", Help: "Review rules proposed through POST /v1/rules/propose, by status: dry-run (answered only), added (committed onto the review rules pull request), duplicate (already on it), approved (already on the destination branch), refused (learnings off, provider cannot commit, broken rule file), invalid.",
		}, []string{"status"}),
		LearnedRulesApplied: f.NewCounter(prometheus.CounterOpts{
			Name: "prscout_learned_rules_applied_total", Help: "Learned rules (rule file entries with a source, on the destination branch only once their review rules pull request is merged: the approval) that won for at least one reviewed file, summed over reviews.",
		}),
		Findings: f.NewCounterVec(prometheus.CounterOpts{
			Name: "prscout_findings_anchored_total", Help: "Review findings rendered, by how they were anchored (line, snippet, file, unanchored).",
		}, []string{"anchor"}),
		Placements: f.NewCounterVec(prometheus.CounterOpts{
			Name: "prscout_findings_placed_total", Help: "Review findings rendered, by placement: inline (an inline comment), summary (summary only: not on a diff line, below the inline severity floor or past the comment budget), unverified (quoted code not found in what the review was shown; not inline, not counted).",
		}, []string{"placement"}),
		Evidence: f.NewCounterVec(prometheus.CounterOpts{
			Name: "prscout_findings_evidence_total", Help: "Review findings rendered, by the check of their quoted code against what the review was shown: verified (in the file named), elsewhere (in another file shown), unverified (no quote, not found, or only in removed lines).",
		}, []string{"verdict"}),
		FindingStates: f.NewCounterVec(prometheus.CounterOpts{
			Name: "prscout_findings_total", Help: "Findings on diff lines by review memory state, per repository (workspace/repoSlug): posted (first reported), resolved (anchored code changed, not reported again), outdated (file left the pull request), still_open (per reviewed head), dismissed (in its thread). Code-resolution rate: resolved / posted.",
		}, []string{"repository", "state"}),
		Comments: f.NewCounterVec(prometheus.CounterOpts{
			Name: "prscout_comments_total", Help: "Pull request comments and tasks, by kind (summary, inline, task) and action (created, updated, unchanged, skipped, failed, single_line: a multi-line inline comment posted on one line, resolved: a task, dry_run).",
		}, []string{"kind", "action"}),
		GateNodes: f.NewCounterVec(prometheus.CounterOpts{
			Name: "prscout_gate_nodes_total", Help: "n8n Code nodes checked by the workflow gate, by verdict.",
		}, []string{"verdict"}),
		UpstreamCalls: f.NewCounterVec(prometheus.CounterOpts{
			Name: "prscout_upstream_requests_total", Help: "HTTP calls to Bitbucket and Jira, by service, operation and status code (0: no answer).",
		}, []string{"service", "operation", "code"}),
		UpstreamDuration: f.NewHistogramVec(prometheus.HistogramOpts{
			Name: "prscout_upstream_request_duration_seconds", Help: "Time of one upstream HTTP call, by service.",
			Buckets: []float64{.01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30},
		}, []string{"service"}),
		UpstreamRetries: f.NewCounterVec(prometheus.CounterOpts{
			Name: "prscout_upstream_retries_total", Help: "Upstream calls that were retries (after 429 or 5xx), by service and operation.",
		}, []string{"service", "operation"}),
		RateLimitRemaining: f.NewGaugeVec(prometheus.GaugeOpts{
			Name: "prscout_upstream_ratelimit_remaining", Help: "Requests left in the upstream's rate-limit window where the upstream reports it (-1: unknown).",
		}, []string{"service"}),
		RateLimitLimit: f.NewGaugeVec(prometheus.GaugeOpts{
			Name: "prscout_upstream_ratelimit_limit", Help: "Size of the upstream's rate-limit window where the upstream reports it (-1: unknown).",
		}, []string{"service"}),
		RateLimitNear: f.NewGaugeVec(prometheus.GaugeOpts{
			Name: "prscout_upstream_ratelimit_near", Help: "1 when the upstream said the rate limit is near (X-RateLimit-NearLimit), else 0.",
		}, []string{"service"}),
		RateLimitSeen: f.NewGaugeVec(prometheus.GaugeOpts{
			Name: "prscout_upstream_ratelimit_seen_timestamp_seconds", Help: "When the upstream last reported rate-limit headers for a resource group (X-RateLimit-Resource; empty when unnamed), Unix time.",
		}, []string{"service", "resource"}),
		Deferred: f.NewCounterVec(prometheus.CounterOpts{
			Name: "prscout_deferred_total", Help: "Commit surfaces /v1/comments did not write because the Bitbucket rate limit was near (annotations, report, status); the comments are always posted.",
		}, []string{"what"}),
		WebhooksReceived: f.NewCounterVec(prometheus.CounterOpts{
			Name: "prscout_webhooks_total", Help: "Bitbucket webhooks received, by outcome (forwarded, ignored, bad_signature, forward_failed, duplicate, event_mismatch, too_large, busy, in_flight).",
		}, []string{"outcome"}),
		ThreadEvents: f.NewCounterVec(prometheus.CounterOpts{
			Name: "prscout_thread_events_total", Help: "Comment events read by /v1/thread (and answers by /v1/thread/answer), by kind (created, resolved, reopened, updated, answer) and outcome (command, question, answered, own_comment, bot, deleted, edit, thread_state, already_answered, rate_limited, not_addressed, not_finding_thread, not_found, self_unknown, thread_too_deep).",
		}, []string{"kind", "outcome"}),
		ThreadCommands: f.NewCounterVec(prometheus.CounterOpts{
			Name: "prscout_thread_commands_total", Help: "Thread commands carried out and answered, by command (review, full review, pause, resume, dismiss, help, unknown).",
		}, []string{"command"}),
		ThreadAnswers: f.NewCounter(prometheus.CounterOpts{
			Name: "prscout_thread_answers_total", Help: "Answers to questions in findings' threads posted by /v1/thread/answer.",
		}),
		Dismissals: f.NewCounter(prometheus.CounterOpts{
			Name: "prscout_dismissals_total", Help: "Findings dismissed in their thread (prscout dismiss <reason>).",
		}),
		ThreadReviews: f.NewCounterVec(prometheus.CounterOpts{
			Name: "prscout_thread_reviews_total", Help: "Reviews started by a thread command and forwarded to the review workflow, by command (review, full review).",
		}, []string{"command"}),
		KeepaliveRequests: f.NewCounterVec(prometheus.CounterOpts{
			Name: "prscout_keepalive_requests_total", Help: "Stage requests answered in a keep-alive mode (ndjson: Accept: application/x-ndjson; n8n: X-Prscout-Keepalive or ?keepalive=1).",
		}, []string{"mode"}),
		KeepaliveHeartbeats: f.NewCounterVec(prometheus.CounterOpts{
			Name: "prscout_keepalive_heartbeats_total", Help: "Heartbeats sent while a stage ran (ping lines or whitespace), by keep-alive mode.",
		}, []string{"mode"}),
		ModelAnswers: f.NewCounterVec(prometheus.CounterOpts{
			Name: "prscout_model_answers_total", Help: "Model answers read, by stage (scout, review) and quality (clean, repaired, salvaged: cut off, unreadable).",
		}, []string{"stage", "quality"}),
		VerifyPrompts: f.NewCounterVec(prometheus.CounterOpts{
			Name: "prscout_verify_prompts_total", Help: "Verify prompts answered by /v1/verify, by whether the verify call is asked for (verify: true, false).",
		}, []string{"verify"}),
		VerifyFindings: f.NewCounterVec(prometheus.CounterOpts{
			Name: "prscout_verify_findings_total", Help: "Findings a verify answer was applied to at /v1/comments, by outcome (kept, dropped).",
		}, []string{"outcome"}),
		CommitSurfaces: f.NewCounterVec(prometheus.CounterOpts{
			Name: "prscout_commit_surface_total", Help: "Build status (status) and Code Insights report (report) writes on reviewed commits, by outcome (ok, missing_scope, error, skipped).",
		}, []string{"surface", "outcome"}),
	}
	f.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "prscout_build_info", Help: "Build information; always 1.",
		ConstLabels: prometheus.Labels{"version": Version},
	}, func() float64 { return 1 })

	for _, r := range knownRoutes {
		m.HTTPDuration.WithLabelValues(r)
		m.Throttled.WithLabelValues(r)
		for _, code := range []int{200, 400, 500} {
			m.HTTPRequests.WithLabelValues(r, strconv.Itoa(code))
		}
	}
	for _, r := range knownNeedsReasons {
		m.NeedsRejected.WithLabelValues(r)
	}
	for _, op := range []string{"get_file", "list_dir"} {
		for _, o := range knownLookupOutcomes {
			m.Lookups.WithLabelValues(op, o)
		}
	}
	for _, s := range []string{"scout", "review"} {
		m.PromptChars.WithLabelValues(s)
	}
	m.ContextFiles.WithLabelValues("reviewed")
	for _, r := range pipeline.GateOrder {
		m.ContextFiles.WithLabelValues(r)
	}
	for _, k := range redact.Kinds {
		m.Redactions.WithLabelValues(k)
	}
	for _, mode := range knownReviewModes {
		m.ReviewModes.WithLabelValues(mode)
	}
	for _, code := range collect.SkipCodes {
		m.ReviewsSkipped.WithLabelValues(code)
	}
	for _, st := range knownProposalStatuses {
		m.RulesProposed.WithLabelValues(st)
	}
	for _, a := range knownAnchors {
		m.Findings.WithLabelValues(a)
	}
	for _, p := range placement.All {
		m.Placements.WithLabelValues(p)
	}
	for _, v := range evidence.Verdicts {
		m.Evidence.WithLabelValues(v)
	}
	// No repository is known at start: the states are pre-initialised with
	// an empty repository (the same as no label), so totals show zeros.
	for _, st := range knownFindingStates {
		m.FindingStates.WithLabelValues("", st)
	}
	for _, k := range []string{"summary", "inline"} {
		for _, a := range []string{"created", "updated", "unchanged", "skipped", "failed", "dry_run"} {
			m.Comments.WithLabelValues(k, a)
		}
	}
	for _, v := range knownGateVerdicts {
		m.GateNodes.WithLabelValues(v)
	}
	for _, s := range []string{"bitbucket", "jira"} {
		m.UpstreamDuration.WithLabelValues(s)
		m.RateLimitRemaining.WithLabelValues(s).Set(-1)
		m.RateLimitLimit.WithLabelValues(s).Set(-1)
		m.RateLimitNear.WithLabelValues(s).Set(0)
	}
	for _, w := range insights.Deferrable {
		m.Deferred.WithLabelValues(w)
	}
	for _, o := range []string{"forwarded", "ignored", "bad_signature", "forward_failed", "duplicate", "event_mismatch", "too_large", "busy", "in_flight", "comment_forwarded", "comment_not_forwarded"} {
		m.WebhooksReceived.WithLabelValues(o)
	}
	for _, k := range []string{"created", "resolved", "reopened", "updated", "answer"} {
		for _, o := range thread.Outcomes {
			m.ThreadEvents.WithLabelValues(k, o)
		}
	}
	for _, c := range thread.Commands {
		m.ThreadCommands.WithLabelValues(c)
	}
	for _, c := range []string{thread.CmdReview, thread.CmdFullReview} {
		m.ThreadReviews.WithLabelValues(c)
	}
	for _, mode := range []string{keepaliveNDJSON, keepaliveN8N} {
		m.KeepaliveRequests.WithLabelValues(mode)
		m.KeepaliveHeartbeats.WithLabelValues(mode)
	}
	for _, v := range []string{"true", "false"} {
		m.VerifyPrompts.WithLabelValues(v)
	}
	for _, o := range []string{"kept", "dropped"} {
		m.VerifyFindings.WithLabelValues(o)
	}
	for _, stage := range []string{"scout", "review", "verify"} {
		for _, q := range llmanswer.Qualities {
			m.ModelAnswers.WithLabelValues(stage, string(q))
		}
	}
	for _, s := range insights.Surfaces {
		for _, o := range insights.Outcomes {
			m.CommitSurfaces.WithLabelValues(s, o)
		}
	}
	m.registerCandidates(f)
	return m
}

// CountMemory adds one review's memory counts (state -> increment) for
// repository "workspace/repoSlug"; a repository's first count creates all
// its states, so its resolution rate has both terms from the start.
func (m *Metrics) CountMemory(repository string, counted map[string]int) {
	for _, st := range knownFindingStates {
		m.FindingStates.WithLabelValues(repository, st).Add(float64(counted[st]))
	}
}

// countSurfaces counts the outcomes of a build status and a report write
// (nil: nothing was due).
func (m *Metrics) countSurfaces(st *insights.StatusResult, rep *insights.ReportResult) {
	if st != nil {
		m.CommitSurfaces.WithLabelValues(insights.SurfaceStatus, st.Outcome).Inc()
	}
	if rep != nil {
		m.CommitSurfaces.WithLabelValues(insights.SurfaceReport, rep.Outcome).Inc()
	}
}

// Candidate and mirror outcomes, pre-initialised.
var (
	knownCandidateOutcomes = []string{"listed", "asked_by_scout", "added"}
	knownFetchOutcomes     = []string{"ok", "failed"}
	knownReadSources       = []string{"mirror", "rest"}
)

func (m *Metrics) registerCandidates(f promauto.Factory) {
	m.Candidates = f.NewCounterVec(prometheus.CounterOpts{
		Name: "prscout_candidates_total", Help: "Context candidates, by outcome: listed by /v1/context, asked_by_scout (the scout asked for a listed one itself), added (a request /v1/needs added for one).",
	}, []string{"outcome"})
	m.CandidatesListed = f.NewHistogram(prometheus.HistogramOpts{
		Name: "prscout_candidates_listed", Help: "Context candidates listed per review (/v1/context answers that were not skipped).",
		Buckets: []float64{0, 1, 2, 3, 5, 8, 12},
	})
	m.CandidatesDuration = f.NewHistogram(prometheus.HistogramOpts{
		Name: "prscout_candidates_duration_seconds", Help: "Time one /v1/context spent finding candidates (bounded by PRSCOUT_CANDIDATES_BUDGET).",
		Buckets: []float64{.05, .1, .25, .5, 1, 2.5, 5, 10},
	})
	m.MirrorFetches = f.NewCounterVec(prometheus.CounterOpts{
		Name: "prscout_mirror_fetches_total", Help: "Fetches into the repository mirror (PRSCOUT_MIRROR_DIR), by outcome.",
	}, []string{"outcome"})
	m.MirrorFetchDuration = f.NewHistogram(prometheus.HistogramOpts{
		Name: "prscout_mirror_fetch_duration_seconds", Help: "Time of one fetch into the repository mirror (a first clone included).",
		Buckets: []float64{.1, .25, .5, 1, 2.5, 5, 10, 30, 60, 300},
	})
	m.MirrorReads = f.NewCounterVec(prometheus.CounterOpts{
		Name: "prscout_mirror_reads_total", Help: "Repository reads of the Bitbucket provider, by where they were served from (mirror, rest).",
	}, []string{"source"})
	m.MirrorBytes = f.NewGauge(prometheus.GaugeOpts{
		Name: "prscout_mirror_bytes", Help: "Size of the repository mirror directory (PRSCOUT_MIRROR_DIR), measured after each fetch.",
	})
	m.MirrorEvictions = f.NewCounter(prometheus.CounterOpts{
		Name: "prscout_mirror_evictions_total", Help: "Repositories removed from the mirror, least recently used first, to keep it under PRSCOUT_MIRROR_MAX_BYTES.",
	})
	for _, o := range knownCandidateOutcomes {
		m.Candidates.WithLabelValues(o)
	}
	for _, o := range knownFetchOutcomes {
		m.MirrorFetches.WithLabelValues(o)
	}
	for _, s := range knownReadSources {
		m.MirrorReads.WithLabelValues(s)
	}
}

// MirrorObserver counts the repository mirror's fetches and reads; the
// mirror adapter takes it as its Observer.
type MirrorObserver struct{ m *Metrics }

// Mirror returns the mirror's observer.
func (m *Metrics) Mirror() MirrorObserver { return MirrorObserver{m: m} }

// MirrorFetch records one fetch.
func (o MirrorObserver) MirrorFetch(ok bool, d time.Duration) {
	outcome := "ok"
	if !ok {
		outcome = "failed"
	}
	o.m.MirrorFetches.WithLabelValues(outcome).Inc()
	o.m.MirrorFetchDuration.Observe(d.Seconds())
}

// MirrorRead records one read served from the mirror or from REST.
func (o MirrorObserver) MirrorRead(fromMirror bool) {
	source := "rest"
	if fromMirror {
		source = "mirror"
	}
	o.m.MirrorReads.WithLabelValues(source).Inc()
}

// MirrorBytes records the mirror directory's size.
func (o MirrorObserver) MirrorBytes(n int64) { o.m.MirrorBytes.Set(float64(n)) }

// MirrorEvicted records one repository removed by the quota.
func (o MirrorObserver) MirrorEvicted() { o.m.MirrorEvictions.Inc() }

// KnownUpstreamOperations pre-initialises the upstream series of service's
// operations (status 200, no retries), so dashboards and alerts on upstream
// calls see zeros from the start. The wiring calls it with each adapter's
// operation list.
func (m *Metrics) KnownUpstreamOperations(service string, ops []string) {
	for _, op := range ops {
		m.UpstreamCalls.WithLabelValues(service, op, "200")
		m.UpstreamRetries.WithLabelValues(service, op)
	}
}

// UpstreamObserver counts one upstream service's calls; the Bitbucket and
// Jira adapters take it as their Observer.
type UpstreamObserver struct {
	m       *Metrics
	service string
}

// Upstream returns the observer for service ("bitbucket" or "jira").
func (m *Metrics) Upstream(service string) UpstreamObserver {
	return UpstreamObserver{m: m, service: service}
}

// UpstreamCall records one HTTP attempt; status 0 means no answer.
func (o UpstreamObserver) UpstreamCall(operation string, status int, d time.Duration, retry bool) {
	o.m.UpstreamCalls.WithLabelValues(o.service, operation, strconv.Itoa(status)).Inc()
	o.m.UpstreamDuration.WithLabelValues(o.service).Observe(d.Seconds())
	if retry {
		o.m.UpstreamRetries.WithLabelValues(o.service, operation).Inc()
	}
}

// RateLimit records the rate-limit headroom the upstream reported on a
// response; -1 means the header was absent. resource is the resource group
// the budget belongs to (X-RateLimit-Resource), recorded as the time it was
// last reported; the headroom gauges hold the latest report of any group.
func (o UpstreamObserver) RateLimit(operation, resource string, limit, remaining int, nearLimit bool) {
	o.m.RateLimitSeen.WithLabelValues(o.service, resource).SetToCurrentTime()
	if remaining >= 0 {
		o.m.RateLimitRemaining.WithLabelValues(o.service).Set(float64(remaining))
	}
	if limit >= 0 {
		o.m.RateLimitLimit.WithLabelValues(o.service).Set(float64(limit))
	}
	v := 0.0
	if nearLimit {
		v = 1
	}
	o.m.RateLimitNear.WithLabelValues(o.service).Set(v)
}
