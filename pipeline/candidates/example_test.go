package candidates_test

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/prscout/prscout/pipeline/candidates"
)

// files is a read-only Tree over a few files in memory.
type files map[string]string

func (f files) Grep(_ context.Context, words, _ []string, _ int) ([]string, error) {
	var out []string
	for p, src := range f {
		for _, w := range words {
			if strings.Contains(src, w) {
				out = append(out, p)
				break
			}
		}
	}
	sort.Strings(out)
	return out, nil
}

func (f files) ReadFile(_ context.Context, p string) ([]byte, error) {
	if src, ok := f[p]; ok {
		return []byte(src), nil
	}
	return nil, fmt.Errorf("%s: not found", p)
}

func (f files) ListDir(_ context.Context, dir string) ([]string, error) {
	var out []string
	for p := range f {
		if strings.HasPrefix(p, dir+"/") && !strings.Contains(p[len(dir)+1:], "/") {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out, nil
}

func ExampleFind() {
	base := "package cmd\n\ntype Command struct{ Use string }\n\nfunc (c *Command) Execute() error {\n\treturn nil\n}\n"
	head := strings.Replace(base, "\treturn nil", "\tif c.Use == \"\" {\n\t\treturn nil\n\t}\n\treturn nil", 1)
	tree := files{
		"go.mod":         "module example.com/app\n",
		"cmd/command.go": head,
		"main.go":        "package main\n\nimport \"example.com/app/cmd\"\n\nfunc main() { _ = (&cmd.Command{}).Execute() }\n",
	}
	got, err := candidates.Find(context.Background(), tree, []candidates.Change{{
		Path: "cmd/command.go", Status: candidates.StatusModified,
		Old: []byte(base), New: []byte(head),
		AddedLines: []int{6, 7, 8, 9}, RemovedLines: []int{6},
	}}, candidates.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range got {
		fmt.Printf("%s %s %s: %s\n", c.Path, c.Kind, c.Method, c.Reason)
	}
	// Output:
	// main.go impact go: calls `(*Command).Execute`, whose body changed
}
