package llmanswer

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kaptinlin/jsonrepair"
)

// TestReaderCoversLibrary compares Read with the repair library used alone
// on the model's text (after unwrapping): every answer of the corpus that
// holds JSON and that the library alone reads into the expected shape, Read
// reads too. The library also turns prose into JSON (a list of its
// sentences), which is why choosing the block stays Read's own work: those
// answers are counted as invented. go test -v logs the counts and times.
func TestReaderCoversLibrary(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "*"))
	if err != nil {
		t.Fatal(err)
	}
	var readerOK, libOK, libErr, invented, answers int
	var readerTime, libTime time.Duration
	for _, file := range files {
		if strings.HasSuffix(file, ".golden.json") || !(strings.HasSuffix(file, ".txt") || strings.HasSuffix(file, ".json")) {
			continue
		}
		answers++
		name := strings.TrimSuffix(strings.TrimSuffix(filepath.Base(file), ".txt"), ".json")
		shape := shapeFor(name)
		raw := readCase(t, file)
		start := time.Now()
		a := Read(raw, shape)
		readerTime += time.Since(start)
		if a.Quality != Unreadable {
			readerOK++
		}
		text := a.Text
		if text == "" {
			continue // a JSON value, not text: nothing for the library to repair
		}
		start = time.Now()
		out, err := jsonrepair.Repair(text)
		libTime += time.Since(start)
		if err != nil {
			libErr++
			continue
		}
		v, err := decodeWhole([]byte(out))
		if err != nil || !isContainer(v) || !shape(v) {
			continue
		}
		if a.Quality != Unreadable {
			libOK++
			continue
		}
		if strings.Contains(text, `{"`) || strings.Contains(text, `{'`) || strings.Contains(text, `[{`) || strings.Contains(text, `{\"`) {
			t.Errorf("%s: the library alone reads it, Read does not (%q)", name, a.Warnings)
			continue
		}
		invented++
	}
	t.Logf("%d answers: Read reads %d in %v; the repair library alone reads %d of the texts, fails on %d and invents JSON out of the prose of %d, in %v",
		answers, readerOK, readerTime, libOK, libErr, invented, libTime)
}
