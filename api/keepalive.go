package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"
)

// Keep-alive modes. A proxy's read timeout (nginx proxy_read_timeout, a load
// balancer's idle timeout) counts silence, not total time: a stage that
// waits out a 429 or reads a large pull request must keep talking or the
// proxy answers 504 in its place. A client opts in per request:
//
//   - ndjson: `Accept: application/x-ndjson`. The answer is newline-delimited
//     JSON: `{"type":"ping"}` lines while the stage runs, then exactly one
//     `{"type":"result","status":200,"data":<answer>}` or
//     `{"type":"error","status":<code>,"cause":...,"error":...,"message":...}` line.
//   - n8n: `X-Prscout-Keepalive: 1` or `?keepalive=1`. The answer stays one
//     JSON document that n8n's HTTP Request node parses as usual. If the
//     stage ends before the first heartbeat is due, the answer is exactly the
//     plain one (same status, same body). Otherwise prscout commits status 200
//     and `Content-Type: application/json`, writes a newline every interval
//     (JSON allows leading whitespace) and then the body; an error found after
//     the status was sent is carried in the body as
//     `{"status","cause","error","message"[,"field"]}`, so the workflow needs an IF on
//     `$json.error` after the node.
//
// Without either, the stage answers as before.
const (
	keepaliveNone   = ""
	keepaliveNDJSON = "ndjson"
	keepaliveN8N    = "n8n"
)

func keepaliveMode(r *http.Request) string {
	for _, part := range strings.Split(r.Header.Get("Accept"), ",") {
		if mt, _, err := mime.ParseMediaType(strings.TrimSpace(part)); err == nil && mt == "application/x-ndjson" {
			return keepaliveNDJSON
		}
	}
	if v := r.Header.Get("X-Prscout-Keepalive"); v != "" && v != "0" && !strings.EqualFold(v, "false") {
		return keepaliveN8N
	}
	if v := r.URL.Query().Get("keepalive"); v != "" && v != "0" && !strings.EqualFold(v, "false") {
		return keepaliveN8N
	}
	return keepaliveNone
}

// keepalive wraps a stage handler. In keep-alive mode the handler runs in its
// own goroutine against a recorder while this one sends heartbeats; the
// handler's status stays on c.Writer afterwards, so metrics and the request
// log count the stage's real outcome even when the client got a 200.
func (s *Server) keepalive(h gin.HandlerFunc) gin.HandlerFunc {
	return func(c *gin.Context) {
		mode := keepaliveMode(c.Request)
		if mode == keepaliveNone || s.opts.KeepaliveInterval <= 0 {
			h(c)
			return
		}
		s.metrics.KeepaliveRequests.WithLabelValues(mode).Inc()
		out := c.Writer
		rec := &recorder{ResponseWriter: out, header: http.Header{}}
		c.Writer = rec

		done := make(chan any, 1)
		go func() {
			defer func() { done <- recover() }()
			h(c)
		}()

		tick := time.NewTicker(s.opts.KeepaliveInterval)
		defer tick.Stop()
		started := false
		var panicked any
	wait:
		for {
			select {
			case panicked = <-done:
				break wait
			case <-tick.C:
				if !started {
					started = true
					startStream(out, mode, http.StatusOK)
				}
				s.metrics.KeepaliveHeartbeats.WithLabelValues(mode).Inc()
				// A write error means the client left; the handler sees its
				// context cancelled and returns, and we wait for it.
				if mode == keepaliveNDJSON {
					_, _ = out.WriteString(`{"type":"ping"}` + "\n")
				} else {
					_, _ = out.WriteString("\n")
				}
				out.Flush()
			}
		}
		if panicked != nil {
			// Re-raise on the request goroutine: recoverJSON logs and counts
			// it, and answers 500 when nothing was sent yet. When heartbeats
			// went out, the client still gets its last line.
			c.Writer = out
			if started {
				ir := &recorder{header: http.Header{}, status: http.StatusInternalServerError}
				b, _ := json.Marshal(ErrorBody{Error: "internal", Message: "internal error; see the server log for the request id"})
				ir.buf.Write(b)
				if mode == keepaliveNDJSON {
					writeNDJSONResult(out, ir)
				} else {
					writeN8NResult(out, ir)
				}
				out.Flush()
			}
			panic(panicked)
		}
		if !started && mode == keepaliveN8N {
			rec.passThrough()
			return
		}
		if !started {
			// Nothing sent yet: the NDJSON answer can carry the real status.
			startStream(out, mode, rec.Status())
		}
		if mode == keepaliveNDJSON {
			writeNDJSONResult(out, rec)
		} else {
			writeN8NResult(out, rec)
		}
		out.Flush()
	}
}

