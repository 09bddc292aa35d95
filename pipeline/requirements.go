package pipeline

// Requirement is one acceptance criterion of a linked issue. ID is
// "<issue key>#<n>", n counting from 1 in order of appearance in the text
// the criteria were taken from, so the same issue text gives the same ids on
// every run and a review's verdict can name the criterion it judges.
type Requirement struct {
	ID    string `json:"id"`
	Issue string `json:"issue"`
	Text  string `json:"text"`
}
