package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/vianic/vianic/cosim"
	"github.com/vianic/vianic/driver"
	"github.com/vianic/vianic/firmware"
	"github.com/vianic/vianic/internal/hw"
	"github.com/vianic/vianic/internal/simulator"
)

func init() {
	register(command{"fw", "build, disassemble, benchmark and watch the NIC firmware (`vianic fw -h`)", runFW})
}

// The external tools fw runs; tests replace them.
var (
	makeTool    = "make"
	objdumpTool = "riscv64-unknown-elf-objdump"
)

const fwSynopsis = `SUBCOMMAND [options]

subcommands:
  build [-n]                      build the firmware images (make -C firmware)
  disasm [-image ELF]             disassemble the firmware (default firmware/image/vianic-fw.elf)
  log -socket PATH [-node N]      show the firmware log and state of a running simulator's node
  bench [-rounds N] [-json]       boot the firmware in a new simulator and measure boot and admin figures`

func runFW(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprintf(stderr, "usage: vianic fw %s\n", fwSynopsis)
		if len(args) == 0 {
			return errUsage
		}
		return flag.ErrHelp
	}
	sub, rest := args[0], args[1:]
	switch sub {
	case "build":
		return runFWBuild(ctx, rest, stdout, stderr)
	case "disasm":
		return runFWDisasm(ctx, rest, stdout, stderr)
	case "log":
		return runFWLog(ctx, rest, stdout, stderr)
	case "bench":
		return runFWBench(ctx, rest, stdout, stderr)
	}
	fmt.Fprintf(stderr, "vianic fw: unknown subcommand %q\nusage: vianic fw %s\n", sub, fwSynopsis)
	return errUsage
}

// runFWBuild runs make -C firmware; its output goes to stdout and stderr.
func runFWBuild(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("fw build", stderr, "[-n]")
	dry := fs.Bool("n", false, "print the commands without running them (make -n)")
	if err := parse(fs, args); err != nil {
		return err
	}
	root, err := simulator.FindRoot()
	if err != nil {
		return err
	}
	margs := []string{"-C", filepath.Join(root, "firmware")}
	if *dry {
		margs = append(margs, "-n")
	}
	if _, err := exec.LookPath(makeTool); err != nil {
		return fmt.Errorf("%s not found: install the build tools with `make deps`", makeTool)
	}
	cmd := exec.CommandContext(ctx, makeTool, margs...)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s %s: %w", makeTool, strings.Join(margs, " "), err)
	}
	return nil
}

// runFWDisasm prints objdump -d of the firmware's ELF file.
func runFWDisasm(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("fw disasm", stderr, "[-image ELF]")
	elf := fs.String("image", "", "ELF file to disassemble (default firmware/image/vianic-fw.elf)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *elf == "" {
		root, err := simulator.FindRoot()
		if err != nil {
			return err
		}
		*elf = filepath.Join(root, "firmware", "image", "vianic-fw.elf")
	}
	if _, err := os.Stat(*elf); err != nil {
		return fmt.Errorf("no firmware ELF: %w (build it with `vianic fw build`)", err)
	}
	tool, err := exec.LookPath(objdumpTool)
	if err != nil {
		return fmt.Errorf("%s not found: the RISC-V toolchain is missing; install it with `make deps`", objdumpTool)
	}
	cmd := exec.CommandContext(ctx, tool, "-d", *elf)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s -d %s: %w", objdumpTool, *elf, err)
	}
	return nil
}

// fwLogStatsPrefix is the STATS key prefix under which a simulator may
// publish the firmware log lines it printed, one key per line:
// "fw_log.node<N>.<index> <cycle> <text>" (index counting up from 0 over
// the recent lines it keeps). fw log shows them when present.
const fwLogStatsPrefix = "fw_log.node"

