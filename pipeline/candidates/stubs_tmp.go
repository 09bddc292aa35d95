package candidates

import "context"

func findTokens(ctx context.Context, tree Tree, cs []*change, ev *evidence) error      { return nil }
func findIdentifiers(ctx context.Context, tree Tree, cs []*change, ev *evidence) error { return nil }
