package main

import (
	"context"
	"log/slog"

	"github.com/prscout/prscout/api"
	"github.com/prscout/prscout/pipeline"
)

type providers struct {
	name     string
	repo     pipeline.Repository
	diffs    pipeline.DiffSource
	prs      pipeline.PullRequests
	comments pipeline.CommentStore
	issues   pipeline.IssueLookup
	webhook  *api.WebhookOptions
	ready    func(context.Context) error
}

func buildProviders(cfg Config, m *api.Metrics, log *slog.Logger) (providers, error) {
	return providers{name: "none"}, nil
}
