package reviewanswer

import (
	"fmt"
	"strings"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/sanitize"
)

// Notice says, in the review summary, what a person must know about how the
// model's answer was read: that it could not be read at all (how long it
// was, where the raw answer is: the n8n execution, never the answer
// itself), or that it was cut off and what was kept.
func (p Parsed) Notice(requestID string) string {
	var b strings.Builder
	limit := ""
	if p.CutOff {
		limit = "; it was cut off at the model's token limit" + reasonNote(p.FinishReason)
	}
	switch {
	case p.Unreadable:
		fmt.Fprintf(&b, "**The model's review answer could not be read** (%s%s), so no findings were posted.", pipeline.CountNoun(p.AnswerChars, "character"), limit)
		if id := strings.TrimSpace(requestID); id != "" {
			fmt.Fprintf(&b, " The raw answer is in the n8n execution of request %s (its Review LLM node).", sanitize.CodeSpan(id))
		} else {
			b.WriteString(" The raw answer is in the n8n execution (its Review LLM node).")
		}
		if p.CutOff {
			b.WriteString(" Raise the review's `max_tokens` (Config node `reviewMaxTokens`).")
		}
	case p.CutOff:
		fmt.Fprintf(&b, "**The model's review answer was cut off** at its token limit%s: %s kept, %d incomplete dropped.",
			reasonNote(p.FinishReason), pipeline.CountNoun(p.Kept, "complete finding"), p.Incomplete)
		b.WriteString(" Raise the review's `max_tokens` (Config node `reviewMaxTokens`) for a full review.")
	}
	return b.String()
}

func reasonNote(finish string) string {
	if finish == "" {
		return ""
	}
	return " (finish reason " + sanitize.CodeSpan(finish) + ")"
}