// runFWLog shows the firmware log and state of a node. Popping FW_LOG from
// a second connection would steal the lines from the node's driver, so
// fw log never does: it shows the lines the simulator publishes in STATS
// (see fwLogStatsPrefix) and, in every case, the firmware's state read
// over a monitor connection, which never holds up lockstep time. Reading
// FW_LOG_LEVEL clears its DROPPED count, so a drop the monitor shows is not
// reported again by the driver.
func runFWLog(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("fw log", stderr, "-socket PATH [-node N] [-watch INTERVAL]")
	df := addDialFlags(fs)
	watch := fs.Duration("watch", 0, "repeat every INTERVAL until interrupted (0: once)")
	timeout := fs.Duration("timeout", 10*time.Second, "give up a round after this long")
	if err := parse(fs, args); err != nil {
		return err
	}
	dctx, cancel := context.WithTimeout(ctx, *timeout)
	c, err := df.dial(dctx, cosim.Options{Role: cosim.RoleMonitor, Name: "vianic fw log"})
	cancel()
	if err != nil {
		return err
	}
	defer c.Close()
	// The bridge only reports the map hash; this tool reads registers by
	// this build's offsets, so it refuses another map (vianic regs warns).
	if h := c.Device().MapHash; h != hw.Bar0Hash {
		return fmt.Errorf("%w: the simulator's register map is 0x%016x, this tool's 0x%016x (rebuild one of them)", driver.ErrMapMismatch, h, hw.Bar0Hash)
	}
	seen := -1
	for {
		rctx, cancel := context.WithTimeout(ctx, *timeout)
		err := fwLogRound(rctx, c, *df.node, &seen, stdout)
		cancel()
		if err != nil {
			return err
		}
		if *watch <= 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(*watch):
		}
	}
}

// fwState is the firmware's state as a monitor sees it.
type fwState struct {
	Cycle     uint64
	Ready     uint32
	CPUStatus uint32
	Trap      [3]uint32
	PC        uint32
	Retired   uint32
	LogLevel  uint32
}

func readFWState(ctx context.Context, c *cosim.Conn) (fwState, error) {
	var s fwState
	for _, r := range []struct {
		off uint32
		v   *uint32
	}{
		{hw.RegFwReady, &s.Ready}, {hw.RegCpuStatus, &s.CPUStatus}, {hw.RegCpuTrapCause, &s.Trap[0]},
		{hw.RegCpuTrapPc, &s.Trap[1]}, {hw.RegCpuTrapVal, &s.Trap[2]}, {hw.RegCpuPc, &s.PC},
		{hw.RegCpuRetired, &s.Retired}, {hw.RegFwLogLevel, &s.LogLevel},
	} {
		v, err := c.Read32(ctx, r.off)
		if err != nil {
			return s, err
		}
		*r.v = v
	}
	s.Cycle = c.LastCycle()
	return s, nil
}

// formatFWState prints the state in a few lines.
func formatFWState(w io.Writer, node int, s fwState) {
	fmt.Fprintf(w, "node %d, cycle %d\n", node, s.Cycle)
	if hw.FwReadyMagic.Get(s.Ready) == hw.FwReadyMagicValue {
		v := uint16(hw.FwReadyVersion.Get(s.Ready))
		note := ""
		if v != firmware.Version {
			note = fmt.Sprintf(" (this tool's firmware is %s)", driver.VersionString(firmware.Version))
		}
		fmt.Fprintf(w, "  firmware: ready, version %s%s\n", driver.VersionString(v), note)
	} else {
		fmt.Fprintf(w, "  firmware: not ready (FW_READY 0x%08x)\n", s.Ready)
	}
	var st []string
	for _, f := range []hw.Field{hw.CpuStatusRunning, hw.CpuStatusHalted, hw.CpuStatusWfi} {
		if f.Get(s.CPUStatus) != 0 {
			st = append(st, strings.ToLower(f.Name))
		}
	}
	if len(st) == 0 {
		st = append(st, "held in reset")
	}
	fmt.Fprintf(w, "  core: %s, pc 0x%08x, %d instructions retired\n", strings.Join(st, ", "), s.PC, s.Retired)
	if hw.CpuStatusHalted.Get(s.CPUStatus) != 0 {
		fmt.Fprintf(w, "  trap: %s at pc 0x%08x (mtval 0x%08x)\n", driver.TrapName(s.Trap[0]), s.Trap[1], s.Trap[2])
	}
	fmt.Fprintf(w, "  log FIFO: %d words waiting for the driver", hw.FwLogLevelWords.Get(s.LogLevel))
	if d := hw.FwLogLevelDropped.Get(s.LogLevel); d > 0 {
		fmt.Fprintf(w, ", %d dropped", d)
	}
	fmt.Fprintln(w)
}

