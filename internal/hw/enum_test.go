package hw

import "testing"

// TestEnumNames: the generated enums name their values and fall back to
// ENUM(N) for unknown ones.
func TestEnumNames(t *testing.T) {
	cases := []struct {
		got, want string
	}{
		{AdminOp(AdminOpQueryNic).String(), "QUERY_NIC"},
		{AdminSt(AdminStBadParam).String(), "BAD_PARAM"},
		{AdminSt(99).String(), "ST(99)"},
		{FwEv(FwEvTimer).String(), "TIMER"},
	}
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
	if IrqStatusFwFaultMask != IrqStatusFwFault.Mask() || IrqStatusOtherMask != IrqStatusOther.Mask() {
		t.Error("the generated mask constants disagree with the Field variables")
	}
}
