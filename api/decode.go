package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/prscout/prscout/pipeline"
)

// readBody reads the whole request body under the size limit. An oversized
// body is a 413, an empty one a 400.
func (s *Server) readBody(c *gin.Context) ([]byte, error) {
	return s.readBodyLimit(c, s.opts.MaxBodyBytes, "PRSCOUT_MAX_BODY_BYTES")
}

// readBodyLimit is readBody with its own limit, named by setting in the 413.
func (s *Server) readBodyLimit(c *gin.Context, limit int64, setting string) ([]byte, error) {
	r := http.MaxBytesReader(c.Writer, c.Request.Body, limit)
	data, err := io.ReadAll(r)
	bodyRead(c, err == nil)
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, &httpError{status: http.StatusRequestEntityTooLarge, code: "too_large",
				msg: fmt.Sprintf("request body is over the %d-byte limit (%s)", limit, setting)}
		}
		if ne, ok := err.(interface{ Timeout() bool }); ok && ne.Timeout() {
			return nil, &httpError{status: http.StatusRequestTimeout, code: "timeout",
				msg: fmt.Sprintf("the request body did not arrive within %s (PRSCOUT_READ_TIMEOUT)", s.opts.RequestLimits.ReadTimeout)}
		}
		return nil, badRequest("", "could not read the request body: "+err.Error())
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, badRequest("", "request body is empty: send one JSON object")
	}
	return data, nil
}

// decodeJSON reads the body into v. Syntax errors, wrong types and a body
// that is not an object become 400s naming the field.
func (s *Server) decodeJSON(c *gin.Context, v any) ([]byte, error) {
	data, err := s.readBody(c)
	if err != nil {
		return nil, err
	}
	if err := unmarshalStrict(data, v); err != nil {
		return nil, err
	}
	return data, nil
}

// unmarshalStrict decodes one JSON object into v and explains failures with
// a JSON path such as "files[2].path".
func unmarshalStrict(data []byte, v any) error {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) > 0 && trimmed[0] != '{' {
		var probe any
		if err := json.Unmarshal(trimmed, &probe); err != nil {
			return syntaxError(data, err)
		}
		return badRequest("", fmt.Sprintf("request body must be a JSON object, got %s", jsonKind(probe)))
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(v); err != nil {
		var inv *pipeline.InvalidError
		if errors.As(err, &inv) { // a field's own decoder refused it (rules, globs)
			return inv
		}
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			field := locateField(data, te.Field, te.Value)
			return badRequest(field, fmt.Sprintf("%s must be %s, got %s", orBody(field), describeGoType(te.Type.Kind().String()), te.Value))
		}
		return syntaxError(data, err)
	}
	if dec.More() {
		return badRequest("", "request body holds more than one JSON value")
	}
	var extra any
	if err := dec.Decode(&extra); err != io.EOF && err != nil {
		return syntaxError(data, err)
	}
	return nil
}

func orBody(field string) string {
	if field == "" {
		return "body"
	}
	return field
}

func syntaxError(data []byte, err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		line, col := lineCol(data, int(se.Offset))
		return badRequest("", fmt.Sprintf("invalid JSON at line %d, column %d: %s", line, col, se.Error()))
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return badRequest("", "invalid JSON: unexpected end of input")
	}
	return badRequest("", "invalid JSON: "+err.Error())
}

func lineCol(data []byte, off int) (int, int) {
	if off > len(data) {
		off = len(data)
	}
	line := 1 + bytes.Count(data[:off], []byte("\n"))
	col := off - bytes.LastIndexByte(data[:off], '\n')
	return line, col
}

func describeGoType(kind string) string {
	switch kind {
	case "string":
		return "a string"
	case "bool":
		return "a boolean"
	case "slice", "array":
		return "an array"
	case "map", "struct":
		return "an object"
	case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64":
		return "an integer"
	case "float32", "float64":
		return "a number"
	}
	return "a " + kind
}

// jsonKind names a decoded value's kind with its article, for messages.
func jsonKind(v any) string {
	switch k := rawKind(v); k {
	case "null":
		return k
	case "bool":
		return "a boolean"
	case "array", "object":
		return "an " + k
	default:
		return "a " + k
	}
}

// locateField turns encoding/json's dotted field ("files.path") into a path
// with array indices ("files[2].path") by finding the first value at that
// path whose JSON kind is the one the decoder complained about (got, e.g.
// "number"); it falls back to the dotted form.
func locateField(data []byte, dotted, got string) string {
	if dotted == "" {
		return ""
	}
	var root any
	if json.Unmarshal(data, &root) != nil {
		return dotted
	}
	got, _, _ = strings.Cut(got, " ")
	match := func(v any) bool { return rawKind(v) == got }
	if p, ok := walk(root, strings.Split(dotted, "."), "", match); ok {
		return p
	}
	return dotted
}

// walk descends keys through objects, trying each element of arrays in
// order, and returns the first concrete path whose value satisfies match.
func walk(v any, keys []string, prefix string, match func(any) bool) (string, bool) {
	if len(keys) == 0 {
		if match(v) {
			return prefix, true
		}
		if arr, ok := v.([]any); ok {
			for i, el := range arr {
				if match(el) {
					return prefix + "[" + strconv.Itoa(i) + "]", true
				}
			}
		}
		return "", false
	}
	if arr, ok := v.([]any); ok {
		for i, el := range arr {
			if p, ok := walk(el, keys, prefix+"["+strconv.Itoa(i)+"]", match); ok {
				return p, true
			}
		}
		return "", false
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return "", false
	}
	child, ok := lookupKey(obj, keys[0])
	if !ok {
		return "", false
	}
	next := keys[0]
	if prefix != "" {
		next = prefix + "." + keys[0]
	}
	return walk(child, keys[1:], next, match)
}

// rawKind names a decoded value's kind the way json.UnmarshalTypeError.Value does.
func rawKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "bool"
	case float64:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	}
	return "object"
}

// lookupKey matches encoding/json's case-insensitive field matching.
func lookupKey(obj map[string]any, key string) (any, bool) {
	if v, ok := obj[key]; ok {
		return v, true
	}
	for k, v := range obj {
		if strings.EqualFold(k, key) {
			return v, true
		}
	}
	return nil, false
}
