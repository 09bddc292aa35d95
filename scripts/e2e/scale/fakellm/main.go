// Command fakellm is the scale test's OpenAI-compatible chat-completions
// server (scripts/e2e-scale.sh): it answers the scout and the review of the
// world's pull requests after a random delay in [-min-delay, -max-delay],
// the way a model takes time per call. The pull request is found by its
// title in the messages; a review prompt saying "Review mode: delta" gets
// the push's answer. GET /stats answers {calls, scout, review, delta, errors}.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/prscout/prscout/scripts/e2e/internal/serve"
	"github.com/prscout/prscout/scripts/e2e/scale/world"
)

func main() {
	addrFile := flag.String("addr-file", "", "write the bound address here once listening")
	key := flag.String("key", "", "required bearer key")
	minDelay := flag.Duration("min-delay", 300*time.Millisecond, "shortest answer delay")
	maxDelay := flag.Duration("max-delay", 800*time.Millisecond, "longest answer delay")
	flag.Parse()

	var mu sync.Mutex
	stats := map[string]int{}
	count := func(k string) { mu.Lock(); stats[k]++; mu.Unlock() }
	mux := http.NewServeMux()
	mux.HandleFunc("GET /stats", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(stats)
	})
	mux.HandleFunc("POST /v1/chat/completions", func(w http.ResponseWriter, r *http.Request) {
		count("calls")
		var req struct {
			Model    string `json:"model"`
			Messages []struct {
				Role, Content string
			} `json:"messages"`
		}
		fail := func(status int, msg string) {
			count("errors")
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": msg, "type": "invalid_request_error"}})
		}
		if *key != "" && r.Header.Get("Authorization") != "Bearer "+*key {
			fail(http.StatusUnauthorized, "invalid api key")
			return
		}
		if err := json.NewDecoder(http.MaxBytesReader(nil, r.Body, 64<<20)).Decode(&req); err != nil {
			fail(http.StatusBadRequest, "request body is not JSON")
			return
		}
		var system, user strings.Builder
		for _, m := range req.Messages {
			if m.Role == "system" {
				system.WriteString(m.Content)
			} else {
				user.WriteString(m.Content)
			}
		}
		pr, ok := world.ByText(user.String())
		if !ok {
			fail(http.StatusBadRequest, "fakellm: no world pull request title in the user message")
			return
		}
		answer, kind := world.ScoutAnswer, "scout"
		if strings.Contains(system.String(), `"findings"`) {
			answer, kind = pr.ReviewAnswer(), "review"
			if strings.Contains(user.String(), "Review mode: delta") {
				answer, kind = pr.DeltaReviewAnswer(), "delta"
			}
		}
		count(kind)
		d := *minDelay
		if *maxDelay > d {
			d += rand.N(*maxDelay - d)
		}
		select {
		case <-time.After(d):
		case <-r.Context().Done():
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{
			"id": fmt.Sprintf("chatcmpl-scale-%d", time.Now().UnixNano()), "object": "chat.completion",
			"created": time.Now().Unix(), "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
				"message": map[string]any{"role": "assistant", "content": answer}}},
			"usage": map[string]any{"prompt_tokens": user.Len() / 4, "completion_tokens": 100, "total_tokens": user.Len()/4 + 100},
		})
	})
	serve.Run("fakellm", "127.0.0.1:0", *addrFile, "", mux)
}
