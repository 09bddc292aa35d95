package main

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"strings"

	"github.com/prscout/prscout/api"
	"github.com/prscout/prscout/bitbucket"
	"github.com/prscout/prscout/gitmirror"
	"github.com/prscout/prscout/jira"
	"github.com/prscout/prscout/localgit"
	"github.com/prscout/prscout/n8n"
	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/candidates"
)

// providers are the adapters behind the pipeline's ports.
type providers struct {
	name     string
	repo     pipeline.Repository
	diffs    pipeline.DiffSource
	prs      pipeline.PullRequests
	comments pipeline.CommentStore
	issues   pipeline.IssueLookup
	// reporter writes build statuses and Code Insights reports (Bitbucket
	// only; nil for the local provider, which has neither).
	reporter pipeline.CommitReporter
	// committer writes the review rules pull request (Bitbucket only; nil
	// for the local provider, which cannot take proposed rules); rulesRepo
	// reads the rule file it changes, always over REST (a mirror may not
	// have fetched the commit just made).
	committer pipeline.BranchCommitter
	rulesRepo pipeline.Repository
	// budget is the Bitbucket token's rate-limit budget; nil without Bitbucket.
	budget pipeline.RateBudget
	// search finds context candidates; searchOff says why there is none.
	search    pipeline.CodeSearch
	searchOff string
	webhook   *api.WebhookOptions
	// parseWebhook reads raw webhook bodies sent to /v1/context.
	parseWebhook func([]byte) (pipeline.Repo, int, error)
	ready        func(context.Context) error
	// warm reads ahead, once the server listens, what the first request
	// would pay for (nil: nothing); it stops when its context ends.
	warm func(context.Context) error
	// linkHosts are the web hosts comment links may point at.
	linkHosts []string
}

// buildProviders is the one place that picks adapters from the
// configuration: Bitbucket when its credentials are set, else the local git
// The webhook events the relay accepts (docs/bitbucket-jira.md, "Set up
// Bitbucket" lists them): pull request events go to PRSCOUT_FORWARD_URL,
// comment events to PRSCOUT_COMMENT_FORWARD_URL; any other is refused.
var (
	reviewEvents  = []string{"pullrequest:created", "pullrequest:updated"}
	commentEvents = []string{"pullrequest:comment_created", "pullrequest:comment_resolved", "pullrequest:comment_reopened"}
)

// provider; Jira when its base URL is set; the webhook relay when a secret is.
func buildProviders(cfg Config, m *api.Metrics, log *slog.Logger) (providers, error) {
	var p providers
	// Both services' series exist from the start, configured or not, so the
	// shipped dashboard and alert rules never query a missing metric.
	m.KnownUpstreamOperations("bitbucket", bitbucket.Operations)
	m.KnownUpstreamOperations("bitbucket", bitbucket.InsightsOperations)
	m.KnownUpstreamOperations("bitbucket", bitbucket.RulesOperations)
	m.KnownUpstreamOperations("jira", jira.Operations)
	if cfg.BitbucketEnabled() {
		// One budget per token: every Bitbucket client of the process records
		// into it and /v1/comments reads it.
		budget := bitbucket.NewBudget()
		bb, err := bitbucket.New(bitbucket.Config{
			Budget:      budget,
			BaseURL:     cfg.BitbucketBaseURL,
			Email:       cfg.BitbucketEmail,
			Token:       cfg.BitbucketToken,
			AccessToken: cfg.BitbucketAccessToken,
			AccountID:   cfg.BitbucketAccountID,
			Timeout:     cfg.UpstreamTimeout,
			MaxRetries:  adapterRetries(cfg.UpstreamRetries),
			Observer:    m.Upstream("bitbucket"),
			Logger:      log,
		})
		if err != nil {
			return p, fmt.Errorf("bitbucket: %w", err)
		}
		p.name, p.repo, p.diffs, p.prs, p.comments, p.reporter = "bitbucket", bb, bb, bb, bb, bb
		p.committer, p.rulesRepo = bb, bb
		p.budget = budget
		p.linkHosts = []string{webHost(cfg.BitbucketBaseURL)}
		p.parseWebhook = parseWebhookBody
		p.searchOff = gitmirror.Off
		if cfg.MirrorDir != "" {
			mp, err := buildMirror(cfg, bb, m, log)
			if err != nil {
				return p, err
			}
			// Reads, ancestry and code search go through the mirror; diffs
			// and comments stay on REST.
			p.repo, p.prs, p.search, p.searchOff = mp, mp, mp, ""
		}
	} else {
		st, err := os.Stat(cfg.LocalRoot)
		if err != nil || !st.IsDir() {
			return p, fmt.Errorf("PRSCOUT_LOCAL_ROOT %q is not a directory", cfg.LocalRoot)
		}
		lg := localgit.New(cfg.LocalRoot)
		p.name, p.repo, p.diffs, p.search, p.warm = "local", lg, lg, lg, warmLocal(lg)
		if cfg.MirrorDir != "" {
			log.Info("PRSCOUT_MIRROR_DIR is ignored: the local provider reads its repositories directly")
		}
		p.ready = func(context.Context) error {
			if _, err := os.Stat(cfg.LocalRoot); err != nil {
				return fmt.Errorf("local root unavailable: %w", err)
			}
			return nil
		}
	}
	if cfg.JiraBaseURL != "" {
		jc, err := buildJira(cfg, m, log)
		if err != nil {
			return p, err
		}
		p.issues = jc
	}
	if cfg.WebhookSecret != "" {
		secret := []byte(cfg.WebhookSecret)
		p.webhook = &api.WebhookOptions{
			Verify:            func(body []byte, sig string) error { return bitbucket.VerifySignature(secret, body, sig) },
			Events:            append(append([]string{}, reviewEvents...), commentEvents...),
			CommentEvents:     commentEvents,
			CommentForwardURL: cfg.CommentForwardURL,
			CheckEvent:        bitbucket.CheckEventBody,
			DedupWindow:       cfg.WebhookDedupWindow,
			MaxBodyBytes:      cfg.WebhookMaxBodyBytes,
			MaxInflight:       cfg.WebhookMaxInflight,
			ForwardURL:        cfg.ForwardURL,
			// The forward carries the header-auth token: n8n.Forwarder
			// never follows a redirect to another host.
			Forwarder: &n8n.Forwarder{Header: cfg.ForwardHeader, Token: cfg.ForwardToken,
				HTTPClient: &http.Client{Timeout: cfg.ForwardTimeout}},
		}
	}
	return p, nil
}

