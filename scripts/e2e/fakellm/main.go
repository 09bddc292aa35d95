// Command fakellm is an OpenAI-compatible chat-completions server for the
// n8n end-to-end test. POST /v1/chat/completions answers with the fixture's
// fixed scout, review or verify text: the request is a verify call when its
// system prompt starts "You check another reviewer's findings" (answered
// {"verdicts":[...]}, keeping every finding but the one titled as the
// fixture's VerifyDrop; its PR is the one with that drop title, 0 when
// none), a review when its messages ask for "findings" (the review prompt's
// answer format), a scout otherwise, and the pull request is found by its
// title in the messages; a review whose prompt says "Review mode: delta"
// gets the fixture's answer for the push; a pull request reviewed in groups
// gets the answer of the group whose file the review prompt shows, and HTTP
// 500 for its failing group; a review the fixture cuts off comes with
// finish_reason "length". A thread's answer prompt (its system prompt starts
// "You are prscout, an AI code reviewer. A participant ...") is answered
// {"answer": fixture.ConvoAnswer}. Every request is appended to -log as one JSON line
// so the test can check what n8n sent. It listens on loopback only.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/prscout/prscout/scripts/e2e/internal/fixture"
	"github.com/prscout/prscout/scripts/e2e/internal/serve"
)

type chatRequest struct {
	Model    string    `json:"model"`
	Messages []message `json:"messages"`
}

type message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// Logged is one request as written to the log.
type Logged struct {
	Kind string `json:"kind"` // scout | review | delta-review | verify | answer | unknown
	PR   int    `json:"pr"`
	// Part is the "# Part k of n" line of a review group's prompt.
	Part      string `json:"part,omitempty"`
	Model     string `json:"model"`
	AuthOK    bool   `json:"authOk"`
	System    string `json:"system"`
	User      string `json:"user"`
	Status    int    `json:"status"`
	UnixMilli int64  `json:"unixMilli"`
	// Finish is the finish reason answered ("stop" unless the fixture's
	// review stops at the token limit).
	Finish string `json:"finish"`
}

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "listen address (loopback)")
	addrFile := flag.String("addr-file", "", "write the bound address here once listening")
	logPath := flag.String("log", "", "append each request as a JSON line to this file")
	key := flag.String("key", "", "required bearer key (Authorization: Bearer <key>); empty accepts any")
	flag.Parse()

	host, _, err := net.SplitHostPort(*addr)
	if ip := net.ParseIP(host); err != nil || ip == nil || !ip.IsLoopback() {
		log.Fatalf("fakellm: -addr must be a loopback host:port, got %q", *addr)
	}
	var mu sync.Mutex
	var logFile *os.File
	if *logPath != "" {
		if logFile, err = os.OpenFile(*logPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644); err != nil {
			log.Fatal(err)
		}
		defer logFile.Close()
	}
	seq := 0
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", func(w http.ResponseWriter, r *http.Request) {
		var req chatRequest
		entry := Logged{UnixMilli: time.Now().UnixMilli(), Kind: "unknown", Finish: "stop"}
		entry.AuthOK = *key == "" || r.Header.Get("Authorization") == "Bearer "+*key
		status, body := answer(r, &req, &entry)
		if !entry.AuthOK {
			status, body = http.StatusUnauthorized, openAIError("invalid api key")
		}
		entry.Status = status
		mu.Lock()
		seq++
		n := seq
		if logFile != nil {
			b, _ := json.Marshal(entry)
			_, _ = logFile.Write(append(b, '\n'))
		}
		mu.Unlock()
		if status == http.StatusOK {
			body = map[string]any{
				"id": fmt.Sprintf("chatcmpl-e2e-%d", n), "object": "chat.completion",
				"created": time.Now().Unix(), "model": req.Model,
				"choices": []any{map[string]any{
					"index": 0, "finish_reason": entry.Finish,
					"message": map[string]any{"role": "assistant", "content": body},
				}},
				"usage": map[string]any{"prompt_tokens": len(entry.User) / 4, "completion_tokens": 100, "total_tokens": len(entry.User)/4 + 100},
			}
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(body)
	})

	serve.Run("fakellm", *addr, *addrFile, "", mux)
}

// answer picks the fixed reply: the message content on success, an
// OpenAI-style error body otherwise.
func answer(r *http.Request, in *chatRequest, entry *Logged) (int, any) {
	if err := json.NewDecoder(http.MaxBytesReader(nil, r.Body, 64<<20)).Decode(in); err != nil {
		return http.StatusBadRequest, openAIError("request body is not JSON: " + err.Error())
	}
	entry.Model = in.Model
	var all strings.Builder
	for _, m := range in.Messages {
		switch m.Role {
		case "system":
			entry.System += m.Content
		case "user":
			entry.User += m.Content
		}
		all.WriteString(m.Content)
		all.WriteByte('\n')
	}
	if in.Model == "" || len(in.Messages) == 0 {
		return http.StatusBadRequest, openAIError("model and messages are required")
	}
	if strings.HasPrefix(entry.System, "You check another reviewer's findings") {
		// The verify pass: its prompt shows findings, not the pull request;
		// the PR is the one whose drop title it shows (none: keep all).
		entry.Kind = "verify"
		pr, _ := fixture.ByVerifyPrompt(entry.User)
		entry.PR = pr.ID
		answer, ids := fixture.VerifyAnswer(entry.User, pr.VerifyDrop)
		if len(ids) == 0 {
			return http.StatusBadRequest, openAIError("fakellm: the verify prompt lists no \"## Finding <id>\" section")
		}
		return http.StatusOK, answer
	}
	if strings.HasPrefix(entry.System, "You are prscout, an AI code reviewer. A participant of a pull request replied") {
		// A question under one of prscout's findings: the prompt shows the
		// finding and the thread, not the pull request's title.
		entry.Kind = "answer"
		if strings.Contains(entry.User, fixture.ConvoAsked) {
			entry.PR = fixture.ConvoPRID
		}
		b, _ := json.Marshal(map[string]string{"answer": fixture.ConvoAnswer})
		return http.StatusOK, string(b)
	}
	pr, ok := fixture.ByTitle(entry.User)
	if !ok {
		return http.StatusBadRequest, openAIError("fakellm: no fixture pull request title in the user message")
	}
	entry.PR = pr.ID
	if _, rest, ok := strings.Cut(entry.User, "# Part "); ok {
		entry.Part, _, _ = strings.Cut(rest, "\n")
	}
	if strings.Contains(entry.System, `"findings"`) {
		entry.Kind = "review"
		if len(pr.Groups) > 0 {
			answer, fail, ok := fixture.GroupReviewAnswer(pr, entry.User)
			switch {
			case fail:
				return http.StatusInternalServerError, openAIError("fakellm: the model failed on this group (as the fixture asks)")
			case !ok:
				return http.StatusBadRequest, openAIError("fakellm: the review prompt shows no file of a fixture group")
			}
			return http.StatusOK, answer
		}
		if pr.Push != nil && strings.Contains(entry.User, "Review mode: delta") {
			entry.Kind = "delta-review"
			return http.StatusOK, fixture.DeltaReviewAnswer(pr)
		}
		if pr.ReviewFinish != "" {
			entry.Finish = pr.ReviewFinish
		}
		return http.StatusOK, fixture.ReviewAnswer(pr)
	}
	entry.Kind = "scout"
	return http.StatusOK, pr.Scout
}

func openAIError(msg string) map[string]any {
	return map[string]any{"error": map[string]any{"message": msg, "type": "invalid_request_error"}}
}
