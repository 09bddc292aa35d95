package api

import "time"

// WebhookOptions configure the signed Bitbucket webhook relay.
type WebhookOptions struct {
	Secret        []byte
	ForwardURL    string
	ForwardHeader string
	ForwardToken  string
	Timeout       time.Duration
}