// buildJira builds the Jira client and, when an acceptance-criteria field
// is named, resolves it in the background (a failure is a warning: the
// description's section is read instead).
func buildJira(cfg Config, m *api.Metrics, log *slog.Logger) (*jira.Client, error) {
	jc, err := jira.New(jira.Config{
		BaseURL: cfg.JiraBaseURL, Email: cfg.JiraEmail, Token: cfg.JiraToken, PAT: cfg.JiraPAT,
		AcceptanceField: cfg.JiraACField, MaxIssues: cfg.JiraMaxIssues, Projects: splitList(cfg.JiraProjects),
		Timeout: cfg.UpstreamTimeout, MaxRetries: adapterRetries(cfg.UpstreamRetries),
		Observer: m.Upstream("jira"),
		Logger:   log,
	})
	if err != nil {
		return nil, fmt.Errorf("jira: %w", err)
	}
	if cfg.JiraACField != "" {
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), cfg.UpstreamTimeout)
			defer cancel()
			if _, err := jc.ResolveAcceptanceField(ctx); err != nil {
				log.Warn("jira acceptance-criteria field not resolved", "field", cfg.JiraACField, "err", err)
			}
		}()
	}
	return jc, nil
}

// buildMirror puts the repository mirror in front of the Bitbucket client:
// git over HTTPS with the same credentials, an Atlassian API token as the
// static user x-bitbucket-api-token-auth, an access token as x-token-auth;
// the mirrors are read through the local git provider rooted at the mirror
// directory.
// The API's mirror observer also takes the mirror's size and removals.
var _ gitmirror.SizeObserver = api.MirrorObserver{}

func buildMirror(cfg Config, bb *bitbucket.Client, m *api.Metrics, log *slog.Logger) (*gitmirror.Provider, error) {
	user, token := gitmirror.APITokenUser, cfg.BitbucketToken
	if cfg.BitbucketAccessToken != "" {
		user, token = gitmirror.AccessTokenUser, cfg.BitbucketAccessToken
	}
	mr, err := gitmirror.New(gitmirror.Config{
		Dir: cfg.MirrorDir, BaseURL: cfg.MirrorGitBase(), User: user, Token: token,
		FetchTimeout: cfg.MirrorFetchTimeout, Observer: m.Mirror(), Logger: log,
		BlobLimit: cfg.Limits.MaxFileBytes, MaxBytes: cfg.MirrorMaxBytes,
	})
	if err != nil {
		return nil, fmt.Errorf("bitbucket mirror: %w", err)
	}
	return gitmirror.NewProvider(mr, bb, localgit.New(cfg.MirrorDir)), nil
}

// adapterRetries turns PRSCOUT_UPSTREAM_RETRIES into the adapters'
// Config.MaxRetries, which reads 0 as "the adapter's default" and a negative
// count as "no retry": the setting's 0 means no retry.
func adapterRetries(n int) int {
	if n == 0 {
		return -1
	}
	return n
}

// parseWebhookBody reads a raw Bitbucket pull request webhook body sent to
// /v1/context (as n8n's Webhook node hands it over).
func parseWebhookBody(body []byte) (pipeline.Repo, int, error) {
	ev, err := bitbucket.ParseWebhook("pullrequest:updated", body)
	if err != nil {
		return pipeline.Repo{}, 0, err
	}
	return ev.Repo, ev.PR.ID, nil
}

// webHost is the web host of a Bitbucket API base URL: the API's host
// without its "api." label ("https://api.bitbucket.org/2.0" → "bitbucket.org").
func webHost(baseURL string) string {
	if baseURL == "" {
		baseURL = bitbucket.DefaultBaseURL
	}
	u, err := url.Parse(baseURL)
	if err != nil {
		return ""
	}
	return strings.TrimPrefix(strings.ToLower(u.Hostname()), "api.")
}

// warmLocal reads ahead what a local provider's first request needs: the
// provider's own read-ahead (localgit's Warm), then the readers of the
// languages of HEAD's files.
func warmLocal(lg *localgit.Provider) func(context.Context) error {
	return func(ctx context.Context) error {
		if err := lg.Warm(ctx); err != nil {
			return err
		}
		paths, err := lg.HeadFiles(ctx)
		if err != nil {
			return err
		}
		candidates.Prepare(ctx, paths)
		return nil
	}
}
