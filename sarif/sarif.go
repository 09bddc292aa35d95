// Package sarif writes prscout's findings and the workflow gate's verdicts
// as SARIF 2.1.0 (the OASIS Static Analysis Results Interchange Format), so
// CI systems and code scanning tools can import them. It is pure: it takes
// values (and, for the gate, the exports' bytes) and returns a Log.
//
// The types below are the subset of the SARIF object model prscout writes
// and reads; fields SARIF makes optional are omitted when empty, so every
// Log marshals to a document valid against the official schema (tested).
package sarif

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"unicode"

	"github.com/prscout/prscout/pipeline"
)

// version and schema name the format written.
const (
	version = "2.1.0"
	schema  = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
)

// FingerprintKey is the partialFingerprints key of prscout's finding
// fingerprint (versioned, as SARIF recommends, so a change of the hash
// does not merge unrelated results).
const FingerprintKey = "prscout/v1"

// srcRoot is the uriBaseId of repository paths: results name files
// relative to the repository's root, which a consumer maps to its checkout.
const srcRoot = "%SRCROOT%"

// Log is a SARIF log file.
type Log struct {
	Schema  string `json:"$schema"`
	Version string `json:"version"`
	Runs    []Run  `json:"runs"`
}

// Run is one run of one tool.
type Run struct {
	Tool        Tool           `json:"tool"`
	Invocations []Invocation   `json:"invocations,omitempty"`
	ColumnKind  string         `json:"columnKind,omitempty"`
	Results     []Result       `json:"results"`
	Properties  map[string]any `json:"properties,omitempty"`
}

// Tool describes the tool that produced a run.
type Tool struct {
	Driver ToolComponent `json:"driver"`
}

// ToolComponent is the tool's driver.
type ToolComponent struct {
	Name           string                `json:"name"`
	Version        string                `json:"version,omitempty"`
	InformationURI string                `json:"informationUri,omitempty"`
	Rules          []ReportingDescriptor `json:"rules,omitempty"`
}

// ReportingDescriptor is a rule.
type ReportingDescriptor struct {
	ID                   string                  `json:"id"`
	Name                 string                  `json:"name,omitempty"`
	ShortDescription     *MultiformatMessage     `json:"shortDescription,omitempty"`
	FullDescription      *MultiformatMessage     `json:"fullDescription,omitempty"`
	DefaultConfiguration *ReportingConfiguration `json:"defaultConfiguration,omitempty"`
	Properties           map[string]any          `json:"properties,omitempty"`
}

// MultiformatMessage is a message with plain text (and optional Markdown).
type MultiformatMessage struct {
	Text     string `json:"text"`
	Markdown string `json:"markdown,omitempty"`
}

// ReportingConfiguration is a rule's default configuration.
type ReportingConfiguration struct {
	Level string `json:"level,omitempty"`
}

// Invocation describes how the tool ran.
type Invocation struct {
	ExecutionSuccessful        bool           `json:"executionSuccessful"`
	ToolExecutionNotifications []Notification `json:"toolExecutionNotifications,omitempty"`
}

// Notification is a tool execution message.
type Notification struct {
	Level     string     `json:"level,omitempty"`
	Message   Message    `json:"message"`
	Locations []Location `json:"locations,omitempty"`
}

// Result is one finding.
type Result struct {
	RuleID              string            `json:"ruleId,omitempty"`
	RuleIndex           *int              `json:"ruleIndex,omitempty"`
	Level               string            `json:"level,omitempty"`
	Message             Message           `json:"message"`
	Locations           []Location        `json:"locations,omitempty"`
	PartialFingerprints map[string]string `json:"partialFingerprints,omitempty"`
	Properties          map[string]any    `json:"properties,omitempty"`
}

// Message is a result's message.
type Message struct {
	Text     string `json:"text"`
	Markdown string `json:"markdown,omitempty"`
}

// Location is where a result is.
type Location struct {
	PhysicalLocation *PhysicalLocation `json:"physicalLocation,omitempty"`
	LogicalLocations []LogicalLocation `json:"logicalLocations,omitempty"`
	Message          *Message          `json:"message,omitempty"`
}

// PhysicalLocation is a file and, optionally, a region of it.
type PhysicalLocation struct {
	ArtifactLocation ArtifactLocation `json:"artifactLocation"`
	Region           *Region          `json:"region,omitempty"`
}

// ArtifactLocation names a file by URI reference.
type ArtifactLocation struct {
	URI       string `json:"uri"`
	URIBaseID string `json:"uriBaseId,omitempty"`
}

// Region is a part of a file: 1-based lines and columns.
type Region struct {
	StartLine   int              `json:"startLine,omitempty"`
	StartColumn int              `json:"startColumn,omitempty"`
	EndLine     int              `json:"endLine,omitempty"`
	EndColumn   int              `json:"endColumn,omitempty"`
	Snippet     *ArtifactContent `json:"snippet,omitempty"`
}

// ArtifactContent is a piece of a file's text.
type ArtifactContent struct {
	Text string `json:"text"`
}

// LogicalLocation names a construct, such as a workflow node.
type LogicalLocation struct {
	Name               string `json:"name,omitempty"`
	FullyQualifiedName string `json:"fullyQualifiedName,omitempty"`
	Kind               string `json:"kind,omitempty"`
}

// Options name the tool in the log.
type Options struct {
	// ToolVersion is prscout's version (for example from the build info);
	// "" leaves it out.
	ToolVersion string
}

// Levels of results.
const (
	LevelError   = "error"
	LevelWarning = "warning"
	LevelNote    = "note"
)

