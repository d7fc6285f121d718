package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/vianic/vianic/cosim"
	"github.com/vianic/vianic/driver"
	"github.com/vianic/vianic/internal/hw"
	"github.com/vianic/vianic/internal/simulator"
)

func init() {
	register(command{"tpt", "ask the NIC's translation and protection table what it answers (tpt probe)", runTPT})
}

// kindArg is a TPT access kind as the command line spells it: the layout's
// name in lower case with dashes ("local-read").
func kindArg(k hw.TptKind) string { return strings.ToLower(strings.ReplaceAll(k.String(), "_", "-")) }

func parseKind(s string) (hw.TptKind, bool) {
	for k := range hw.TptKindNames {
		if kindArg(k) == s {
			return k, true
		}
	}
	return 0, false
}

// tptProbeSpec is one PROBE argument: KIND[:OFFSET[:LEN]].
type tptProbeSpec struct {
	kind   hw.TptKind
	abs    bool   // off is an absolute VA
	off    int64  // from the region's start
	va     uint64 // when abs
	length uint32
}

func parseProbeSpec(s string) (tptProbeSpec, error) {
	parts := strings.Split(s, ":")
	if len(parts) > 3 {
		return tptProbeSpec{}, fmt.Errorf("probe %q: want KIND[:OFFSET[:LEN]]", s)
	}
	k, ok := parseKind(parts[0])
	if !ok {
		return tptProbeSpec{}, fmt.Errorf("probe %q: kind %q is none of local-read, local-write, remote-read, remote-write", s, parts[0])
	}
	p := tptProbeSpec{kind: k, length: 8}
	if len(parts) > 1 && parts[1] != "" {
		if v, ok := strings.CutPrefix(parts[1], "@"); ok {
			va, err := strconv.ParseUint(v, 0, 64)
			if err != nil {
				return p, fmt.Errorf("probe %q: address %q: %v", s, v, err)
			}
			p.abs, p.va = true, va
		} else {
			off, err := strconv.ParseInt(parts[1], 0, 64)
			if err != nil {
				return p, fmt.Errorf("probe %q: offset %q: %v", s, parts[1], err)
			}
			p.off = off
		}
	}
	if len(parts) > 2 {
		n, err := strconv.ParseUint(parts[2], 0, 32)
		if err != nil {
			return p, fmt.Errorf("probe %q: length %q: %v", s, parts[2], err)
		}
		p.length = uint32(n)
	}
	return p, nil
}

type tptRow struct {
	Kind   string `json:"kind"`
	Handle uint32 `json:"handle"`
	Ptag   uint32 `json:"ptag"`
	VA     uint64 `json:"va"`
	Len    uint32 `json:"len"`
	Answer string `json:"answer"`
	PA     uint64 `json:"pa"`
	Bytes  uint32 `json:"bytes"`
	Hit    bool   `json:"hit"`
	Cycles uint64 `json:"cycles"`
}

