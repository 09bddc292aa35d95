package api

import (
	"crypto/subtle"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/prscout/prscout/pipeline/gate"
)

// RequestLimits bound what one request may cost: how long its body may take
// to arrive and its answer to be taken, how many heavy requests run at once,
// and how long the lists in a request may be. The values are the service's
// settings (cmd/prscout's settings table holds their defaults); every field
// must be set (Check), except MaxInflight, whose 0 switches the cap off.
type RequestLimits struct {
	// ReadTimeout bounds the time from the request's start to the end of its
	// body (a body trickled a byte at a time is cut). PRSCOUT_READ_TIMEOUT.
	ReadTimeout time.Duration
	// WriteTimeout bounds each write of the answer: a client that stops
	// reading holds the answer at most this long. Every write (keep-alive
	// heartbeats included) starts a new period, so a long stage is never cut
	// while it streams. PRSCOUT_WRITE_TIMEOUT.
	WriteTimeout time.Duration
	// MaxInflight is how many heavy stage requests (context, preview, needs,
	// repository/batch, merge, comments, workflows/validate) run at once;
	// the next gets 429 with Retry-After; 0 or less: no cap.
	// PRSCOUT_MAX_INFLIGHT.
	MaxInflight int
	// MaxNeeds bounds the needs one /v1/needs request proposes (files[].needs
	// and the scout answer's, before caps and checks). PRSCOUT_MAX_NEEDS.
	MaxNeeds int
	// MaxScoutBytes bounds the scout answer given to /v1/needs (a model's
	// answer is kilobytes). PRSCOUT_MAX_SCOUT_BYTES.
	MaxScoutBytes int
	// MaxFiles bounds files[] of /v1/needs, /v1/merge and /v1/comments.
	// PRSCOUT_MAX_FILES.
	MaxFiles int
	// MaxBatchRequests bounds requests[] of /v1/repository/batch and
	// results[] of /v1/merge. PRSCOUT_MAX_BATCH_REQUESTS.
	MaxBatchRequests int
	// GateTimeout is the time budget of one /v1/workflows/validate request.
	// PRSCOUT_VALIDATE_TIMEOUT.
	GateTimeout time.Duration
	// Gate bounds the workflow gate (nesting depth, code size, nodes, ...).
	Gate gate.Limits
}

// Check names the first field that is not set: the API has no defaults of
// its own, so a zero would bound nothing (or everything).
func (l RequestLimits) Check() error {
	for _, f := range []struct {
		name string
		ok   bool
	}{
		{"ReadTimeout", l.ReadTimeout > 0}, {"WriteTimeout", l.WriteTimeout > 0},
		{"MaxNeeds", l.MaxNeeds > 0}, {"MaxScoutBytes", l.MaxScoutBytes > 0},
		{"MaxFiles", l.MaxFiles > 0}, {"MaxBatchRequests", l.MaxBatchRequests > 0},
		{"GateTimeout", l.GateTimeout > 0}, {"Gate", l.Gate != (gate.Limits{})},
	} {
		if !f.ok {
			return fmt.Errorf("RequestLimits.%s is not set", f.name)
		}
	}
	return nil
}

// retryAfterSeconds is the Retry-After of a 429: heavy stages take seconds.
const retryAfterSeconds = 2

// deadlines bounds the time the request body may take to arrive and each
// write of the answer, through http.ResponseController on this request's
// connection. http.Server's own ReadTimeout cannot be used: when it passes,
// net/http's background read of an idle connection fails and cancels the
// request's context, which would stop every stage longer than the timeout.
// So the read deadline is set here and lifted as soon as the body is read
// (readBody), and the write deadline is pushed forward at every write.
func (s *Server) deadlines(c *gin.Context) {
	lim := s.opts.RequestLimits
	rc := http.NewResponseController(c.Writer)
	// Errors mean the writer cannot set deadlines (a test recorder): nothing
	// to bound then.
	_ = rc.SetReadDeadline(time.Now().Add(lim.ReadTimeout))
	c.Set(readDeadlineKey, rc)
	c.Writer = &deadlineWriter{ResponseWriter: c.Writer, rc: rc, timeout: lim.WriteTimeout}
	c.Next()
}

const readDeadlineKey = "prscout.read_deadline"