// statsLogLines extracts the node's firmware log lines from STATS, in
// order, with their indices.
func statsLogLines(stats map[string]string, node int) (idx []int, lines []string) {
	prefix := fwLogStatsPrefix + strconv.Itoa(node) + "."
	m := map[int]string{}
	for k, v := range stats {
		if rest, ok := strings.CutPrefix(k, prefix); ok {
			if i, err := strconv.Atoi(rest); err == nil {
				m[i] = v
			}
		}
	}
	for i := range m {
		idx = append(idx, i)
	}
	sort.Ints(idx)
	for _, i := range idx {
		lines = append(lines, m[i])
	}
	return idx, lines
}

func fwLogRound(ctx context.Context, c *cosim.Conn, node int, seen *int, w io.Writer) error {
	stats, err := c.Stats(ctx)
	if err != nil {
		return err
	}
	idx, lines := statsLogLines(stats, node)
	if len(idx) == 0 && *seen < 0 {
		fmt.Fprintf(w, "(the simulator publishes no firmware log lines in STATS (%sN.K keys): see its console output, where it prints the lines it sees on the NIC's debug port, or the node driver's log; FW_LOG itself is left to the driver)\n", fwLogStatsPrefix)
		*seen = 0
	}
	for k, i := range idx {
		if i > *seen || *seen < 0 {
			fmt.Fprintf(w, "node %d: %s\n", node, lines[k])
			*seen = i
		}
	}
	s, err := readFWState(ctx, c)
	if err != nil {
		return err
	}
	formatFWState(w, node, s)
	return nil
}

// runFWBench boots the firmware in a simulator of its own and prints the
// driver's figures.
func runFWBench(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("fw bench", stderr, "[-rounds N] [-json]")
	rounds := fs.Int("rounds", 200, "NOPs to time")
	asJSON := fs.Bool("json", false, "print the figures as JSON")
	if err := parse(fs, args); err != nil {
		return err
	}
	f, err := benchFirmware(ctx, *rounds, stderr)
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(f)
	}
	printFWFigures(stdout, f)
	return nil
}

func benchFirmware(ctx context.Context, rounds int, progress io.Writer) (driver.Figures, error) {
	fmt.Fprintln(progress, "fw bench: starting a 1-node lockstep simulator (building it if needed)...")
	s, err := simulator.StartSimulator(ctx, simulator.SimOptions{Nodes: 1, Stderr: io.Discard})
	if err != nil {
		return driver.Figures{}, err
	}
	defer s.Stop()
	conn, err := s.Dial(ctx, cosim.Options{Role: cosim.RoleDriver, Name: "vianic fw bench"})
	if err != nil {
		return driver.Figures{}, err
	}
	defer conn.Close()
	n, err := openNIC(ctx, conn, driver.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return driver.Figures{}, err
	}
	defer n.Close()
	return driver.MeasureFigures(ctx, n, rounds)
}

func printFWFigures(w io.Writer, f driver.Figures) {
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	fmt.Fprintf(tw, "figure\tsimulated\twall clock\n")
	fmt.Fprintf(tw, "firmware download (%d bytes, posted writes)\t%d cycles\t%.2f ms\n", f.ImageBytes, f.DownloadCycles, f.DownloadWallMS)
	fmt.Fprintf(tw, "read-back verification (%d words)\t\t%.2f ms\n", f.VerifyWords, f.VerifyWallMS)
	fmt.Fprintf(tw, "boot: core released to FW_READY\t%d cycles = %.2f us\t\n", f.BootCycles, f.BootUS)
	fmt.Fprintf(tw, "admin NOP to ADMIN_DONE (median of %d)\t%d cycles = %.2f us\t\n", f.Rounds, f.NopDoneCycles, f.NopDoneUS)
	fmt.Fprintf(tw, "admin NOP with response read\t%d cycles = %.2f us\t%.1f us\n", f.NopTotalCycles, f.NopTotalUS, f.NopWallUS)
	fmt.Fprintf(tw, "QUERY_NIC with response read\t%d cycles\t\n", f.QueryTotalCycles)
	fmt.Fprintf(tw, "ECHO 240 bytes with response read\t%d cycles\t%.1f us\n", f.Echo240Cycles, f.Echo240WallUS)
	fmt.Fprintf(tw, "(clock %.0f MHz)\t\t\n", f.ClockMHz)
	tw.Flush()
}
