/* tinyllm/status.h: the status of the functions that validate their arguments.
 *
 * The six kernels of elementwise.h are caller-validated and return nothing.
 * Ops whose arguments can be wrong in ways the caller cannot cheaply see
 * (shapes that do not broadcast, an odd head_dim, a position past the
 * context) return a tl_status; on anything but TL_OK they write nothing, and
 * tl_last_error() says what was wrong, in words, on the calling thread.
 *
 * Partial support: a library may implement only some valid cases of an op
 * (one Interpolate mode, one Pool kind) and return TL_ERR_UNSUPPORTED for the
 * others, writing nothing, with tl_last_error() naming what it lacks. A
 * conformance check counts such cases as unsupported and judges the rest; an
 * op that answers every valid case so is unsupported, not passed. The status is
 * for valid arguments only: arguments the op's contract refuses get that
 * refusal's status, never TL_ERR_UNSUPPORTED.
 */
#ifndef TINYLLM_STATUS_H
#define TINYLLM_STATUS_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum tl_status {
  TL_OK = 0,
  TL_ERR_INVALID_ARGUMENT = 1, /* a size, axis or parameter outside its range */
  TL_ERR_SHAPE = 2,            /* shapes that do not fit together (broadcast, concat, reshape) */
  TL_ERR_CONTEXT_OVERFLOW = 3, /* ContextOverflowError: a position or length past the maximum */
  TL_ERR_UNSUPPORTED = 4       /* valid, but this library does not implement it (see above) */
} tl_status;

/* The message of the last failing call on this thread ("" if none). */
const char* tl_last_error(void);

#ifdef __cplusplus
}
#endif

#endif /* TINYLLM_STATUS_H */
