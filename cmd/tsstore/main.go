// Command tsstore inspects, checks, imports and exports tsstore stores (a NetCDF file and
// its SQLite catalog beside it) from the shell.
//
// Every command that does not write opens the store read-only. Errors are one line on
// stderr, prefixed "tsstore <command>: "; the exit status is 1 when an operation fails
// and 2 when the command line is wrong.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/tsstore/tsstore/core"
)

// command is one subcommand: its help text and what it runs.
type command struct {
	name     string
	synopsis string // "tsstore ls [flags] STORE.nc"
	summary  string // one line for the command list
	help     string // description and example, shown by --help
	run      func(env *env, args []string) error
}

// env is what a command talks to; tests and main give it the process's streams.
type env struct {
	cmd    *command
	stdin  *os.File
	stdout io.Writer
	stderr *os.File
}

// usageError is a mistake on the command line: exit status 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

// errHelpShown ends a command that printed its help: exit status 0.
var errHelpShown = errors.New("help requested")

var commands = map[string]*command{}

func register(c *command) { commands[c.name] = c }

func main() {
	os.Exit(runMain(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func runMain(args []string, stdin *os.File, stdout io.Writer, stderr *os.File) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, topUsage())
		return 2
	}
	name := args[0]
	switch name {
	case "-version", "--version", "version":
		fmt.Fprint(stdout, versionText())
		return 0
	case "-h", "-help", "--help", "help":
		if len(args) > 1 && name == "help" {
			if c, ok := commands[args[1]]; ok {
				e := &env{cmd: c, stdin: stdin, stdout: stdout, stderr: stderr}
				return report(stderr, c.name, c.run(e, []string{"--help"}))
			}
			fmt.Fprintf(stderr, "tsstore: unknown command %q (run tsstore --help)\n", args[1])
			return 2
		}
		fmt.Fprint(stdout, topUsage())
		return 0
	}
	c, ok := commands[name]
	if !ok {
		fmt.Fprintf(stderr, "tsstore: unknown command %q (run tsstore --help)\n", name)
		return 2
	}
	e := &env{cmd: c, stdin: stdin, stdout: stdout, stderr: stderr}
	err := c.run(e, args[1:])
	return report(stderr, c.name, err)
}

// report prints err as one line and maps it to the exit status.
func report(stderr io.Writer, name string, err error) int {
	if err == nil || errors.Is(err, errHelpShown) {
		return 0
	}
	fmt.Fprintf(stderr, "tsstore %s: %s\n", name, oneLine(err))
	var ue *usageError
	if errors.As(err, &ue) {
		return 2
	}
	return 1
}

// oneLine drops the "tsstore: " every core error begins with (the command prefix says
// it already) and folds any newline, so an error is always exactly one line.
func oneLine(err error) string {
	s := strings.TrimPrefix(err.Error(), "tsstore: ")
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", " ")), " ")
}

// coreMessage is what a core error says, without the operation, field and kind around it:
// for a core call the CLI makes on the user's behalf (checking a timeline, say), where
// "infer_resolution: timestamps: … (invalid parameter)" would name an API the user never
// called.
func coreMessage(err error) string {
	var ce *core.Error
	if errors.As(err, &ce) && ce.Err == nil {
		return ce.Msg
	}
	return oneLine(err)
}

// versionText is what --version prints: the version of the tool and of the library it is
// built from (one module, so one number) and the on-disk format both read and write.
func versionText() string {
	return fmt.Sprintf("tsstore %s (library %s, data format %s)\n", core.Version, core.Version, core.DataFormatVersion)
}

func topUsage() string {
	var b strings.Builder
	b.WriteString("tsstore — inspect, check, import and export tsstore stores (STORE.nc + STORE.nc.sqlite)\n\n")
	b.WriteString("Usage: tsstore <command> [flags] STORE.nc ...\n\nCommands:\n")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(&b, "  %-11s %s\n", n, commands[n].summary)
	}
	b.WriteString("\nRun 'tsstore <command> --help' for a command's flags and an example, 'tsstore --version'\n")
	b.WriteString("for the versions of the tool and of the data format.\n")
	b.WriteString("Commands that do not write open the store read-only. Exit status: 0 success,\n")
	b.WriteString("1 failed operation (or problems found by verify / check-grid), 2 bad usage.\n")
	return b.String()
}
