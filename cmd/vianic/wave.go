package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/vianic/vianic/internal/simulator"
)

func init() {
	register(command{"wave", "open a waveform in GTKWave with the project's save file", runWave})
	register(command{"map", "print the BAR0 register map (from the generated tables)", runMap})
}

// waveCommand returns the GTKWave command line that opens file with the
// project's save file for it: cosim.gtkw for a co-simulation dump (FST, or a
// VCD whose NICs are node0.via_node.via_nic, ...), via_nic.gtkw for a bench's.
func waveCommand(root, file string) []string {
	save := filepath.Join(root, "sim-scripts", "gtkwave", "via_nic.gtkw")
	if isCosimDump(file) {
		save = simulator.GTKWaveSaveFile(root)
	}
	return []string{"gtkwave", "-a", save, file}
}

// isCosimDump looks for the simulator's node scopes in the declarations
// (up to $enddefinitions: the switch's scope may come first and is long).
func isCosimDump(file string) bool {
	if strings.HasSuffix(file, ".fst") {
		return true // only the simulator writes FST
	}
	f, err := os.Open(file)
	if err != nil {
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		line := sc.Text()
		if strings.Contains(line, "$scope module node0 $end") {
			return true
		}
		if strings.Contains(line, "$enddefinitions") {
			return false
		}
	}
	return false
}

func runWave(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("wave", stderr, "[-print] FILE.vcd|FILE.fst")
	printOnly := fs.Bool("print", false, "print the GTKWave command instead of running it")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return errUsage
	}
	file, err := filepath.Abs(fs.Arg(0))
	if err != nil {
		return err
	}
	if _, err := os.Stat(file); err != nil {
		return fmt.Errorf("waveform: %w", err)
	}
	root, err := simulator.FindRoot()
	if err != nil {
		return err
	}
	argv := waveCommand(root, file)
	if *printOnly {
		fmt.Fprintln(stdout, shellQuote(argv))
		return nil
	}
	if _, err := exec.LookPath("gtkwave"); err != nil {
		return fmt.Errorf("gtkwave is not installed (run `make deps`); the command would be: %s", shellQuote(argv))
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	return cmd.Run()
}

func shellQuote(argv []string) string {
	s := ""
	for i, a := range argv {
		if i > 0 {
			s += " "
		}
		safe := a != ""
		for _, c := range a {
			if !(c == '/' || c == '.' || c == '-' || c == '_' || c == '=' || c == ':' || c == '+' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
				safe = false
			}
		}
		if safe {
			s += a
		} else {
			s += "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
	}
	return s
}
