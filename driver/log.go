package driver

import (
	"context"
	"log/slog"
	"strings"

	"github.com/vianic/vianic/internal/hw"
)

// maxLogLine bounds a log line that never ends: its text is passed on in
// pieces of this size.
const maxLogLine = 512

// DrainLog passes the firmware log words waiting in FW_LOG to the logger.
// The NIC drains the log by itself on FW_LOG interrupts it sees while it
// waits (boot, admin commands); DrainLog is for a caller that wants the
// lines now.
func (n *NIC) DrainLog(ctx context.Context) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed.Load() {
		return ErrClosed
	}
	return n.drainLog(ctx)
}

// drainLog clears IRQ_STATUS.FW_LOG, then pops the words FW_LOG_LEVEL
// counts, assembling lines at '\n'. A word pushed after the level was read
// raises FW_LOG again and is drained the next time. Call with mu held.
func (n *NIC) drainLog(ctx context.Context) error {
	n.b.Write32(ctx, hw.RegIrqStatus, irqLog)
	for {
		lvl, err := n.b.Read32(ctx, hw.RegFwLogLevel)
		if err != nil {
			return err
		}
		if d := hw.FwLogLevelDropped.Get(lvl); d > 0 {
			n.dropped.Add(uint64(d))
			n.log.LogAttrs(ctx, slog.LevelWarn, "firmware log words dropped: the log FIFO was full",
				slog.Uint64("cycle", n.b.Cycle()), slog.Uint64("dropped", uint64(d)))
		}
		words := int(hw.FwLogLevelWords.Get(lvl))
		if words == 0 {
			return nil
		}
		for range words {
			w, err := n.b.Read32(ctx, hw.RegFwLog)
			if err != nil {
				return err
			}
			if w == 0 {
				break
			}
			n.logWord(w, n.b.Cycle())
		}
	}
}

// logWord appends the text bytes of one log word.
func (n *NIC) logWord(w uint32, cycle uint64) {
	for i := 0; i < 4; i++ {
		c := byte(w >> (8 * i))
		if c == 0 {
			continue
		}
		if len(n.logBuf) == 0 {
			n.logCyc = cycle
		}
		if c == '\n' {
			n.emitLine(string(n.logBuf), n.logCyc)
			n.logBuf = n.logBuf[:0]
			continue
		}
		n.logBuf = append(n.logBuf, c)
		if len(n.logBuf) >= maxLogLine {
			n.emitLine(string(n.logBuf), n.logCyc)
			n.logBuf = n.logBuf[:0]
		}
	}
}

// emitLine passes one firmware log line to the logger, with the node and
// the cycle at which its first word was popped.
func (n *NIC) emitLine(line string, cycle uint64) {
	line = strings.TrimRight(line, "\r")
	n.lines.Add(1)
	n.log.LogAttrs(context.Background(), slog.LevelInfo, line, slog.Uint64("cycle", cycle), slog.String("source", "firmware"))
}