// startStream commits the keep-alive answer's status and headers.
func startStream(w gin.ResponseWriter, mode string, status int) {
	if mode == keepaliveNDJSON {
		w.Header().Set("Content-Type", "application/x-ndjson")
	} else {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
	}
	// Tell nginx not to buffer: heartbeats must reach the client too, not
	// only nginx (whose read timeout they already reset).
	w.Header().Set("X-Accel-Buffering", "no")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	w.WriteHeaderNow()
}

// compactBody returns the recorded answer on one line (NDJSON needs that; the
// stages already write compact JSON, so this rarely copies).
func (r *recorder) compactBody() []byte {
	b := bytes.TrimSpace(r.buf.Bytes())
	if bytes.IndexByte(b, '\n') < 0 {
		return b
	}
	var out bytes.Buffer
	if err := json.Compact(&out, b); err != nil {
		return b
	}
	return out.Bytes()
}

// isJSON reports whether the recorded body is one JSON value (with only
// JSON whitespace around it: bytes.TrimSpace would also drop \v or U+0085).
func (r *recorder) isJSON() bool { return json.Valid(r.buf.Bytes()) }

func writeNDJSONResult(w gin.ResponseWriter, r *recorder) {
	status := r.Status()
	var line bytes.Buffer
	if status >= 200 && status < 300 && r.isJSON() {
		fmt.Fprintf(&line, `{"type":"result","status":%d,"data":`, status)
		line.Write(r.compactBody())
		line.WriteString("}\n")
	} else {
		line.Write(errorLine(`{"type":"error",`, r))
		line.WriteString("\n")
	}
	_, _ = w.Write(line.Bytes())
}

func writeN8NResult(w gin.ResponseWriter, r *recorder) {
	status := r.Status()
	if status >= 200 && status < 300 && r.isJSON() {
		_, _ = w.Write(r.buf.Bytes())
		return
	}
	_, _ = w.Write(errorLine("{", r))
}

// errorLine renders the recorded error as a JSON object opened by prefix:
// the handler's ErrorBody fields plus "status".
func errorLine(prefix string, r *recorder) []byte {
	var eb ErrorBody
	if json.Unmarshal(r.buf.Bytes(), &eb) != nil || eb.Error == "" {
		eb = ErrorBody{Error: "internal", Message: "the stage gave no JSON answer (status " + strconv.Itoa(r.Status()) + ")"}
	}
	fields, _ := json.Marshal(eb)
	var b bytes.Buffer
	b.WriteString(prefix)
	fmt.Fprintf(&b, `"status":%d,`, r.Status())
	b.Write(fields[1:]) // drop ErrorBody's opening brace
	return b.Bytes()
}

// recorder is a gin.ResponseWriter that keeps the handler's answer in memory.
type recorder struct {
	gin.ResponseWriter
	header  http.Header
	buf     bytes.Buffer
	status  int
	written bool
}

func (r *recorder) Header() http.Header { return r.header }
func (r *recorder) WriteHeader(code int) {
	if !r.written && code > 0 {
		r.status = code
	}
}
func (r *recorder) WriteHeaderNow() { r.written = true }
func (r *recorder) Write(b []byte) (int, error) {
	r.written = true
	return r.buf.Write(b)
}
func (r *recorder) WriteString(s string) (int, error) {
	r.written = true
	return r.buf.WriteString(s)
}
func (r *recorder) Status() int {
	if r.status == 0 {
		return http.StatusOK
	}
	return r.status
}
func (r *recorder) Size() int {
	if !r.written {
		return -1
	}
	return r.buf.Len()
}
func (r *recorder) Written() bool { return r.written }
func (r *recorder) Flush()        {}

// passThrough sends the recorded answer unchanged.
func (r *recorder) passThrough() {
	out := r.ResponseWriter
	for k, v := range r.header {
		out.Header()[k] = v
	}
	out.WriteHeader(r.Status())
	_, _ = out.Write(r.buf.Bytes())
}
