package driver

import (
	"errors"
	"fmt"

	"github.com/vianic/vianic/internal/hw"
)

// Sentinel errors; check them with errors.Is.
var (
	// ErrNotVIANIC means BAR0's MAGIC is not hw.Magic.
	ErrNotVIANIC = errors.New("driver: not a vianic NIC")
	// ErrMapMismatch means the NIC was generated from another register map
	// than this driver (hw.Bar0Hash): the hash its bus reports
	// (BusInfo.MapHash) or its MAP_HASH registers differ. Open checks it;
	// nothing below the driver does.
	ErrMapMismatch = errors.New("driver: register map hash mismatch")
	// ErrResetTimeout means a soft reset did not end (STATUS.RESET_BUSY
	// stayed 1).
	ErrResetTimeout = errors.New("driver: soft reset did not finish")
	// ErrImageTooLarge means the firmware image does not fit the
	// instruction memory reported by CAP_CPU.
	ErrImageTooLarge = errors.New("driver: firmware image larger than the instruction memory")
	// ErrDownload means reading the instruction memory back did not give
	// the image that was written.
	ErrDownload = errors.New("driver: firmware download verification failed")
	// ErrBootTimeout means the firmware did not write FW_READY within
	// Options.BootTimeoutCycles (and did not trap).
	ErrBootTimeout = errors.New("driver: firmware did not become ready in time")
	// ErrFirmwareVersion means the firmware reports a version other than
	// the one the driver expects.
	ErrFirmwareVersion = errors.New("driver: firmware version mismatch")
	// ErrFirmwareFault is matched by *FirmwareFault.
	ErrFirmwareFault = errors.New("driver: firmware fault")
	// ErrFirmwareHung means the firmware did not complete an admin command
	// within its deadline although the core did not trap.
	ErrFirmwareHung = errors.New("driver: firmware hung")
	// ErrSequence means the response in the mailbox carries another
	// sequence number than the command (or another opcode).
	ErrSequence = errors.New("driver: admin response sequence mismatch")
	// ErrClosed is returned by every call on a closed NIC.
	ErrClosed = errors.New("driver: NIC closed")
	// ErrNotReady is returned by admin calls on a NIC whose firmware is not
	// running (a failed boot or recovery); Recover brings it back.
	ErrNotReady = errors.New("driver: firmware not running")

	// ErrUnknownCommand is the firmware's ST_UNKNOWN_CMD.
	ErrUnknownCommand = errors.New("driver: admin: unknown command")
	// ErrBadParam is the firmware's ST_BAD_PARAM, and a request the driver
	// refuses before sending it (a payload over hw.AdminPayloadMax bytes).
	ErrBadParam = errors.New("driver: admin: bad parameter")
	// ErrBusy is the firmware's ST_BUSY, and a doorbell the mailbox
	// rejected because an earlier command was still in progress
	// (ADMIN_STATUS.REJECTED).
	ErrBusy = errors.New("driver: admin: busy")
)

// StatusError is an admin command the firmware answered with a status
// other than ST_OK. It matches ErrUnknownCommand, ErrBadParam or ErrBusy
// according to its status.
type StatusError struct {
	Opcode uint16
	Seq    uint32
	Status uint16
}

// Error names the opcode and the status.
func (e *StatusError) Error() string {
	return fmt.Sprintf("driver: admin %s (seq %d): firmware answered %s", OpcodeName(e.Opcode), e.Seq, StatusName(e.Status))
}

// Is matches the sentinel error of the status.
func (e *StatusError) Is(target error) bool {
	switch target {
	case ErrUnknownCommand:
		return e.Status == hw.AdminStUnknownCmd
	case ErrBadParam:
		return e.Status == hw.AdminStBadParam
	case ErrBusy:
		return e.Status == hw.AdminStBusy
	}
	return false
}

// OpcodeName returns the layout's name of an admin opcode ("NOP",
// "QUERY_NIC", "ECHO") or "opcode 0xNNNN". The names come from the
// generated table hw.AdminOpNames.
func OpcodeName(op uint16) string {
	if name, ok := hw.AdminOpNames[hw.AdminOp(op)]; ok {
		return name
	}
	return fmt.Sprintf("opcode 0x%04x", op)
}

// StatusName returns the layout's name of an admin status ("OK",
// "UNKNOWN_CMD", "BAD_PARAM", "BUSY") or "status N". The names come from
// the generated table hw.AdminStNames.
func StatusName(st uint16) string {
	if name, ok := hw.AdminStNames[hw.AdminSt(st)]; ok {
		return name
	}
	return fmt.Sprintf("status %d", st)
}

// Trap causes of the control processor (CPU_TRAP_CAUSE, RISC-V mcause).
const (
	CauseMisalignedFetch  = 0
	CauseFetchAccess      = 1
	CauseIllegalInsn      = 2
	CauseBreakpoint       = 3
	CauseMisalignedLoad   = 4
	CauseLoadAccess       = 5
	CauseMisalignedStore  = 6
	CauseStoreAccess      = 7
	CauseEnvCallFromMMode = 11
)

// TrapName returns the name of a trap cause, as in "illegal instruction".
func TrapName(cause uint32) string {
	switch cause {
	case CauseMisalignedFetch:
		return "instruction address misaligned"
	case CauseFetchAccess:
		return "instruction access fault"
	case CauseIllegalInsn:
		return "illegal instruction"
	case CauseBreakpoint:
		return "breakpoint"
	case CauseMisalignedLoad:
		return "load address misaligned"
	case CauseLoadAccess:
		return "load access fault"
	case CauseMisalignedStore:
		return "store address misaligned"
	case CauseStoreAccess:
		return "store access fault"
	case CauseEnvCallFromMMode:
		return "environment call"
	}
	return fmt.Sprintf("trap cause %d", cause)
}

// FirmwareFault is a trap of the control processor: the core halted
// (CPU_STATUS.HALTED) and raised FW_FAULT. It matches ErrFirmwareFault.
type FirmwareFault struct {
	Node  int    // node index
	Cause uint32 // CPU_TRAP_CAUSE (mcause)
	PC    uint32 // CPU_TRAP_PC (mepc): the instruction that trapped
	Val   uint32 // CPU_TRAP_VAL (mtval): faulting address or instruction bits
	Cycle uint64 // simulated cycle at which the driver noticed it
}

// Error names the node and the trap, as in "firmware fault on node 0:
// illegal instruction at pc 0x000001a4 (mtval 0xffffffff)".
func (f *FirmwareFault) Error() string {
	return fmt.Sprintf("firmware fault on node %d: %s at pc 0x%08x (mtval 0x%08x)", f.Node, TrapName(f.Cause), f.PC, f.Val)
}

// Is matches ErrFirmwareFault.
func (f *FirmwareFault) Is(target error) bool { return target == ErrFirmwareFault }
