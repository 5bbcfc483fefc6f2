package main

//go:generate go run . gen-docs ../../docs/cli

import (
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
)

// newGenDocsCmd is the hidden `autotune gen-docs DIR`: it writes the flag
// reference, one Markdown file per command, from the commands themselves
// (go generate ./cmd/autotune refreshes docs/cli; a test fails when the
// committed files are stale).
func newGenDocsCmd() *cobra.Command {
	return &cobra.Command{
		Use:    "gen-docs DIR",
		Short:  "Write the command reference (Markdown) into DIR",
		Hidden: true,
		Args:   cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return writeCLIDocs(args[0])
		},
	}
}

// writeCLIDocs writes one Markdown file per command into dir.
func writeCLIDocs(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	root := newRootCmd()
	root.DisableAutoGenTag = true
	return doc.GenMarkdownTree(root, dir)
}
