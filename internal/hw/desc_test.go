package hw

import "testing"

// The flag-set types layoutgen writes for struct members with bit fields
// (cmd/layoutgen goFlagSets), on the descriptor's STATUS and CONTROL.
func TestDescBitsString(t *testing.T) {
	for _, c := range []struct {
		v    uint32
		want string
	}{
		{0, "0"},
		{DescCtlStatusDone.Mask(), "DONE|op=SEND"},
		{DescCtlStatusDone.Mask() | DescCtlStatusLocalLengthError.Mask() | DescCtlStatusOp.Val(DescCompletedReceive) | DescCtlStatusImmediate.Mask(),
			"DONE|LOCAL_LENGTH_ERROR|op=RECEIVE|IMMEDIATE"},
		{DescCtlStatusDone.Mask() | DescCtlStatusFlushed.Mask() | DescCtlStatusOp.Val(DescCompletedRemoteRdmaWrite), "DONE|FLUSHED|op=REMOTE_RDMA_WRITE"},
		{DescCtlStatusOp.Val(7), "op=COMPLETED(7)"},
		{1<<31 | 1<<9 | DescCtlStatusDone.Mask(), "DONE|op=SEND|0x80000200"},
	} {
		if got := DescCtlStatusBits(c.v).String(); got != c.want {
			t.Errorf("DescCtlStatusBits(%#x) = %q, want %q", c.v, got, c.want)
		}
	}
	if got := DescCtlControlBits(DescCtlControlOp.Val(DescOpRdmaWrite) | DescCtlControlImmediate.Mask()).String(); got != "op=RDMA_WRITE|IMMEDIATE" {
		t.Errorf("control: %q", got)
	}
	// the error mask is the error bits, nothing else
	var errs uint32
	for _, f := range []Field{DescCtlStatusLocalFormatError, DescCtlStatusLocalProtectionError, DescCtlStatusLocalLengthError,
		DescCtlStatusPartialPacketError, DescCtlStatusFlushed, DescCtlStatusTransportError, DescCtlStatusRdmaProtectionError,
		DescCtlStatusRemoteDescriptorError} {
		errs |= f.Mask()
	}
	if errs != DescStatusErrorMask {
		t.Errorf("error bits %#x, STATUS_ERROR_MASK %#x", errs, DescStatusErrorMask)
	}
	if DescCtlBytes%DescSegBytes != 0 || DescAlign%DescSegBytes != 0 || DescAddrSegBytes != DescSegBytes || DescDataSegBytes != DescSegBytes {
		t.Error("segment sizes disagree with the layout's constants")
	}
}
