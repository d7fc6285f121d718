package vipl

import (
	"context"
	"fmt"

	"github.com/vianic/vianic/driver"
	"github.com/vianic/vianic/internal/hw"
)

// The driver's loopback join (driver.Session.ConnectLoopback and
// Disconnect) is being written on another branch. Until it is merged,
// LocalAgent reaches it through these two variables, which answer
// VIP_ERROR_NOT_SUPPORTED. At the merge this file becomes:
//
//	var (
//		sessionConnectLoopback = (*driver.Session).ConnectLoopback
//		sessionDisconnect      = (*driver.Session).Disconnect
//	)
var (
	sessionConnectLoopback = func(ctx context.Context, s *driver.Session, a, b driver.VI) error {
		return &driver.VipError{Op: "ConnectLoopback", Code: hw.VipReturnErrorNotSupported, Detail: fmt.Sprintf("loopback join of VIs %d and %d: not in this driver yet", a, b)}
	}
	sessionDisconnect = func(ctx context.Context, s *driver.Session, vi driver.VI) error {
		return &driver.VipError{Op: "ConnectLoopback", Code: hw.VipReturnErrorNotSupported, Detail: fmt.Sprintf("disconnect of VI %d: not in this driver yet", vi)}
	}
)
