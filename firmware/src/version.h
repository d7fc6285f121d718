/* Firmware version and image header constants: the one place they are
 * defined. Included from C and from assembly (start.S and the test images in ../tests/), so only
 * plain #defines with bare numbers here. firmware_test.go parses this file
 * and checks it against the Go constants and every committed image header. */
#ifndef FW_VERSION_H
#define FW_VERSION_H

#define FW_VERSION_MAJOR 0
#define FW_VERSION_MINOR 1
/* The 16-bit version the firmware writes to READY[15:0] and answers in
 * NIC_ATTRS.PROVIDER_VERSION. */
#define FW_VERSION ((FW_VERSION_MAJOR << 8) | FW_VERSION_MINOR)

/* Image header: every image starts with four words, so a tool can tell a
 * firmware image and its version without running it:
 *   +0  a jump over the header to the reset code
 *   +4  FW_IMAGE_MAGIC ("vnfw" in memory order)
 *   +8  FW_VERSION
 *   +12 image kind (FW_IMAGE_KIND_*) */
#define FW_IMAGE_MAGIC 0x77666e76
#define FW_IMAGE_KIND_FIRMWARE 0
#define FW_IMAGE_KIND_FAULT_TEST 1
#define FW_IMAGE_KIND_HANG_TEST 2

#endif /* FW_VERSION_H */
