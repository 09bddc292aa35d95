package candidates_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/prscout/prscout/pipeline/candidates"
	"github.com/prscout/prscout/pipeline/pipelinetest"
)

func ExampleFind() {
	base := "package cmd\n\ntype Command struct{ Use string }\n\nfunc (c *Command) Execute() error {\n\treturn nil\n}\n"
	head := strings.Replace(base, "\treturn nil", "\tif c.Use == \"\" {\n\t\treturn nil\n\t}\n\treturn nil", 1)
	tree := pipelinetest.NewTree(map[string]string{
		"go.mod":         "module example.com/app\n",
		"cmd/command.go": head,
		"main.go":        "package main\n\nimport \"example.com/app/cmd\"\n\nfunc main() { _ = (&cmd.Command{}).Execute() }\n",
	})
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
