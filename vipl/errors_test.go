package vipl

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vianic/vianic/driver"
	"github.com/vianic/vianic/internal/hw"
)

// Every VIA return code of the layout has exactly one sentinel, and every
// error of the package matches the sentinel of its code and no other.
func TestErrorsMapOneToOne(t *testing.T) {
	require.Len(t, hw.VipReturnNames, 17, "the layout's codes")
	seen := map[error]Return{}
	for code, name := range hw.VipReturnNames {
		r := Return(code)
		assert.Equal(t, "VIP_"+name, r.String())
		if r == Success {
			assert.NoError(t, r.Err())
			assert.Equal(t, Success, Code(nil))
			continue
		}
		s := r.Err()
		require.Error(t, s, "%s has no sentinel", r)
		assert.Equal(t, "vipl: VIP_"+name, s.Error())
		if prev, dup := seen[s]; dup {
			t.Fatalf("%s and %s share a sentinel", r, prev)
		}
		seen[s] = r
		assert.Equal(t, r, Code(s), "Code of the sentinel")

		// an *Error, as the package returns it, also when wrapped
		e := &Error{Op: "Test", Code: r, Detail: "detail"}
		for _, err := range []error{e, fmt.Errorf("context: %w", e)} {
			assert.Equal(t, r, Code(err))
			for other := range hw.VipReturnNames {
				o := Return(other)
				if o == Success {
					continue
				}
				assert.Equal(t, o == r, errors.Is(err, o.Err()), "errors.Is(%v, %v)", err, o)
			}
		}
		assert.Equal(t, "vipl: Test: VIP_"+name+": detail", e.Error())

		// a driver error of the code, through the local agent's mapping
		de := agentErr("RegisterMem", &driver.VipError{Op: "RegisterMem", Code: hw.VipReturn(code), Detail: "from the driver"})
		assert.Equal(t, r, Code(de))
		assert.ErrorIs(t, de, s)
		assert.Equal(t, r, Code(wrapErr("Other", de)), "wrapErr keeps the code")
		assert.ErrorIs(t, wrapErr("Other", de), s)
	}
	assert.Len(t, seen, 16)
	// the exported sentinels are the table's
	for r, s := range map[Return]error{
		NotDone: ErrNotDone, InvalidParameter: ErrInvalidParameter, ErrorResource: ErrErrorResource,
		Timeout: ErrTimeout, Reject: ErrReject, InvalidReliabilityLevel: ErrInvalidReliabilityLevel,
		InvalidMTU: ErrInvalidMTU, InvalidQoS: ErrInvalidQoS, InvalidPtag: ErrInvalidPtag,
		InvalidRdmaRead: ErrInvalidRdmaRead, DescriptorError: ErrDescriptorError, InvalidState: ErrInvalidState,
		ErrorNameService: ErrErrorNameService, NoMatch: ErrNoMatch, NotReachable: ErrNotReachable,
		ErrorNotSupported: ErrErrorNotSupported,
	} {
		assert.Same(t, s, r.Err(), "%s", r)
	}
	// a code beyond the specification's still gives an error, and a
	// foreign error counts as VIP_ERROR_RESOURCE
	assert.Error(t, Return(99).Err())
	assert.Equal(t, "VIP_RETURN(99)", Return(99).String())
	plain := errors.New("bridge closed")
	assert.Equal(t, ErrorResource, Code(plain))
	wrapped := wrapErr("CreatePtag", plain)
	assert.ErrorIs(t, wrapped, ErrErrorResource)
	assert.ErrorIs(t, wrapped, plain, "the cause stays in the chain")
	assert.ErrorIs(t, agentErr("QueryNic", driver.ErrClosed), ErrErrorResource)
	assert.ErrorIs(t, agentErr("QueryNic", driver.ErrClosed), driver.ErrClosed)
	assert.NoError(t, wrapErr("X", nil))
	assert.NoError(t, agentErr("X", nil))
}
