package pipeline

import "context"

type requestIDKey struct{}

// WithRequestID returns ctx carrying the request id that n8n passed (or the
// server made), so adapters can log it with their upstream calls.
func WithRequestID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, requestIDKey{}, id)
}

// RequestID returns the request id carried by ctx, or "".
func RequestID(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey{}).(string)
	return id
}