// bodyRead lifts the read deadline once the body is in (ok): from then on
// the connection is only watched for the client going away. When the body
// failed (a timeout, a broken connection) the deadline is set in the past
// instead: net/http would otherwise try to drain the rest of a trickled
// body before answering.
func bodyRead(c *gin.Context, ok bool) {
	v, found := c.Get(readDeadlineKey)
	rc, isRC := v.(*http.ResponseController)
	if !found || !isRC {
		return
	}
	if ok {
		_ = rc.SetReadDeadline(time.Time{})
	} else {
		_ = rc.SetReadDeadline(time.Now())
	}
}

// deadlineWriter sets the connection's write deadline before each write.
type deadlineWriter struct {
	gin.ResponseWriter
	rc      *http.ResponseController
	timeout time.Duration
	last    time.Time
}

func (w *deadlineWriter) extend() {
	// Setting a deadline costs a syscall-free timer reset; once per 100ms
	// of writes is plenty for timeouts counted in seconds.
	if now := time.Now(); now.Sub(w.last) > 100*time.Millisecond {
		w.last = now
		_ = w.rc.SetWriteDeadline(now.Add(w.timeout))
	}
}

func (w *deadlineWriter) Write(b []byte) (int, error) {
	w.extend()
	return w.ResponseWriter.Write(b)
}

func (w *deadlineWriter) WriteString(s string) (int, error) {
	w.extend()
	return w.ResponseWriter.WriteString(s)
}

func (w *deadlineWriter) WriteHeaderNow() {
	w.extend()
	w.ResponseWriter.WriteHeaderNow()
}

func (w *deadlineWriter) Flush() {
	w.extend()
	w.ResponseWriter.Flush()
}

// Unwrap lets http.ResponseController reach the connection.
func (w *deadlineWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// limitInflight caps the heavy requests running at once; past the cap the
// answer is 429 with Retry-After, at once, so the work never queues up in
// memory.
func (s *Server) limitInflight(h gin.HandlerFunc) gin.HandlerFunc {
	if s.inflight == nil {
		return h
	}
	return func(c *gin.Context) {
		select {
		case s.inflight <- struct{}{}:
		default:
			s.metrics.Throttled.WithLabelValues(c.FullPath()).Inc()
			c.Header("Retry-After", strconv.Itoa(retryAfterSeconds))
			c.AbortWithStatusJSON(http.StatusTooManyRequests, ErrorBody{Error: "busy",
				Message: fmt.Sprintf("%d heavy requests are already running (PRSCOUT_MAX_INFLIGHT); retry after %d seconds", cap(s.inflight), retryAfterSeconds)})
			return
		}
		defer func() { <-s.inflight }()
		h(c)
	}
}

// tooMany is the 422 for a list over its limit.
func tooMany(field string, n, limit int, setting string) error {
	return &httpError{status: http.StatusUnprocessableEntity, code: "too_large", field: field,
		msg: fmt.Sprintf("%s has %d entries, over the limit of %d (%s)", field, n, limit, setting)}
}

// bearerToken is the token of an Authorization: Bearer header, or "".
func bearerToken(c *gin.Context) string {
	if auth := c.GetHeader("Authorization"); len(auth) > 7 && strings.EqualFold(auth[:7], "bearer ") {
		return strings.TrimSpace(auth[7:])
	}
	return ""
}

// metricsAuth guards /metrics when PRSCOUT_METRICS_TOKEN or
// PRSCOUT_METRICS_AUTH is set: a bearer token (what Prometheus sends with
// `authorization: credentials_file`) equal to the metrics token or to an API
// key, or an X-API-Key header with an API key.
func (s *Server) metricsAuth(c *gin.Context) {
	if s.opts.MetricsToken == "" && !s.opts.MetricsAuth {
		return
	}
	got := bearerToken(c)
	key := c.GetHeader("X-API-Key")
	ok := 0
	if s.opts.MetricsToken != "" && got != "" {
		ok |= subtle.ConstantTimeCompare([]byte(got), []byte(s.opts.MetricsToken))
	}
	if s.opts.MetricsAuth {
		for _, k := range s.keys {
			if got != "" {
				ok |= subtle.ConstantTimeCompare([]byte(got), k)
			}
			if key != "" {
				ok |= subtle.ConstantTimeCompare([]byte(key), k)
			}
		}
	}
	if ok != 1 {
		c.Header("WWW-Authenticate", `Bearer realm="prscout metrics"`)
		c.AbortWithStatusJSON(http.StatusUnauthorized, ErrorBody{Error: "unauthorized",
			Message: "/metrics needs a bearer token (PRSCOUT_METRICS_TOKEN or PRSCOUT_METRICS_AUTH)"})
	}
}
