package api

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/learn"
)

// ErrorBody is every 4xx/5xx answer: `error` is a stable code, `message`
// the readable text, `field` the JSON path of the offending input field when
// there is one. n8n 2.x's HTTP Request node shows the first of `cause, error,
// message, ...` as the error's detail (seen in a real n8n 2.8.4), so the body
// also carries `cause`, the readable text, first: people read "files[2].path
// must be a string" in n8n instead of "invalid".
type ErrorBody struct {
	// Cause is filled from Message and Field when it is empty.
	Cause   string `json:"cause"`
	Error   string `json:"error"`
	Message string `json:"message"`
	Field   string `json:"field,omitempty"`
}

// MarshalJSON writes cause first, then error, message and field.
func (b ErrorBody) MarshalJSON() ([]byte, error) {
	cause := b.Cause
	if cause == "" {
		cause = b.Message
		if b.Field != "" && !strings.Contains(cause, b.Field) {
			cause = b.Field + ": " + cause
		}
	}
	type plain struct {
		Cause   string `json:"cause"`
		Error   string `json:"error"`
		Message string `json:"message"`
		Field   string `json:"field,omitempty"`
	}
	return json.Marshal(plain{Cause: cause, Error: b.Error, Message: b.Message, Field: b.Field})
}

// httpError is an error that already knows its status and code.
type httpError struct {
	status int
	code   string
	msg    string
	field  string
}

func (e *httpError) Error() string { return e.msg }

func badRequest(field, msg string) error {
	return &httpError{status: http.StatusBadRequest, code: "invalid", msg: msg, field: field}
}

// errorTable maps sentinel errors of the pipeline to statuses and codes. The
// first match wins; anything unmatched is an internal error.
var errorTable = []struct {
	target error
	status int
	code   string
}{
	{pipeline.ErrNotFound, http.StatusNotFound, "not_found"},
	{pipeline.ErrSecret, http.StatusForbidden, "forbidden"},
	{pipeline.ErrTooLarge, http.StatusUnprocessableEntity, "too_large"},
	{pipeline.ErrBinary, http.StatusUnprocessableEntity, "binary"},
	{pipeline.ErrIsDir, http.StatusUnprocessableEntity, "is_dir"},
	{pipeline.ErrNotDir, http.StatusUnprocessableEntity, "not_dir"},
	{pipeline.ErrUpstream, http.StatusBadGateway, "upstream"},
	{context.DeadlineExceeded, http.StatusGatewayTimeout, "timeout"},
}

// classify turns any error into the status and body the client gets.
func classify(err error) (int, ErrorBody) {
	var he *httpError
	if errors.As(err, &he) {
		return he.status, ErrorBody{Error: he.code, Message: he.msg, Field: he.field}
	}
	var inv *pipeline.InvalidError
	if errors.As(err, &inv) {
		return http.StatusBadRequest, ErrorBody{Error: "invalid", Message: inv.Error(), Field: inv.Field}
	}
	var refused *learn.RefusedError
	if errors.As(err, &refused) {
		return http.StatusConflict, ErrorBody{Error: refused.Code, Message: refused.Msg}
	}
	for _, row := range errorTable {
		if errors.Is(err, row.target) {
			return row.status, ErrorBody{Error: row.code, Message: err.Error()}
		}
	}
	if errors.Is(err, context.Canceled) {
		// The client went away; 499 is nginx's convention and never reaches it.
		return 499, ErrorBody{Error: "canceled", Message: "request canceled by the client"}
	}
	return http.StatusInternalServerError, ErrorBody{Error: "internal", Message: "internal error; see the server log for the request id"}
}

// writeError is the one place where errors become HTTP answers. Internal
// errors are logged with detail and counted; the client sees no detail.
func (s *Server) writeError(c *gin.Context, err error) {
	status, body := classify(err)
	if status >= 500 && status != http.StatusBadGateway && status != http.StatusGatewayTimeout {
		s.log.ErrorContext(c.Request.Context(), "internal error", "route", c.FullPath(), "err", err, "request_id", requestID(c))
		s.metrics.InternalErrors.Inc()
	} else if status >= 500 {
		s.log.WarnContext(c.Request.Context(), "upstream error", "route", c.FullPath(), "err", err, "request_id", requestID(c))
	}
	c.AbortWithStatusJSON(status, body)
}

func requestID(c *gin.Context) string {
	if v, ok := c.Get(requestIDKey); ok {
		if s, ok := v.(string); ok {
			return s
		}
	}
	return ""
}

var _ = slog.Default