func runTPT(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "probe" {
		fmt.Fprintln(stderr, "usage: vianic tpt probe [options] [PROBE...]  (vianic tpt probe -h for the options)")
		return errUsage
	}
	fs := newFlags("tpt probe", stderr, "[-size N] [-rdma-write] [-rdma-read] [-handle H] [-ptag P] [-deregister] [-json] [KIND[:OFFSET[:LEN]]...]")
	size := fs.Int("size", 3*4096+512, "bytes of the buffer the tool allocates and registers")
	rdmaW := fs.Bool("rdma-write", false, "register the region with RDMA write enabled")
	rdmaR := fs.Bool("rdma-read", false, "register the region with RDMA read enabled")
	handleFlag := fs.String("handle", "", "probe with this memory handle instead of the region's (e.g. 0x12345)")
	ptagFlag := fs.String("ptag", "", "probe with this ptag instead of the region's")
	dereg := fs.Bool("deregister", false, "deregister the region before probing (its handle is then stale)")
	asJSON := fs.Bool("json", false, "print JSON")
	timeout := fs.Duration("timeout", 5*time.Minute, "give up after this long")
	if err := parse(fs, args[1:]); err != nil {
		return err
	}
	if *size <= 0 || *size > 64<<20 {
		return fmt.Errorf("-size must be 1 to %d bytes", 64<<20)
	}
	var specs []tptProbeSpec
	for _, a := range fs.Args() {
		p, err := parseProbeSpec(a)
		if err != nil {
			return err
		}
		specs = append(specs, p)
	}
	if len(specs) == 0 {
		// one of each answer the region can give
		specs = []tptProbeSpec{
			{kind: hw.TptKindLocalRead, off: 0, length: 64},
			{kind: hw.TptKindLocalRead, off: 0, length: 64},
			{kind: hw.TptKindLocalWrite, off: 4096 - 16, length: 64},
			{kind: hw.TptKindLocalRead, off: int64(*size), length: 0},
			{kind: hw.TptKindLocalRead, off: int64(*size) - 8, length: 16},
			{kind: hw.TptKindRemoteWrite, off: 0, length: 8},
			{kind: hw.TptKindRemoteRead, off: 0, length: 8},
		}
	}
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()

	root, err := simulator.FindRoot()
	if err != nil {
		return err
	}
	fmt.Fprintln(stderr, "vianic tpt: starting a one-node simulator and booting the NIC...")
	sim, err := simulator.StartSimulator(ctx, simulator.SimOptions{Root: root, Nodes: 1, Stderr: io.Discard})
	if err != nil {
		return err
	}
	defer sim.Stop()
	c, err := sim.Dial(ctx, cosim.Options{Node: 0, Name: "vianic tpt", Interrupts: true})
	if err != nil {
		return err
	}
	defer c.Close()
	nic, err := openNIC(ctx, c, driver.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return err
	}
	defer nic.Close()
	mem, err := cosim.NewMemory(max(4**size, 1<<20))
	if err != nil {
		return err
	}
	defer mem.Close()
	if err := nic.AttachMemory(ctx, mem); err != nil {
		return err
	}
	if err := nic.ManageMemory(mem, driver.MemoryOptions{}); err != nil {
		return err
	}
	s, err := nic.OpenSession("vianic tpt", 0)
	if err != nil {
		return err
	}
	defer s.Close(context.Background())
	ptag, err := s.CreatePtag(ctx)
	if err != nil {
		return err
	}
	buf, err := s.Alloc(*size)
	if err != nil {
		return err
	}
	h, err := s.RegisterMem(ctx, buf.VA, *size, driver.MemAttrs{Ptag: ptag, EnableRdmaWrite: *rdmaW, EnableRdmaRead: *rdmaR})
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "vianic tpt: registered %d bytes at VA 0x%x: handle 0x%08x, ptag 0x%x, rdma write %v, read %v\n",
		*size, buf.VA, uint32(h), uint32(ptag), *rdmaW, *rdmaR)
	if *dereg {
		if err := s.DeregisterMem(ctx, buf.VA, h); err != nil {
			return err
		}
		fmt.Fprintln(stderr, "vianic tpt: deregistered it")
	}
	probeH, probeP := h, ptag
	if *handleFlag != "" {
		v, err := strconv.ParseUint(*handleFlag, 0, 32)
		if err != nil {
			return fmt.Errorf("-handle: %v", err)
		}
		probeH = driver.MemHandle(v)
	}
	if *ptagFlag != "" {
		v, err := strconv.ParseUint(*ptagFlag, 0, 16)
		if err != nil {
			return fmt.Errorf("-ptag: %v", err)
		}
		probeP = driver.Ptag(v)
	}
	var rows []tptRow
	for _, sp := range specs {
		va := sp.va
		if !sp.abs {
			va = buf.VA + uint64(sp.off)
		}
		a, err := nic.ProbeTPT(ctx, driver.TPTProbe{Handle: probeH, VA: va, Len: sp.length, Ptag: probeP, Kind: sp.kind})
		if err != nil {
			return err
		}
		rows = append(rows, tptRow{Kind: kindArg(sp.kind), Handle: uint32(probeH), Ptag: uint32(probeP),
			VA: va, Len: sp.length, Answer: a.Err.String(), PA: a.PA, Bytes: a.Bytes, Hit: a.Hit, Cycles: a.Cycles})
	}
	st, err := nic.TPTStats(ctx)
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(map[string]any{"probes": rows, "stats": st})
	}
	tw := tabwriter.NewWriter(stdout, 0, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "kind\thandle\tptag\tva\tlen\tanswer\tpa\tbytes\tcache\tcycles")
	for _, r := range rows {
		hit := "miss"
		if r.Hit {
			hit = "hit"
		}
		if r.Answer != "OK" || r.Len == 0 {
			hit = "-"
		}
		fmt.Fprintf(tw, "%s\t0x%08x\t0x%x\t0x%x\t%d\t%s\t0x%x\t%d\t%s\t%d\n", r.Kind, r.Handle, r.Ptag, r.VA, r.Len, r.Answer, r.PA, r.Bytes, hit, r.Cycles)
	}
	tw.Flush()
	fmt.Fprintf(stdout, "TPT: %d lookups, %d hits, %d misses, %d errors\n", st.Lookups, st.Hits, st.Misses, st.Errors)
	return nil
}
