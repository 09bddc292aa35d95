package llmanswer_test

import (
	"fmt"
	"strconv"

	"github.com/prscout/prscout/pipeline/llmanswer"
)

// A review answer cut off at the model's token limit, in its third
// finding: the complete findings are kept, the cut one is dropped, and the
// warning says so.
func ExampleRead_salvage() {
	answer := []byte("Here is my review:\n```json\n" +
		`{"summary": "Three findings.", "findings": [
  {"path": "cart.go", "line": 12, "severity": "high", "title": "nil map write", "body": "items is nil when the cart is new."},
  {"path": "cart.go", "line": 40, "severity": "low", "title": "typo", "body": "recieve"},
  {"path": "price.go", "line": 7, "severity": "medium", "title": "float money", "body": "Use integer c`)
	isReview := func(v any) bool {
		m, ok := v.(map[string]any)
		_, hasFindings := m["findings"].([]any)
		return ok && hasFindings
	}

	a := llmanswer.Read(answer, isReview)
	fmt.Println(a.Quality, a.CutOff, a.Block)
	fmt.Println(a.Unfinished)

	var kept []any
	dropped := 0
	for i, f := range a.Value.(map[string]any)["findings"].([]any) {
		if a.Cut("/findings/" + strconv.Itoa(i)) {
			dropped++
			continue
		}
		kept = append(kept, f)
	}
	fmt.Printf("the review answer was cut off: %d complete findings kept, %d incomplete dropped\n", len(kept), dropped)
	// Output:
	// salvaged true fenced block 1 of 1 (json)
	// [ /findings /findings/2 /findings/2/body]
	// the review answer was cut off: 2 complete findings kept, 1 incomplete dropped
}

// A chat completion passed whole, as n8n's HTTP Request node forwards it:
// the finish reason says the answer was cut, although its JSON closes.
func ExampleRead_chatCompletion() {
	answer := []byte(`{"choices": [{"index": 0, "finish_reason": "length",
	  "message": {"role": "assistant", "content": "{\"needs\": [{\"op\": \"get_file\", \"path\": \"pkg/auth/token.go\"}]}"}}]}`)
	isNeeds := func(v any) bool {
		m, ok := v.(map[string]any)
		_, hasNeeds := m["needs"].([]any)
		return ok && hasNeeds
	}
	a := llmanswer.Read(answer, isNeeds)
	fmt.Println(a.Quality, a.CutOff, a.FinishReason, a.Envelope)
	fmt.Println(a.Warnings[0])
	// Output:
	// salvaged true length choices[0].message.content
	// the answer was cut off: the model stopped at its token limit (finish reason "length")
}