// Level maps a finding's severity to a SARIF level: critical and high are
// errors, medium a warning, low a note (an unknown severity is a warning,
// like the review parser's default of medium).
func Level(severity string) string {
	switch strings.ToLower(strings.TrimSpace(severity)) {
	case "critical", "high":
		return LevelError
	case "low":
		return LevelNote
	}
	return LevelWarning
}

// Marshal encodes the log as indented JSON, HTML characters unescaped.
func (l Log) Marshal() ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(l); err != nil {
		return nil, fmt.Errorf("encode sarif: %w", err)
	}
	return b.Bytes(), nil
}

// Parse decodes a SARIF log and checks that it claims version 2.1.0 and
// has runs. It does not validate against the schema.
func Parse(data []byte) (Log, error) {
	var l Log
	if err := json.Unmarshal(data, &l); err != nil {
		return Log{}, fmt.Errorf("not a SARIF log: %w", err)
	}
	if l.Version != version {
		return Log{}, fmt.Errorf("SARIF version %q, want %s", l.Version, version)
	}
	if l.Runs == nil {
		return Log{}, fmt.Errorf("SARIF log has no runs")
	}
	return l, nil
}

func newLog(run Run) Log {
	if run.Results == nil {
		run.Results = []Result{}
	}
	return Log{Schema: schema, Version: version, Runs: []Run{run}}
}

// fileURI turns a path as prscout names it into a SARIF URI reference:
// each segment percent-encoded, so spaces and '#' survive; an absolute path
// becomes a file:// URI. base is srcRoot for a relative path inside the
// root, "" otherwise.
func fileURI(path string) (uri, base string) {
	p := strings.ReplaceAll(path, "\\", "/")
	abs := strings.HasPrefix(p, "/")
	parts := strings.Split(strings.TrimPrefix(p, "/"), "/")
	for i, s := range parts {
		parts[i] = url.PathEscape(s)
	}
	joined := strings.Join(parts, "/")
	if abs {
		return "file:///" + joined, ""
	}
	// A relative reference whose first segment has a ':' would read as a
	// scheme; "./" keeps it a path.
	first, _, _ := strings.Cut(joined, "/")
	if strings.Contains(first, ":") {
		joined = "./" + joined
	}
	if first == ".." {
		return joined, "" // outside the root: relative to wherever the tool ran
	}
	return joined, srcRoot
}

// FromFindings writes a review's findings (review.ReportFindings of a
// rendering) as one run of the tool "prscout". Each finding is one result:
//
//   - ruleId "<severity>/<title slug>" (e.g. "high/retry-loop-never-stops"),
//     with the rule listed in the driver (title as its description, the
//     severity's level as its default);
//   - level from the severity (see Level);
//   - the message: the title, a blank line and the body;
//   - a location with the path (relative to the repository root) and, for
//     a finding anchored on a diff line, that line; a finding without a
//     path has no location;
//   - partialFingerprints[FingerprintKey]: prscout's fingerprint, stable
//     across runs while the finding's path, title and code stay the same;
//   - properties.severity: prscout's own severity.
func FromFindings(findings []pipeline.ReportFinding, opt Options) Log {
	run := Run{Tool: Tool{Driver: ToolComponent{Name: "prscout", Version: opt.ToolVersion}}}
	ruleIndex := map[string]int{}
	for _, f := range findings {
		sev := severity(f.Severity)
		title := strings.TrimSpace(collapse(f.Title))
		if title == "" {
			title = "(untitled)"
		}
		id := sev + "/" + slug(title)
		idx, ok := ruleIndex[id]
		if !ok {
			idx = len(run.Tool.Driver.Rules)
			ruleIndex[id] = idx
			run.Tool.Driver.Rules = append(run.Tool.Driver.Rules, ReportingDescriptor{
				ID: id, ShortDescription: &MultiformatMessage{Text: title},
				DefaultConfiguration: &ReportingConfiguration{Level: Level(sev)},
				Properties:           map[string]any{"tags": []string{"prscout", sev}},
			})
		}
		text := title
		if body := strings.TrimSpace(f.Body); body != "" {
			text += "\n\n" + body
		}
		res := Result{
			RuleID: id, RuleIndex: &idx, Level: Level(sev), Message: Message{Text: text},
			Properties: map[string]any{"severity": sev},
		}
		if f.Fingerprint != "" {
			res.PartialFingerprints = map[string]string{FingerprintKey: f.Fingerprint}
		}
		if p := strings.TrimSpace(f.Path); p != "" {
			uri, base := fileURI(p)
			loc := &PhysicalLocation{ArtifactLocation: ArtifactLocation{URI: uri, URIBaseID: base}}
			if f.Line > 0 {
				loc.Region = &Region{StartLine: f.Line}
			}
			res.Locations = []Location{{PhysicalLocation: loc}}
		}
		run.Results = append(run.Results, res)
	}
	run.Invocations = []Invocation{{ExecutionSuccessful: true}}
	return newLog(run)
}

func severity(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	switch s {
	case "critical", "high", "medium", "low":
		return s
	}
	return "medium"
}

func collapse(s string) string { return strings.Join(strings.Fields(s), " ") }

// slug makes a rule id part from a title: lower-case letters and digits
// joined by '-', at most 60 bytes, "finding" when nothing is left.
func slug(title string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(title) {
		if r < 128 && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(r)
			dash = false
			if b.Len() >= 60 {
				break
			}
			continue
		}
		dash = true
	}
	if b.Len() == 0 {
		return "finding"
	}
	return b.String()
}
